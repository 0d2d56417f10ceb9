"""Writes the scenario files of this folder from the readable definitions below.

Run ``python tests/scenarios/build.py`` from the repository root; the JSON files it writes are
committed as data. Every expected result here is worked out by hand from docs/rules.md (the "why" of
each scenario shows the working); nothing is computed by the engine. The builder only lays out
decks (tests/support/stacking.py) and, for the long recycling rounds, the routine draw-and-discard
turns.

Conventions: hands are per seat as [left, middle, right]; "E" is the time a turn ended; with no
timer a turn normally draws at E + 2.5 (the next player may start at E + 2, R-WINDOW).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from stacking import deal_deck, stacked_deck  # noqa: E402

Json = dict[str, Any]

P2 = ["Ana", "Ben"]
P3 = ["Ana", "Ben", "Chloé"]
P4 = ["Ana", "Ben", "Chloé", "Dev"]


def opts(limit: int = 100, timer: int | None = None, take: bool = False) -> Json:
    return {"limit": limit, "timer": timer, "take_discard": take}


def a(t: float, seat: int, do: str, **fields: Any) -> Json:
    return {"t": t, "seat": seat, "do": do, **fields}


def readies(n: int, t: float = 0.5) -> list[Json]:
    return [a(t, seat, "ready") for seat in range(n)]


def rnd(dealer: int, hands: list[list[str]], draws: list[str], actions: list[Json]) -> Json:
    return {"dealer": dealer, "deck": deal_deck(dealer, hands, draws), "actions": actions}


def rec(players: list[str], options: Json, rounds: list[Json]) -> Json:
    return {"format": "crisp-record/1", "players": players, "options": options, "rounds": rounds}


def ended(dealer: int, caller: int, hands: list[list[str]], scores: list[int]) -> Json:
    return {"dealer": dealer, "caller": caller, "hands": hands, "scores": scores}


def result(
    rounds: list[Json], totals: list[int], over: bool = False, winners: list[int] | None = None
) -> Json:
    return {"result": {"rounds": rounds, "totals": totals, "over": over, "winners": winners or []}}


def refused(record: Json, rule: str) -> Json:
    """The expected error: the illegal action is always the last action of the last round."""
    r = len(record["rounds"]) - 1
    return {"error": {"rule": rule, "round": r, "index": len(record["rounds"][r]["actions"]) - 1}}


def look(seat: int, slot: str, card: str, why: str) -> Json:
    return {"type": "look", "seat": seat, "slot": slot, "card": card, "why": why}


SCENARIOS: dict[str, Callable[[], Json]] = {}


def scenario(fn: Callable[[], Json]) -> Callable[[], Json]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


def sc(name: str, rules: list[str], why: str, record: Json, expect: Json) -> Json:
    return {"name": name, "rules": rules, "why": why, "record": record, "expect": expect}


# --------------------------------------------------------------------------------------------
# A common 3-player table used by the window scenarios: dealer 2, seat 0 plays first.
# seat 0 [AH 2H 3H] = 6, seat 1 [5C 6C 7C] = 18, seat 2 [8D 9D TD] = 27; draws 4S 9S TS JS.
W_HANDS = [["AH", "2H", "3H"], ["5C", "6C", "7C"], ["8D", "9D", "TD"]]
W_DRAWS = ["4S", "9S", "TS", "JS"]


def w_round(actions: list[Json]) -> Json:
    return rnd(2, W_HANDS, W_DRAWS, readies(3) + actions)


# seat 0 draws 4S at 1.0 and discards it at 2.0: its turn ends at E = 2.0 with a window.
W_OPEN = [a(1.0, 0, "draw"), a(2.0, 0, "discard")]


# ---------------------------------------------------------------- §8 worked cases ----------
def _recycle_round(end: str) -> Json:
    """2 players, dealer 1 (seat 0 first). seat 0 [KS AS KH], seat 1 [KC 6S 2S].

    Deck after the deal (46 cards): 3H 9C KD, then 3S 4S 5S 7S 8S 9S TS JS QS AH 2H 4H … QH
    AD … QD AC 2C … 8C TC JC QC (the fixed order without the used cards). Every card drawn is
    discarded (KD is used: it goes on the pile first, its two extra draws are 3S and 4S), so
    the pile holds the 46 cards in the order drawn. 44 turns empty the deck: seat 0 draws 3H,
    seat 1 9C, seat 0 KD 3S 4S, then one card a turn; seat 1 draws the last card, QC.
    """
    hands = [["KS", "AS", "KH"], ["KC", "6S", "2S"]]
    round_ = rnd(1, hands, ["3H", "9C", "KD"], readies(2))
    deck = round_["deck"]
    assert deck[:9] == ["KS", "KC", "AS", "6S", "KH", "2S", "3H", "9C", "KD"]
    assert deck[9:11] == ["3S", "4S"] and deck[-2:] == ["JC", "QC"]
    acts: list[Json] = round_["actions"]
    cards = deck[6:]
    i, seat, t, turns = 0, 0, 1.0, 0
    while i < len(cards):
        owed = 1
        while owed:
            card, owed, i = cards[i], owed - 1, i + 1
            acts.append(a(t, seat, "draw"))
            if card[0] == "K":
                acts.append(a(t + 0.5, seat, "king"))
                owed += 2
            else:
                acts.append(a(t + 0.5, seat, "discard"))
            t += 1.0
        t += 2.0  # the last resolution was at t - 0.5: the next draw is at E + 2.5
        seat, turns = 1 - seat, turns + 1
    assert turns == 44 and seat == 0
    if end == "take":
        acts += [
            a(t, 0, "take_discard", slot="left"),  # QC into the left slot; KS onto the pile
            a(t + 0.5, 0, "crisp"),
            a(t + 2.5, 1, "draw"),  # the deck is recycled now: 3H
            a(t + 3.0, 1, "swap", slot="left"),
        ]
    elif end == "timeout":
        # Timer 60: seat 0's draw was due at t - 0.5 and times out at t + 59.5 with nothing
        # drawn: the pile is recycled first, then 3H is drawn and discarded for seat 0.
        acts += [
            a(t + 60.0, 1, "draw"),  # at once (no window after a timeout): 9C
            a(t + 60.5, 1, "swap", slot="left"),  # KC out
            a(t + 61.0, 1, "crisp"),
            a(t + 63.0, 0, "draw"),  # KD
            a(t + 63.5, 0, "king"),
            a(t + 64.0, 0, "draw"),  # 3S
            a(t + 64.5, 0, "swap", slot="left"),  # KS out
            a(t + 65.0, 0, "draw"),  # 4S
            a(t + 65.5, 0, "discard"),
        ]
    else:
        acts += [
            a(t, 0, "draw"),  # the deck is empty: recycled, the draw gets 3H
            a(t + 0.5, 0, "swap", slot="left"),
            a(t + 1.0, 0, "crisp"),
            a(t + 3.0, 1, "draw"),  # 9C
            a(t + 3.5, 1, "swap", slot="left"),
        ]
    return round_


@scenario
def case01_recycle_order() -> Json:
    record = rec(P2, opts(), [_recycle_round("draw")])
    why = (
        "RULES §8.1. The pile, oldest first, is 3H 9C KD … QC when seat 0 must draw from the "
        "empty deck: the new deck is drawn in discard order, so seat 0 gets 3H (swapped into "
        "its left, KS out) and, after seat 0's call, seat 1's final draw gets 9C (swapped into "
        "its left, KC out). Reveal: seat 0 [3H AS KH] = 14, seat 1 [9C 6S 2S] = 17. Caller "
        "strictly lowest: 14 - 5 = 9. Scores [9, 17]."
    )
    expect = result([ended(1, 0, [["3H", "AS", "KH"], ["9C", "6S", "2S"]], [9, 17])], [9, 17])
    return sc("§8.1 recycle order", ["R-RECYCLE", "R-NO-CALL", "R-KING"], why, record, expect)


@scenario
def case02_king_chain() -> Json:
    hands = [["5H", "9D", "7C"], ["2C", "3C", "TC"], ["6D", "8D", "9H"]]
    draws = ["KS", "KH", "4D", "QC", "8S", "AH", "2H"]
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # KS
        a(1.5, 0, "king"),  # owes 2
        a(2.0, 0, "draw"),  # KH
        a(2.5, 0, "king"),  # owes 1 + 2 = 3
        a(3.0, 0, "draw"),  # 4D
        a(3.5, 0, "swap", slot="middle"),  # 9D out
        a(4.0, 0, "draw"),  # QC
        a(4.5, 0, "queen", slot="right", target=1, target_slot="left"),  # 7C <-> 2C
        a(5.0, 0, "draw"),  # 8S
        a(5.5, 0, "discard"),  # turn over, E = 5.5
        a(6.0, 0, "crisp"),
        a(8.0, 1, "draw"),  # AH
        a(8.5, 1, "discard"),
        a(9.0, 2, "draw"),  # 2H
        a(9.5, 2, "discard"),
    ]
    record = rec(P3, opts(), [rnd(2, hands, draws, acts)])
    why = (
        "RULES §8.2. Dealer 2, seat 0 first: [5H 9D 7C]. KS (owes 2), KH (owes 1 + 2 = 3), 4D "
        "swapped into the middle (9D out), QC: seat 0's right 7C <-> seat 1's left 2C, 8S "
        "discarded: turn over, seat 0 calls. Reveal: seat 0 [5H 4D 2C] = 11, seat 1 [7C 3C TC] "
        "= 20, seat 2 [6D 8D 9H] = 23. Caller strictly lowest: 11 - 5 = 6."
    )
    hands_end = [["5H", "4D", "2C"], ["7C", "3C", "TC"], ["6D", "8D", "9H"]]
    expect = result([ended(2, 0, hands_end, [6, 20, 23])], [6, 20, 23])
    return sc("§8.2 king chain", ["R-KING", "R-QUEEN", "R-SWAP"], why, record, expect)


@scenario
def case03_timeout_in_king_chain() -> Json:
    hands = [["9S", "8S", "7S"], ["TS", "4H", "6H"], ["5D", "6C", "9C"]]
    draws = ["KS", "QD", "2H", "5C", "3D"]
    acts = [
        *readies(3, 1.0),
        a(2.0, 0, "draw"),  # KS
        a(3.0, 0, "king"),  # first extra draw due at 3.0, deadline 33.0
        a(4.0, 0, "draw"),  # QD, held until the timeout at 33.0
        a(34.0, 1, "draw"),  # no window after a timeout: seat 1 may start at 33.0; gets 2H
        a(35.0, 1, "swap", slot="left"),  # TS out
        a(35.5, 1, "crisp"),
        a(37.5, 2, "draw"),  # 5C
        a(38.0, 2, "swap", slot="right"),  # 9C out
        a(38.5, 0, "draw"),  # 3D
        a(39.0, 0, "swap", slot="left"),  # 9S out
    ]
    record = rec(P3, opts(timer=30), [rnd(2, hands, draws, acts)])
    why = (
        "RULES §8.3, timer 30. Seat 0 draws KS and uses it at 3.0; the first extra draw (QD) is "
        "due at 3.0 and times out at 33.0: QD is discarded without effect, the second extra "
        "draw is lost (no card drawn), no window: seat 1 draws at 34.0 (< 35.0) and gets 2H. "
        "Reveal: seat 0 [3D 8S 7S] = 18, seat 1 [2H 4H 6H] = 12, seat 2 [5D 6C 5C] = 16. "
        "Caller seat 1 strictly lowest: 12 - 5 = 7."
    )
    hands_end = [["3D", "8S", "7S"], ["2H", "4H", "6H"], ["5D", "6C", "5C"]]
    expect = result([ended(2, 1, hands_end, [18, 7, 16])], [18, 7, 16])
    expect["seat_stream_contains"] = [
        {"seat": 1, "message": {"type": "timeout", "seat": 0, "card": "QD", "lost": 1}}
    ]
    rules = ["R-TIMEOUT", "R-TIMER", "R-KING", "R-WINDOW-NONE"]
    return sc("§8.3 timeout inside a king chain", rules, why, record, expect)


@scenario
def case04_queen_and_the_middle() -> Json:
    hands = [["AS", "4D", "2S"], ["9H", "3C", "5H"], ["7D", "8C", "6H"]]
    draws = ["QS", "2D", "3H", "4C"]
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # QS
        a(1.5, 0, "queen", slot="middle", target=1, target_slot="left"),  # 4D <-> 9H
        a(4.0, 1, "draw"),  # 2D
        a(4.5, 1, "swap", slot="right"),  # 5H out
        a(5.0, 1, "crisp"),
        a(7.0, 2, "draw"),  # 3H
        a(7.5, 2, "discard"),
        a(8.0, 0, "draw"),  # 4C
        a(8.5, 0, "discard"),
    ]
    record = rec(P3, opts(), [rnd(2, hands, draws, acts)])
    why = (
        "RULES §8.4. Seat 0's middle 4D (never seen) <-> seat 1's left 9H. Seat 1 looks at 4D "
        "in its left; seat 0 does not see 9H. Seat 1 then swaps 2D into its right and calls. "
        "Reveal: seat 0 [AS 9H 2S] = 12, seat 1 [4D 3C 2D] = 9, seat 2 [7D 8C 6H] = 21. "
        "Caller strictly lowest: 9 - 5 = 4."
    )
    hands_end = [["AS", "9H", "2S"], ["4D", "3C", "2D"], ["7D", "8C", "6H"]]
    expect = result([ended(2, 1, hands_end, [12, 4, 21])], [12, 4, 21])
    expect["seat_stream_contains"] = [{"seat": 1, "message": look(1, "left", "4D", "queen")}]
    expect["seat_stream_lacks"] = [
        {"seat": 0, "message": {"type": "look", "card": "9H"}},
        {"seat": 0, "message": {"type": "look", "card": "4D", "why": "queen"}},
    ]
    return sc("§8.4 queen and the middle", ["R-QUEEN", "R-QUEEN-LOOK"], why, record, expect)


@scenario
def case05_late_call() -> Json:
    acts = [
        *W_OPEN,
        a(4.4, 1, "draw"),  # 9S: seat 1 started (E + 2.4)
        a(4.8, 0, "crisp"),  # E + 2.8: still in seat 0's window
        a(5.0, 1, "discard"),  # first final turn ends, no window
        a(5.5, 2, "draw"),  # at once (a window would make this wait until 7.0)
        a(6.0, 2, "discard"),
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = (
        "RULES §8.5. Seat 0 ends at E = 2.0, seat 1 draws at 4.4, seat 0 calls at 4.8: counts. "
        "Seat 1's turn is the first final turn, then seat 2's, then the round ends. Hands "
        "unchanged: [AH 2H 3H] = 6, [5C 6C 7C] = 18, [8D 9D TD] = 27; caller 6 - 5 = 1."
    )
    expect = result([ended(2, 0, W_HANDS, [1, 18, 27])], [1, 18, 27])
    expect["seat_stream_contains"] = [
        {"seat": 2, "message": {"type": "crisp", "seat": 0, "final": [1, 2]}}
    ]
    return sc("§8.5 late call", ["R-WINDOW", "R-FINAL-TURNS"], why, record, expect)


@scenario
def case05_late_call_then_no_call_by_next() -> Json:
    acts = [
        *W_OPEN,
        a(4.4, 1, "draw"),
        a(4.8, 0, "crisp"),
        a(5.0, 1, "discard"),
        a(5.2, 1, "crisp"),  # seat 1's turn was a final turn
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = (
        "RULES §8.5: after seat 0's late call, seat 1's turn is the first final turn; seat 1 can "
        "no longer call at its end (R-CRISP-ONCE: no call during the final turns)."
    )
    rules = ["R-CRISP-ONCE", "R-WINDOW"]
    return sc(
        "§8.5 late call: next player may not call",
        rules,
        why,
        record,
        refused(record, "R-CRISP-ONCE"),
    )


@scenario
def case06_window_closed_early() -> Json:
    acts = [
        *W_OPEN,
        a(4.1, 1, "draw"),
        a(4.5, 1, "discard"),  # seat 1's turn ends: seat 0's window closes
        a(4.8, 0, "crisp"),
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = (
        "RULES §8.6: seat 0 ends at 2.0; seat 1 draws at 4.1 and discards at 4.5, which closes "
        "seat 0's window; seat 0's call at 4.8 (< 5.0) is refused."
    )
    return sc("§8.6 window closed early", ["R-WINDOW"], why, record, refused(record, "R-WINDOW"))


@scenario
def case06_next_player_own_window() -> Json:
    acts = [
        *W_OPEN,
        a(4.1, 1, "draw"),  # 9S
        a(4.5, 1, "discard"),
        a(4.8, 1, "crisp"),  # seat 1's own window is open
        a(7.0, 2, "draw"),  # TS (may start at 6.5)
        a(7.5, 2, "discard"),
        a(8.0, 0, "draw"),  # JS
        a(8.5, 0, "discard"),
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = (
        "RULES §8.6: seat 1's own window is open after its turn ends at 4.5; it calls at 4.8. "
        "Hands unchanged: 6, 18, 27; caller seat 1 is not lowest: 18 + 5 = 23."
    )
    expect = result([ended(2, 1, W_HANDS, [6, 23, 27])], [6, 23, 27])
    return sc("§8.6 next player's own window", ["R-WINDOW", "R-CALLER-BONUS"], why, record, expect)


@scenario
def case07_taking_the_king_back() -> Json:
    hands = [["2S", "3S", "9H"], ["4C", "8C", "6C"], ["7D", "5D", "TD"]]
    draws = ["KC", "AD", "2D", "3D", "4D"]
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # KC
        a(1.5, 0, "king"),  # KC on the pile, owes 2
        a(2.0, 0, "take_discard", slot="right"),  # KC into the right, 9H on the pile; owes 1
        a(2.5, 0, "draw"),  # AD
        a(3.0, 0, "swap", slot="left"),  # 2S out; turn over, E = 3.0
        a(5.5, 1, "draw"),  # 2D (a draw by seat 1 needs seat 0's turn to be over)
        a(6.0, 1, "swap", slot="middle"),  # 8C out
        a(6.5, 1, "crisp"),
        a(8.5, 2, "draw"),  # 3D
        a(9.0, 2, "discard"),
        a(9.5, 0, "draw"),  # 4D
        a(10.0, 0, "discard"),
    ]
    record = rec(P3, opts(take=True), [rnd(2, hands, draws, acts)])
    why = (
        "RULES §8.7. Seat 0 uses KC, takes it back from the pile into its right slot for the "
        "first extra draw (no extra draws from it), draws AD for the second and swaps it into "
        "its left: turn over. Reveal: seat 0 [AD 3S KC] = 1 + 3 + 10 = 14, seat 1 [4C 2D 6C] = "
        "12, seat 2 [7D 5D TD] = 22. Caller seat 1 strictly lowest: 12 - 5 = 7."
    )
    hands_end = [["AD", "3S", "KC"], ["4C", "2D", "6C"], ["7D", "5D", "TD"]]
    expect = result([ended(2, 1, hands_end, [14, 7, 22])], [14, 7, 22])
    expect["seat_stream_contains"] = [
        {"seat": 1, "message": {"type": "take", "seat": 0, "slot": "right", "card": "9H"}}
    ]
    rules = ["R-TAKE-DISCARD", "R-KING", "R-FACE-IN-HAND"]
    return sc("§8.7 taking the king back", rules, why, record, expect)


@scenario
def case08_caller_tie() -> Json:
    hands = [["5S", "4S", "3S"], ["6H", "4H", "2H"], ["TC", "9C", "8C"]]
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # 9H
        a(1.5, 0, "discard"),
        a(2.0, 0, "crisp"),
        a(4.0, 1, "draw"),  # 9D
        a(4.5, 1, "discard"),
        a(5.0, 2, "draw"),  # 8D
        a(5.5, 2, "discard"),
    ]
    record = rec(P3, opts(), [rnd(2, hands, ["9H", "9D", "8D"], acts)])
    why = (
        "RULES §8.8. Caller seat 0 [5S 4S 3S] = 12 ties seat 1 [6H 4H 2H] = 12: 12 + 5 = 17. "
        "Seat 2 [TC 9C 8C] = 27."
    )
    expect = result([ended(2, 0, hands, [17, 12, 27])], [17, 12, 27])
    return sc("§8.8 caller tie", ["R-CALLER-BONUS", "R-ROUND-SCORE"], why, record, expect)


@scenario
def case09_two_players() -> Json:
    hands = [["AC", "2C", "3C"], ["4D", "5D", "6D"]]
    acts = [
        *readies(2),
        a(1.0, 0, "draw"),  # 7H
        a(2.0, 0, "discard"),
        a(2.5, 0, "crisp"),
        a(4.2, 1, "draw"),  # 2H
        a(4.5, 1, "swap", slot="left"),  # 4D out; the only final turn: the round ends
    ]
    record = rec(P2, opts(), [rnd(1, hands, ["7H", "2H"], acts)])
    why = (
        "RULES §8.9. Dealer 1, seat 0 first, calls; seat 1 plays one final turn (2H into its "
        "left) and the round ends. Reveal: seat 0 [AC 2C 3C] = 6, seat 1 [2H 5D 6D] = 13. "
        "Caller strictly lowest: 6 - 5 = 1."
    )
    expect = result([ended(1, 0, [["AC", "2C", "3C"], ["2H", "5D", "6D"]], [1, 13])], [1, 13])
    return sc("§8.9 two players", ["R-FINAL-TURNS", "R-PLAYERS"], why, record, expect)


def _game_end_tie_rounds() -> list[Json]:
    r1_hands = [["TS", "9S", "7S"], ["2C", "3C", "4C"], ["5C", "6C", "4H"]]
    r1 = rnd(
        0,
        r1_hands,
        ["8H", "9H", "8D"],
        [
            *readies(3),
            a(1.0, 1, "draw"),
            a(1.5, 1, "discard"),
            a(2.0, 1, "crisp"),
            a(4.0, 2, "draw"),
            a(4.5, 2, "discard"),
            a(5.0, 0, "draw"),
            a(5.5, 0, "discard"),
        ],
    )
    r2_hands = [["TH", "8C", "7C"], ["TD", "KD", "9D"], ["TC", "7H", "6D"]]
    r2 = rnd(
        1,
        r2_hands,
        ["2S", "3S", "4S", "5S", "6S"],
        [
            *readies(3),
            a(1.0, 2, "draw"),
            a(1.5, 2, "discard"),
            a(4.0, 0, "draw"),
            a(4.5, 0, "discard"),
            a(7.0, 1, "draw"),
            a(7.5, 1, "discard"),
            a(8.0, 1, "crisp"),
            a(10.0, 2, "draw"),
            a(10.5, 2, "discard"),
            a(11.0, 0, "draw"),
            a(11.5, 0, "discard"),
        ],
    )
    return [r1, r2]


GAME_END_WHY = (
    "Limit 50. Round 1, dealer 0 (seat 1 first): seat 1 [2C 3C 4C] = 9 calls, strictly lowest "
    "-> 4; seat 0 [TS 9S 7S] = 26, seat 2 [5C 6C 4H] = 15. Totals 26, 4, 15. Round 2, dealer 1 "
    "(seat 2 first; seats 2, 0, 1 play, seat 1 calls): seat 0 [TH 8C 7C] = 25, seat 1 [TD KD "
    "9D] = 29 + 5 = 34 (not lowest), seat 2 [TC 7H 6D] = 23. Totals A 51, B 38, C 38: the game "
    "ends (51 >= 50), B and C (seats 1, 2) tie for lowest and both win."
)


@scenario
def case10_game_end_tie() -> Json:
    record = rec(P3, opts(limit=50), _game_end_tie_rounds())
    expect = result(
        [
            ended(0, 1, [["TS", "9S", "7S"], ["2C", "3C", "4C"], ["5C", "6C", "4H"]], [26, 4, 15]),
            ended(1, 1, [["TH", "8C", "7C"], ["TD", "KD", "9D"], ["TC", "7H", "6D"]], [25, 34, 23]),
        ],
        [51, 38, 38],
        over=True,
        winners=[1, 2],
    )
    rules = ["R-GAME-END", "R-OPT-LIMIT", "R-CUMULATIVE", "R-DEALER", "R-CALLER-BONUS"]
    return sc("§8.10 game end tie", rules, GAME_END_WHY, record, expect)


# --------------------------------------------------------------------- deal and recycling ----
@scenario
def deal_four_players() -> Json:
    top = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "AH", "2H"]
    draws = ["3H", "4H", "5H", "6H"]
    acts = [
        *readies(4),
        a(1.0, 2, "draw"),  # 3H
        a(1.5, 2, "swap", slot="right"),  # 9S out
        a(2.0, 2, "crisp"),
        a(4.0, 3, "draw"),  # 4H
        a(4.5, 3, "swap", slot="right"),  # TS out
        a(5.0, 0, "draw"),  # 5H
        a(5.5, 0, "discard"),
        a(6.0, 1, "draw"),  # 6H
        a(6.5, 1, "swap", slot="middle"),  # 8S out
    ]
    round_ = {"dealer": 1, "deck": stacked_deck(top + draws), "actions": acts}
    record = rec(P4, opts(), [round_])
    why = (
        "Deck top AS 2S 3S 4S 5S 6S 7S 8S 9S TS AH 2H, dealer 1: passes start at seat 2. Left: "
        "AS->2, 2S->3, 3S->0, 4S->1; middle: 5S->2, 6S->3, 7S->0, 8S->1; right: 9S->2, TS->3, "
        "AH->0, 2H->1. Seat 2 plays first: 3H into its right, calls. Finals 3 (4H right), 0 "
        "(5H discarded), 1 (6H middle). Reveal: 0 [3S 7S AH] = 11, 1 [4S 6H 2H] = 12, 2 [AS 5S "
        "3H] = 9 -> 4, 3 [2S 6S 4H] = 12."
    )
    hands_end = [["3S", "7S", "AH"], ["4S", "6H", "2H"], ["AS", "5S", "3H"], ["2S", "6S", "4H"]]
    expect = result([ended(1, 2, hands_end, [11, 12, 4, 12])], [11, 12, 4, 12])
    expect["seat_stream_contains"] = [
        {"seat": 0, "message": look(0, "left", "3S", "deal")},
        {"seat": 0, "message": look(0, "right", "AH", "deal")},
        {"seat": 2, "message": {"type": "draw", "seat": 2, "card": "3H"}},
    ]
    expect["seat_stream_lacks"] = [
        {"seat": 0, "message": {"type": "look", "card": "7S"}},
        {"seat": 0, "message": {"type": "draw", "card": "3H"}},
    ]
    rules = ["R-DEAL", "R-FIRST", "R-LOOK-START", "R-ROUND-SCORE", "R-CALLER-BONUS"]
    return sc("deal with four players, dealer 1", rules, why, record, expect)


@scenario
def recycle_take_discard_on_empty_deck() -> Json:
    record = rec(P2, opts(take=True), [_recycle_round("take")])
    why = (
        "Same 44 turns as case01 (take option on, never used until the end). With the deck "
        "empty, seat 0 takes the top of the pile, QC, into its left (no recycling: no draw from "
        "the deck is made; KS goes on the pile) and calls. Seat 1's final draw recycles the pile "
        "3H 9C KD … JC KS: it gets 3H, swapped into its left (KC out). Reveal: seat 0 [QC AS KH] "
        "= 21 (a Q taken from the pile counts 10), seat 1 [3H 6S 2S] = 11. Caller not lowest: "
        "21 + 5 = 26."
    )
    expect = result([ended(1, 0, [["QC", "AS", "KH"], ["3H", "6S", "2S"]], [26, 11])], [26, 11])
    rules = ["R-TAKE-DISCARD", "R-RECYCLE", "R-FACE-IN-HAND"]
    return sc("take from the pile facing an empty deck", rules, why, record, expect)


@scenario
def king_chain_with_jack_king_queen() -> Json:
    hands = [["3D", "7H", "8H"], ["9C", "TH", "6S"], ["2C", "5D", "4S"]]
    draws = ["KH", "JD", "KD", "2H", "QS", "AH", "5C"]
    acts = [
        *readies(3),
        a(1.0, 1, "draw"),  # KH
        a(1.5, 1, "king"),  # owes 2
        a(2.0, 1, "draw"),  # JD
        a(2.5, 1, "jack"),  # looks at its middle TH; owes 1
        a(3.0, 1, "draw"),  # KD
        a(3.5, 1, "king"),  # owes 0 + 2 = 2
        a(4.0, 1, "draw"),  # 2H
        a(4.5, 1, "swap", slot="middle"),  # TH out; owes 1
        a(5.0, 1, "draw"),  # QS
        a(5.5, 1, "queen", slot="left", target=2, target_slot="left"),  # 9C <-> 2C; over
        a(6.0, 1, "crisp"),
        a(8.0, 2, "draw"),  # AH
        a(8.5, 2, "swap", slot="left"),  # 9C out
        a(9.0, 0, "draw"),  # 5C
        a(9.5, 0, "discard"),
    ]
    record = rec(P3, opts(), [rnd(0, hands, draws, acts)])
    why = (
        "Dealer 0, seat 1 first [9C TH 6S]: KH (owes 2), JD used (looks at TH), KD drawn as an "
        "extra draw (owes 0 + 2), 2H into the middle, QS: seat 1's left 9C <-> seat 2's left "
        "2C. Turn over, seat 1 calls. Seat 2 swaps AH into its left (9C out). Reveal: seat 0 "
        "[3D 7H 8H] = 18, seat 1 [2C 2H 6S] = 10, seat 2 [AH 5D 4S] = 10. Caller ties: 15."
    )
    hands_end = [["3D", "7H", "8H"], ["2C", "2H", "6S"], ["AH", "5D", "4S"]]
    expect = result([ended(0, 1, hands_end, [18, 15, 10])], [18, 15, 10])
    expect["seat_stream_contains"] = [
        {"seat": 1, "message": look(1, "middle", "TH", "jack")},
        {"seat": 1, "message": look(1, "left", "2C", "queen")},
        {"seat": 2, "message": look(2, "left", "9C", "queen")},
    ]
    rules = ["R-KING", "R-JACK", "R-QUEEN", "R-QUEEN-LOOK", "R-CALLER-BONUS"]
    return sc("king chain with a jack, a second king and a queen", rules, why, record, expect)


# ------------------------------------------------------------------------------ timeouts ----
T_HANDS = [["TS", "9S", "8S"], ["AD", "2D", "7D"], ["4C", "5C", "6C"]]


def _timeout_first_turn(first_draw: str, seat0_draws: bool) -> Json:
    acts = readies(3, 1.0)
    if seat0_draws:
        acts.append(a(2.0, 0, "draw"))  # held until the timeout at 31.0
    acts += [
        a(31.5, 1, "draw"),  # 3H; no window after a timeout (a window would mean >= 33.0)
        a(32.0, 1, "swap", slot="right"),  # 7D out
        a(32.5, 1, "crisp"),
        a(34.5, 2, "draw"),  # 2H
        a(35.0, 2, "swap", slot="right"),  # 6C out
        a(35.5, 0, "draw"),  # AH
        a(36.0, 0, "swap", slot="left"),  # TS out
    ]
    return rnd(2, T_HANDS, [first_draw, "3H", "2H", "AH"], acts)


T_END = [["AH", "9S", "8S"], ["AD", "2D", "3H"], ["4C", "5C", "2H"]]
T_WHY = (
    "Seat 1 draws 3H at 31.5 (at once: no window) into its right and calls; seat 2 2H into its "
    "right, seat 0 AH into its left. Reveal: seat 0 [AH 9S 8S] = 18, seat 1 [AD 2D 3H] = 6 -> "
    "1, seat 2 [4C 5C 2H] = 11."
)


@scenario
def timeout_nothing_drawn() -> Json:
    record = rec(P3, opts(timer=30), [_timeout_first_turn("5H", seat0_draws=False)])
    why = (
        "Timer 30, all ready at 1.0: seat 0's draw is due at 1.0 and times out at 31.0 with "
        "nothing drawn: the top card 5H is drawn and discarded for it. " + T_WHY
    )
    expect = result([ended(2, 1, T_END, [18, 1, 11])], [18, 1, 11])
    expect["seat_stream_contains"] = [
        {"seat": 2, "message": {"type": "timeout", "seat": 0, "card": "5H", "lost": 0}}
    ]
    return sc(
        "timeout with nothing drawn", ["R-TIMEOUT", "R-TIMER", "R-WINDOW-NONE"], why, record, expect
    )


@scenario
def timeout_drawn_card_discarded() -> Json:
    record = rec(P3, opts(timer=30), [_timeout_first_turn("5H", seat0_draws=True)])
    why = (
        "Timer 30: seat 0 draws 5H at 2.0 and holds it; at 31.0 (due 1.0 + 30) it is discarded "
        "for seat 0, hand unchanged. " + T_WHY
    )
    expect = result([ended(2, 1, T_END, [18, 1, 11])], [18, 1, 11])
    expect["seat_stream_contains"] = [
        {"seat": 2, "message": {"type": "timeout", "seat": 0, "card": "5H", "lost": 0}}
    ]
    return sc("timeout with a drawn card", ["R-TIMEOUT", "R-WINDOW-NONE"], why, record, expect)


@scenario
def timeout_holding_king() -> Json:
    record = rec(P3, opts(timer=30), [_timeout_first_turn("KH", seat0_draws=True)])
    why = (
        "Timer 30: seat 0 draws KH at 2.0 and never uses it; at 31.0 KH is discarded without "
        "effect and gives no extra draws: the turn passes to seat 1 at once. " + T_WHY
    )
    expect = result([ended(2, 1, T_END, [18, 1, 11])], [18, 1, 11])
    expect["seat_stream_contains"] = [
        {"seat": 2, "message": {"type": "timeout", "seat": 0, "card": "KH"}}
    ]
    return sc("timeout holding a king", ["R-TIMEOUT", "R-KING"], why, record, expect)


@scenario
def timeout_then_call_refused() -> Json:
    acts = [*readies(3, 1.0), a(2.0, 0, "draw"), a(31.5, 0, "crisp")]
    record = rec(P3, opts(timer=30), [rnd(2, T_HANDS, ["5H"], acts)])
    why = "Seat 0's turn ended by timeout at 31.0: it opens no window; a call at 31.5 is refused."
    return sc(
        "no call after a timeout",
        ["R-WINDOW-NONE", "R-TIMEOUT"],
        why,
        record,
        refused(record, "R-WINDOW-NONE"),
    )


@scenario
def timeout_swap_at_deadline() -> Json:
    acts = [
        *readies(3, 1.0),
        a(2.0, 0, "draw"),
        a(31.0, 0, "swap", slot="left"),
    ]
    record = rec(P3, opts(timer=30), [rnd(2, T_HANDS, ["5H"], acts)])
    why = (
        "Draw due at 1.0, deadline 31.0. The swap at exactly 31.0 comes after the timeout "
        "(R-EDGES): the turn has passed to seat 1, so seat 0 is not the current player."
    )
    return sc(
        "swap at exactly the deadline",
        ["R-EDGES", "R-TIMEOUT", "R-TURN"],
        why,
        record,
        refused(record, "R-TURN"),
    )


@scenario
def timeout_two_players_draw_at_deadline() -> Json:
    acts = [a(1.0, 0, "ready"), a(1.0, 1, "ready"), a(31.0, 0, "draw")]
    record = rec(P2, opts(timer=30), [rnd(1, [["AC", "2C", "3C"], ["4D", "5D", "6D"]], [], acts)])
    why = (
        "2 players, timer 30, seat 0's draw due at 1.0. At exactly 31.0 the timeout comes first: "
        "a card is drawn and discarded for seat 0 and it is seat 1's turn; seat 0's draw is by "
        "a seat whose turn it is not."
    )
    return sc(
        "two players: draw at exactly the deadline",
        ["R-EDGES", "R-TIMEOUT", "R-TURN"],
        why,
        record,
        refused(record, "R-TURN"),
    )


@scenario
def timeout_two_players_final_swap_at_deadline() -> Json:
    acts = [
        *readies(2, 1.0),
        a(2.0, 0, "draw"),
        a(3.0, 0, "swap", slot="left"),
        a(3.5, 0, "crisp"),
        a(6.0, 1, "draw"),  # the final turn's draw was due at 5.0: deadline 35.0
        a(35.0, 1, "swap", slot="left"),
    ]
    hands = [["AC", "2C", "3C"], ["4D", "5D", "6D"]]
    record = rec(P2, opts(timer=30), [rnd(1, hands, ["2H", "3H"], acts)])
    why = (
        "2 players, seat 0 calls; seat 1's only final turn may start at 5.0 (deadline 35.0). "
        "At 35.0 the timeout comes first, the last final turn ends and so does the round: the "
        "swap is an action after the round ended."
    )
    return sc(
        "two players: last final swap at the deadline",
        ["R-EDGES", "R-FINAL-TURNS"],
        why,
        record,
        refused(record, "R-FINAL-TURNS"),
    )


@scenario
def timer_clock_starts_when_draw_may_start() -> Json:
    hands = [["9S", "3S", "4S"], ["5H", "6H", "7H"], ["8D", "9D", "TD"]]
    draws = ["2H", "AC", "3C", "4C"]
    acts = [
        *readies(3, 1.0),
        a(2.0, 0, "draw"),  # 2H
        a(3.0, 0, "swap", slot="left"),  # E = 3.0, no call
        a(34.0, 1, "draw"),  # due 5.0 (E + 2): deadline 35.0
        a(34.9, 1, "swap", slot="right"),  # AC in, 7H out; E = 34.9
        a(35.4, 1, "crisp"),
        a(66.0, 2, "draw"),  # first final turn due 36.9: deadline 66.9
        a(66.8, 2, "swap", slot="right"),  # 3C in, TD out
        a(67.0, 0, "draw"),  # 4C
        a(67.5, 0, "discard"),
    ]
    record = rec(P3, opts(timer=30), [rnd(2, hands, draws, acts)])
    why = (
        "Timer 30. A draw after a window is due when the next player may start (E + 2), also "
        "for the first final turn: seat 1 acts until 34.9 (deadline 35.0), seat 2 until 66.8 "
        "(deadline 66.9). Reveal: seat 0 [2H 3S 4S] = 9, seat 1 [5H 6H AC] = 12 (caller, not "
        "lowest: 17), seat 2 [8D 9D 3C] = 20."
    )
    hands_end = [["2H", "3S", "4S"], ["5H", "6H", "AC"], ["8D", "9D", "3C"]]
    expect = result([ended(2, 1, hands_end, [9, 17, 20])], [9, 17, 20])
    return sc(
        "draw clock counts from when the draw may start",
        ["R-TIMER", "R-WINDOW"],
        why,
        record,
        expect,
    )


@scenario
def timer_extra_draw_clock() -> Json:
    hands = [["9S", "9H", "4S"], ["TC", "8C", "5C"], ["6D", "7D", "8D"]]
    draws = ["KS", "7H", "2D", "3C", "4C"]
    acts = [
        *readies(3, 1.0),
        a(2.0, 0, "draw"),  # KS
        a(3.0, 0, "king"),  # first extra draw due 3.0: deadline 33.0
        a(32.0, 0, "draw"),  # 7H
        a(32.5, 0, "swap", slot="left"),  # 9S out; second extra draw due 32.5: deadline 62.5
        a(62.0, 0, "draw"),  # 2D
        a(62.4, 0, "swap", slot="middle"),  # 9H out; E = 62.4
        a(62.9, 0, "crisp"),
        a(65.0, 1, "draw"),  # 3C
        a(65.5, 1, "discard"),
        a(66.0, 2, "draw"),  # 4C
        a(66.5, 2, "discard"),
    ]
    record = rec(P3, opts(timer=30), [rnd(2, hands, draws, acts)])
    why = (
        "Timer 30: each extra draw has its own 30 s from when the previous draw was resolved "
        "(3.0 -> 33.0, 32.5 -> 62.5), not from the turn start. Reveal: seat 0 [7H 2D 4S] = 13 "
        "-> 8, seat 1 [TC 8C 5C] = 23, seat 2 [6D 7D 8D] = 21."
    )
    hands_end = [["7H", "2D", "4S"], ["TC", "8C", "5C"], ["6D", "7D", "8D"]]
    expect = result([ended(2, 0, hands_end, [8, 23, 21])], [8, 23, 21])
    return sc("each extra draw has its own clock", ["R-TIMER", "R-KING"], why, record, expect)


# ------------------------------------------------------------------------------- calling ----
@scenario
def call_at_exactly_3s() -> Json:
    record = rec(P3, opts(), [w_round([*W_OPEN, a(5.0, 0, "crisp")])])
    why = "Seat 0's turn ended at 2.0; a call at exactly 5.0 (E + 3) is too late (R-EDGES)."
    return sc(
        "call at exactly 3 s", ["R-WINDOW", "R-EDGES"], why, record, refused(record, "R-WINDOW")
    )


@scenario
def call_just_before_3s() -> Json:
    acts = [
        *W_OPEN,
        a(4.999, 0, "crisp"),
        a(5.0, 1, "draw"),  # 9S
        a(5.5, 1, "discard"),
        a(6.0, 2, "draw"),  # TS
        a(6.5, 2, "discard"),
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = "A call at E + 2.999 is in time. Hands unchanged 6, 18, 27; caller 6 - 5 = 1."
    expect = result([ended(2, 0, W_HANDS, [1, 18, 27])], [1, 18, 27])
    return sc(
        "call in the last millisecond of the window", ["R-WINDOW", "R-EDGES"], why, record, expect
    )


@scenario
def call_wrong_seat() -> Json:
    record = rec(P3, opts(), [w_round([*W_OPEN, a(2.5, 2, "crisp")])])
    why = "Seat 0's turn just ended; seat 2 may not call."
    return sc(
        "call by a seat whose turn did not just end",
        ["R-CRISP"],
        why,
        record,
        refused(record, "R-CRISP"),
    )


@scenario
def call_during_own_turn() -> Json:
    acts = [*W_OPEN, a(4.5, 1, "draw"), a(4.7, 1, "crisp")]
    record = rec(P3, opts(), [w_round(acts)])
    why = "Seat 1 calls while it holds a drawn card: its turn has not ended."
    return sc("call during one's own turn", ["R-CRISP"], why, record, refused(record, "R-CRISP"))


@scenario
def call_twice() -> Json:
    record = rec(P3, opts(), [w_round([*W_OPEN, a(2.5, 0, "crisp"), a(2.8, 0, "crisp")])])
    why = "Seat 0 calls at 2.5 and again at 2.8: only one call per round."
    return sc("a second call", ["R-CRISP-ONCE"], why, record, refused(record, "R-CRISP-ONCE"))


@scenario
def call_during_final_turns() -> Json:
    acts = [
        *W_OPEN,
        a(2.5, 0, "crisp"),
        a(4.5, 1, "draw"),
        a(5.0, 1, "discard"),
        a(5.3, 1, "crisp"),
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = "Seat 1 calls at the end of its final turn: nobody may call during the final turns."
    return sc(
        "a call during the final turns",
        ["R-CRISP-ONCE", "R-FINAL-TURNS"],
        why,
        record,
        refused(record, "R-CRISP-ONCE"),
    )


@scenario
def queen_targets_caller_in_final_turns() -> Json:
    hands = [["AS", "2S", "3S"], ["TH", "9H", "8H"], ["4D", "5D", "6D"]]
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # 7C
        a(1.5, 0, "discard"),
        a(2.0, 0, "crisp"),
        a(4.0, 1, "draw"),  # QC
        a(4.5, 1, "queen", slot="left", target=0, target_slot="left"),  # TH <-> AS
        a(5.0, 2, "draw"),  # 8C
        a(5.5, 2, "discard"),
    ]
    record = rec(P3, opts(), [rnd(2, hands, ["7C", "QC", "8C"], acts)])
    why = (
        "Seat 0 calls with [AS 2S 3S] = 6. In its final turn seat 1 uses QC on the caller: its "
        "left TH <-> seat 0's left AS. Reveal: seat 0 [TH 2S 3S] = 15, seat 1 [AS 9H 8H] = 18, "
        "seat 2 [4D 5D 6D] = 15. Caller ties seat 2: 15 + 5 = 20."
    )
    hands_end = [["TH", "2S", "3S"], ["AS", "9H", "8H"], ["4D", "5D", "6D"]]
    expect = result([ended(2, 0, hands_end, [20, 18, 15])], [20, 18, 15])
    rules = ["R-QUEEN-TARGET", "R-FINAL-TURNS", "R-CALLER-BONUS"]
    return sc("queen on the caller during the final turns", rules, why, record, expect)


# --------------------------------------------------------------------- starting to draw ----
@scenario
def draw_at_exactly_2s() -> Json:
    acts = [
        a(1.0, 0, "draw"),  # 4S
        a(6.2, 0, "discard"),  # E = 6.2
        a(8.2, 1, "draw"),  # exactly E + 2: allowed; 9S
        a(8.5, 1, "discard"),
        a(9.0, 1, "crisp"),
        a(10.5, 2, "draw"),  # exactly 8.5 + 2 after the call; TS
        a(11.0, 2, "discard"),
        a(11.0, 0, "draw"),  # JS
        a(11.5, 0, "discard"),
    ]
    record = rec(P3, opts(), [w_round(acts)])
    why = (
        "Seat 0 ends at 6.2; seat 1 draws at exactly 8.2 (allowed, R-EDGES), calls; seat 2 "
        "starts at exactly 10.5. Hands unchanged 6, 18, 27; caller seat 1 not lowest: 23."
    )
    expect = result([ended(2, 1, W_HANDS, [6, 23, 27])], [6, 23, 27])
    return sc("draw at exactly 2 s", ["R-WINDOW", "R-EDGES"], why, record, expect)


@scenario
def draw_at_1999ms() -> Json:
    record = rec(
        P3, opts(), [w_round([a(1.0, 0, "draw"), a(6.2, 0, "discard"), a(8.199, 1, "draw")])]
    )
    why = "Seat 0 ends at 6.2; seat 1's draw at 8.199 is before the 2 s have passed."
    return sc(
        "draw 1 ms too early", ["R-WINDOW", "R-EDGES"], why, record, refused(record, "R-WINDOW")
    )


@scenario
def draw_after_call_before_2s() -> Json:
    record = rec(P3, opts(), [w_round([*W_OPEN, a(2.5, 0, "crisp"), a(3.0, 1, "draw")])])
    why = (
        "After a call the next player still starts 2 s after the caller's turn ended "
        "(docs/engine.md): seat 1's draw at 3.0 (< 4.0) is refused."
    )
    return sc(
        "draw after a call, before 2 s", ["R-WINDOW"], why, record, refused(record, "R-WINDOW")
    )


@scenario
def draw_during_look() -> Json:
    acts = [a(0.5, 0, "ready"), a(0.6, 1, "ready"), a(5.0, 0, "draw")]
    record = rec(P3, opts(), [rnd(2, W_HANDS, W_DRAWS, acts)])
    why = "Seat 2 is not ready and it is 5.0 < 10: the look phase is on."
    return sc(
        "draw during the look phase", ["R-LOOK-PHASE"], why, record, refused(record, "R-LOOK-PHASE")
    )


@scenario
def draw_at_10s_without_ready() -> Json:
    hands = [["9S", "2S", "AS"], ["5C", "6C", "7C"], ["8D", "9D", "TD"]]
    acts = [
        a(3.0, 1, "ready"),  # only seat 1 says ready
        a(10.0, 0, "draw"),  # the look phase is over at exactly 10.0; 3H
        a(10.5, 0, "swap", slot="left"),  # 9S out
        a(11.0, 0, "crisp"),
        a(13.0, 1, "draw"),  # 4H
        a(13.5, 1, "discard"),
        a(14.0, 2, "draw"),  # 5H
        a(14.5, 2, "discard"),
    ]
    record = rec(P3, opts(), [rnd(2, hands, ["3H", "4H", "5H"], acts)])
    why = (
        "Not every seat is ready, but the look phase ends at exactly 10.0: seat 0 draws then. "
        "Reveal: seat 0 [3H 2S AS] = 6 -> 1, seat 1 [5C 6C 7C] = 18, seat 2 [8D 9D TD] = 27."
    )
    hands_end = [["3H", "2S", "AS"], ["5C", "6C", "7C"], ["8D", "9D", "TD"]]
    expect = result([ended(2, 0, hands_end, [1, 18, 27])], [1, 18, 27])
    return sc(
        "draw at exactly 10 s without ready", ["R-LOOK-PHASE", "R-EDGES"], why, record, expect
    )


@scenario
def ready_twice() -> Json:
    record = rec(P3, opts(), [rnd(2, W_HANDS, W_DRAWS, [a(0.5, 0, "ready"), a(0.6, 0, "ready")])])
    return sc(
        "ready twice",
        ["R-LOOK-PHASE"],
        "Seat 0 says ready twice.",
        record,
        refused(record, "R-LOOK-PHASE"),
    )


@scenario
def ready_at_10s() -> Json:
    record = rec(P3, opts(), [rnd(2, W_HANDS, W_DRAWS, [a(10.0, 0, "ready")])])
    why = "The look phase is over at exactly 10 s: a ready then is refused."
    return sc(
        "ready after the look phase",
        ["R-LOOK-PHASE", "R-EDGES"],
        why,
        record,
        refused(record, "R-LOOK-PHASE"),
    )


@scenario
def draw_wrong_seat() -> Json:
    record = rec(P3, opts(), [w_round([a(1.0, 1, "draw")])])
    why = "Dealer 2: the first turn is seat 0's (the seat after the dealer), not seat 1's."
    return sc(
        "first draw by the wrong seat",
        ["R-TURN", "R-FIRST"],
        why,
        record,
        refused(record, "R-TURN"),
    )


@scenario
def draw_while_holding() -> Json:
    record = rec(P3, opts(), [w_round([a(1.0, 0, "draw"), a(1.5, 0, "draw")])])
    return sc(
        "draw while holding a drawn card",
        ["R-DRAW"],
        "Seat 0 draws twice.",
        record,
        refused(record, "R-DRAW"),
    )


@scenario
def swap_without_draw() -> Json:
    record = rec(P3, opts(), [w_round([a(1.0, 0, "swap", slot="left")])])
    return sc(
        "swap with no drawn card",
        ["R-SWAP"],
        "Seat 0 swaps before drawing.",
        record,
        refused(record, "R-SWAP"),
    )


# ------------------------------------------------------------------------- discard pile ----
@scenario
def take_discard_option_off() -> Json:
    acts = [*W_OPEN, a(4.5, 1, "take_discard", slot="left")]
    record = rec(P3, opts(take=False), [w_round(acts)])
    why = "The pile holds 4S, but the host did not allow taking from it."
    return sc(
        "take with the option off", ["R-OPT-DISCARD"], why, record, refused(record, "R-OPT-DISCARD")
    )


@scenario
def take_discard_empty_pile() -> Json:
    record = rec(P3, opts(take=True), [w_round([a(1.0, 0, "take_discard", slot="left")])])
    why = "First draw of the round: the pile is empty, seat 0 must draw from the deck."
    return sc(
        "take from an empty pile",
        ["R-TAKE-DISCARD"],
        why,
        record,
        refused(record, "R-TAKE-DISCARD"),
    )


@scenario
def take_queen_counts_ten() -> Json:
    hands = [["AS", "2S", "3S"], ["9H", "8H", "7H"], ["4D", "5D", "6D"]]
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # QH
        a(1.5, 0, "discard"),  # discarded unused
        a(4.0, 1, "take_discard", slot="left"),  # QH in (no effect), 9H out; E = 4.0
        a(7.0, 2, "draw"),  # 4C
        a(7.5, 2, "swap", slot="right"),  # 6D out
        a(8.0, 2, "crisp"),
        a(10.0, 0, "draw"),  # 5C
        a(10.5, 0, "discard"),
        a(11.0, 1, "take_discard", slot="middle"),  # 5C in, 8H out
    ]
    record = rec(P3, opts(take=True), [rnd(2, hands, ["QH", "4C", "5C"], acts)])
    why = (
        "Seat 0 discards QH; seat 1 takes it into its left (no queen effect), then in its final "
        "turn takes 5C (discarded by seat 0) into its middle. Reveal: seat 0 [AS 2S 3S] = 6, "
        "seat 1 [QH 5C 7H] = 22, seat 2 [4D 5D 4C] = 13 (caller, not lowest: 18)."
    )
    hands_end = [["AS", "2S", "3S"], ["QH", "5C", "7H"], ["4D", "5D", "4C"]]
    expect = result([ended(2, 2, hands_end, [6, 22, 18])], [6, 22, 18])
    rules = ["R-TAKE-DISCARD", "R-FACE-IN-HAND", "R-VALUE", "R-CALLER-BONUS"]
    return sc("a queen taken from the pile counts 10", rules, why, record, expect)


# ------------------------------------------------------------------------ special cards ----
@scenario
def queen_target_self() -> Json:
    hands = W_HANDS
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # QS
        a(1.5, 0, "queen", slot="left", target=0, target_slot="right"),
    ]
    record = rec(P3, opts(), [rnd(2, hands, ["QS"], acts)])
    return sc(
        "queen on oneself",
        ["R-QUEEN-TARGET"],
        "A Queen must target another player.",
        record,
        refused(record, "R-QUEEN-TARGET"),
    )


@scenario
def special_swap_drawn_jack() -> Json:
    acts = [*readies(3), a(1.0, 0, "draw"), a(1.5, 0, "swap", slot="left")]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["JS"], acts)])
    why = "A Jack drawn from the deck can never be swapped into the hand."
    return sc(
        "swap a drawn jack",
        ["R-SPECIAL", "R-FACE-IN-HAND"],
        why,
        record,
        refused(record, "R-SPECIAL"),
    )


@scenario
def special_swap_drawn_queen_in_chain() -> Json:
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # KD
        a(1.5, 0, "king"),
        a(2.0, 0, "draw"),  # QH, an extra draw
        a(2.5, 0, "swap", slot="middle"),
    ]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["KD", "QH"], acts)])
    why = "A Queen drawn as a King's extra draw is still a drawn Q: no swap into the hand."
    return sc(
        "swap a queen drawn in a king chain",
        ["R-SPECIAL", "R-KING"],
        why,
        record,
        refused(record, "R-SPECIAL"),
    )


@scenario
def special_discard_drawn_king() -> Json:
    acts = [*readies(3), a(1.0, 0, "draw"), a(1.5, 0, "discard")]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["KS"], acts)])
    why = "A drawn King must be used."
    return sc("discard a drawn king", ["R-SPECIAL"], why, record, refused(record, "R-SPECIAL"))


@scenario
def king_with_another_card() -> Json:
    acts = [*readies(3), a(1.0, 0, "draw"), a(1.5, 0, "king")]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["7S"], acts)])
    why = "Seat 0 holds 7S, not a King."
    return sc("king action with a 7 drawn", ["R-KING"], why, record, refused(record, "R-KING"))


@scenario
def queen_with_another_card() -> Json:
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),
        a(1.5, 0, "queen", slot="left", target=1, target_slot="left"),
    ]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["JH"], acts)])
    why = "Seat 0 holds JH, not a Queen."
    return sc(
        "queen action with a jack drawn", ["R-QUEEN"], why, record, refused(record, "R-QUEEN")
    )


# ------------------------------------------------------------------- scores and games ----
@scenario
def scores_negative_caller_two_rounds() -> Json:
    r1 = rnd(
        0,
        [["9C", "8C", "7C"], ["AS", "AH", "2D"]],
        ["AD", "5H"],
        [
            *readies(2),
            a(1.0, 1, "draw"),  # AD
            a(1.5, 1, "swap", slot="right"),  # 2D out
            a(2.0, 1, "crisp"),
            a(4.0, 0, "draw"),  # 5H
            a(4.5, 0, "discard"),
        ],
    )
    r2 = rnd(
        1,
        [["AC", "2C", "3C"], ["2S", "2H", "2D"]],
        ["4H", "5S"],
        [
            *readies(2),
            a(1.0, 0, "draw"),  # 4H
            a(1.5, 0, "discard"),
            a(2.0, 0, "crisp"),
            a(4.0, 1, "draw"),  # 5S
            a(4.5, 1, "discard"),
        ],
    )
    record = rec(P2, opts(), [r1, r2])
    why = (
        "Round 1, dealer 0 (seat 1 first): seat 1 [AS AH AD] = 3 calls, strictly lowest: -2; "
        "seat 0 [9C 8C 7C] = 24. Round 2, dealer 1 (seat 0 first): seat 0 [AC 2C 3C] = 6 calls "
        "and ties seat 1 [2S 2H 2D] = 6: 11. Totals 35, 4."
    )
    expect = result(
        [
            ended(0, 1, [["9C", "8C", "7C"], ["AS", "AH", "AD"]], [24, -2]),
            ended(1, 0, [["AC", "2C", "3C"], ["2S", "2H", "2D"]], [11, 6]),
        ],
        [35, 4],
    )
    rules = ["R-CALLER-BONUS", "R-CUMULATIVE", "R-DEALER"]
    return sc("negative round score, then a tie", rules, why, record, expect)


@scenario
def four_players_three_rounds_limit_50() -> Json:
    def turns(order: list[int], caller_turn: int) -> list[Json]:
        """Each seat in ``order`` draws and discards; the ``caller_turn``-th turn's seat calls."""
        acts, t = readies(4), 1.0
        for k, seat in enumerate(order):
            acts += [a(t, seat, "draw"), a(t + 0.5, seat, "discard")]
            if k == caller_turn:
                acts.append(a(t + 1.0, seat, "crisp"))
            t += 3.0 if k <= caller_turn else 1.0
        return acts

    r1_hands = [["AS", "2S", "3S"], ["TH", "5H", "5S"], ["4D", "5D", "6D"], ["7C", "4C", "AC"]]
    r2_hands = [["8S", "4S", "2H"], ["TC", "8C", "2C"], ["AD", "2D", "3D"], ["9S", "6S", "3H"]]
    r3_hands = [["5C", "3C", "2S"], ["7S", "4H", "4D"], ["TD", "6C", "4S"], ["AS", "2H", "5H"]]
    rounds = [
        rnd(3, r1_hands, ["9H", "9D", "9C", "9S"], turns([0, 1, 2, 3], 0)),
        rnd(0, r2_hands, ["7D", "8D", "TD", "JD", "QD"], turns([1, 2, 3, 0, 1], 1)),
        rnd(1, r3_hands, ["8H", "9H", "TH", "JH", "QH"], turns([2, 3, 0, 1, 2], 1)),
    ]
    record = rec(P4, opts(limit=50), rounds)
    why = (
        "Limit 50, all drawn cards discarded. R1 dealer 3: seat 0 calls with 6 (others 20, 15, "
        "12) -> [1, 20, 15, 12]. R2 dealer 0 (seat 1 first, seat 2 calls with 6; others 14, 20, "
        "18) -> [14, 20, 1, 18], totals [15, 40, 16, 30]. R3 dealer 1 (seat 2 first, seat 3 "
        "calls with 8; others 10, 15, 20) -> [10, 15, 20, 3], totals [25, 55, 36, 33]: 55 >= 50, "
        "game over, seat 0 wins alone."
    )
    expect = result(
        [
            ended(3, 0, r1_hands, [1, 20, 15, 12]),
            ended(0, 2, r2_hands, [14, 20, 1, 18]),
            ended(1, 3, r3_hands, [10, 15, 20, 3]),
        ],
        [25, 55, 36, 33],
        over=True,
        winners=[0],
    )
    rules = ["R-DEALER", "R-CUMULATIVE", "R-GAME-END", "R-OPT-LIMIT", "R-CALLER-BONUS"]
    return sc("four players, three rounds to 50", rules, why, record, expect)


@scenario
def unfinished_game() -> Json:
    r1_hands = [["5S", "4S", "3S"], ["6H", "4H", "2H"], ["TC", "9C", "8C"]]
    r1 = rnd(
        2,
        r1_hands,
        ["9H", "9D", "8D"],
        [
            *readies(3),
            a(1.0, 0, "draw"),
            a(1.5, 0, "discard"),
            a(2.0, 0, "crisp"),
            a(4.0, 1, "draw"),
            a(4.5, 1, "discard"),
            a(5.0, 2, "draw"),
            a(5.5, 2, "discard"),
        ],
    )
    r2 = rnd(
        0,
        [["AS", "2S", "3C"], ["2C", "4C", "5C"], ["6S", "7S", "8S"]],
        ["AH", "3H"],
        [
            *readies(3),
            a(1.0, 1, "draw"),
            a(1.5, 1, "swap", slot="left"),
            a(4.0, 2, "draw"),
        ],
    )
    record = rec(P3, opts(), [r1, r2])
    why = (
        "Round 1 as in §8.8 (scores 17, 12, 27); round 2 stops in the middle of seat 2's turn: "
        "only round 1 is listed, the game is not over."
    )
    expect = result(
        [ended(2, 0, r1_hands, [17, 12, 27])],
        [17, 12, 27],
    )
    return sc("a game in progress", ["R-CUMULATIVE", "R-DEALER"], why, record, expect)


def _final_timeout_round() -> Json:
    acts = [
        *readies(2, 1.0),
        a(2.0, 0, "draw"),  # 7H
        a(3.0, 0, "discard"),
        a(3.5, 0, "crisp"),  # seat 1's final draw is due at 5.0, times out at 35.0
    ]
    return rnd(1, [["AC", "2C", "3C"], ["4D", "5D", "6D"]], ["7H", "2H"], acts)


FINAL_TIMEOUT_R1 = ended(1, 0, [["AC", "2C", "3C"], ["4D", "5D", "6D"]], [1, 15])


@scenario
def final_turn_timeout_then_next_round() -> Json:
    r2 = rnd(
        0,
        [["9S", "9H", "9D"], ["AS", "AH", "AD"]],
        ["2S", "3S"],
        [
            *readies(2, 1.0),
            a(2.0, 1, "draw"),  # 2S
            a(2.5, 1, "discard"),
            a(3.0, 1, "crisp"),
            a(5.0, 0, "draw"),  # 3S
            a(5.5, 0, "discard"),
        ],
    )
    record = rec(P2, opts(timer=30), [_final_timeout_round(), r2])
    why = (
        "Round 1 (dealer 1): seat 0 [AC 2C 3C] = 6 calls; seat 1's only final turn does nothing "
        "and times out at 35.0 (2H drawn and discarded for it), which ends the round: seat 1 "
        "[4D 5D 6D] = 15; scores [1, 15]. Round 2 (dealer 0, seat 1 first): seat 1 [AS AH AD] "
        "= 3 calls, strictly lowest: -2; seat 0 [9S 9H 9D] = 27. Totals 28, 13."
    )
    expect = result(
        [FINAL_TIMEOUT_R1, ended(0, 1, [["9S", "9H", "9D"], ["AS", "AH", "AD"]], [27, -2])],
        [28, 13],
    )
    rules = ["R-TIMEOUT", "R-FINAL-TURNS", "R-DEALER", "R-CALLER-BONUS"]
    return sc("last final turn ends by timeout, then a new round", rules, why, record, expect)


@scenario
def final_turn_timeout_end_field() -> Json:
    round_ = _final_timeout_round()
    round_["end"] = 40.0
    record = rec(P2, opts(timer=30), [round_])
    why = (
        'As round 1 of final-turn-timeout-then-next-round; the round\'s "end" 40.0 makes the '
        "replay apply the timeout at 35.0, so the round ended: scores [1, 15]."
    )
    expect = result([FINAL_TIMEOUT_R1], [1, 15])
    return sc(
        "a round ended by a deadline after its last action",
        ["R-TIMEOUT", "R-FINAL-TURNS"],
        why,
        record,
        expect,
    )


@scenario
def final_turn_timeout_pending() -> Json:
    record = rec(P2, opts(timer=30), [_final_timeout_round()])
    why = (
        'The same round without "end": the record stops after the call, the last round\'s '
        "pending deadline is not applied, the round is still in progress: nothing listed."
    )
    expect = result([], [0, 0])
    return sc("a final turn still running", ["R-FINAL-TURNS"], why, record, expect)


@scenario
def action_after_round_ended() -> Json:
    hands = [["AC", "2C", "3C"], ["4D", "5D", "6D"]]
    acts = [
        *readies(2),
        a(1.0, 0, "draw"),
        a(2.0, 0, "discard"),
        a(2.5, 0, "crisp"),
        a(4.2, 1, "draw"),
        a(4.5, 1, "swap", slot="left"),  # the round ends here
        a(5.0, 0, "draw"),
    ]
    record = rec(P2, opts(), [rnd(1, hands, ["7H", "2H"], acts)])
    why = "§8.9's round has ended after seat 1's final turn: a draw at 5.0 is refused."
    return sc(
        "an action after the round ended",
        ["R-FINAL-TURNS"],
        why,
        record,
        refused(record, "R-FINAL-TURNS"),
    )


@scenario
def action_after_game_over() -> Json:
    rounds = _game_end_tie_rounds()
    rounds[1]["actions"].append(a(12.0, 1, "draw"))
    record = rec(P3, opts(limit=50), rounds)
    why = "§8.10's game is over after its second round: a draw at 12.0 is refused."
    return sc(
        "an action after the game is over",
        ["R-GAME-END"],
        why,
        record,
        refused(record, "R-GAME-END"),
    )


@scenario
def recycle_timeout_on_empty_deck() -> Json:
    record = rec(P2, opts(timer=60), [_recycle_round("timeout")])
    why = (
        "Same 44 turns as case01 with a 60 s timer (every draw well in time). Seat 0 then lets "
        "its time run out facing the empty deck: the pile 3H 9C KD 3S 4S … QC is recycled and "
        "3H drawn and discarded for seat 0. Seat 1 starts at once, draws 9C into its left (KC "
        "out) and calls. Seat 0's final turn draws KD (must be used), then 3S into its left (KS "
        "out) and 4S discarded. Reveal: seat 0 [3S AS KH] = 14, seat 1 [9C 6S 2S] = 17; caller "
        "not lowest: 22."
    )
    expect = result([ended(1, 1, [["3S", "AS", "KH"], ["9C", "6S", "2S"]], [14, 22])], [14, 22])
    expect["seat_stream_contains"] = [
        {"seat": 1, "message": {"type": "timeout", "seat": 0, "card": "3H", "lost": 0}}
    ]
    rules = ["R-TIMEOUT", "R-RECYCLE", "R-KING", "R-WINDOW-NONE"]
    return sc("timeout facing an empty deck", rules, why, record, expect)


@scenario
def timer_first_turn_from_look_end() -> Json:
    hands = [["9S", "2S", "AS"], ["5C", "6C", "7C"], ["8D", "9D", "TD"]]
    acts = [
        a(39.5, 0, "draw"),  # 3H: no ready, the first draw is due at 10.0, deadline 40.0
        a(39.9, 0, "swap", slot="left"),  # 9S out; E = 39.9
        a(40.4, 0, "crisp"),
        a(42.0, 1, "draw"),  # 4H
        a(42.5, 1, "discard"),
        a(43.0, 2, "draw"),  # 5H
        a(43.5, 2, "discard"),
    ]
    record = rec(P3, opts(timer=30), [rnd(2, hands, ["3H", "4H", "5H"], acts)])
    why = (
        "Timer 30, nobody says ready: the first draw is due when the look phase ends at 10.0, "
        "so seat 0 may still act at 39.9. Reveal: seat 0 [3H 2S AS] = 6 -> 1, seat 1 [5C 6C "
        "7C] = 18, seat 2 [8D 9D TD] = 27."
    )
    hands_end = [["3H", "2S", "AS"], ["5C", "6C", "7C"], ["8D", "9D", "TD"]]
    expect = result([ended(2, 0, hands_end, [1, 18, 27])], [1, 18, 27])
    return sc(
        "first draw clock starts at the end of the look",
        ["R-TIMER", "R-LOOK-PHASE"],
        why,
        record,
        expect,
    )


@scenario
def timer_first_turn_from_last_ready() -> Json:
    acts = [*readies(3, 2.0), a(31.0, 0, "draw"), a(32.0, 0, "swap", slot="left")]
    record = rec(P3, opts(timer=30), [rnd(2, T_HANDS, ["5H"], acts)])
    why = (
        "Timer 30, every seat ready at 2.0: the first draw is due at 2.0, deadline 32.0. The "
        "draw at 31.0 is in time; the swap at exactly 32.0 comes after the timeout: the turn "
        "has passed to seat 1."
    )
    return sc(
        "first draw clock starts when all are ready",
        ["R-TIMER", "R-LOOK-PHASE", "R-TURN"],
        why,
        record,
        refused(record, "R-TURN"),
    )


@scenario
def draw_when_last_seat_ready() -> Json:
    acts = [
        a(0.5, 0, "ready"),
        a(0.7, 1, "ready"),
        a(0.9, 2, "ready"),
        a(0.9, 0, "draw"),  # the look phase ends as the last seat is ready
        a(1.5, 0, "discard"),
        a(2.0, 0, "crisp"),
        a(4.0, 1, "draw"),
        a(4.5, 1, "discard"),
        a(5.0, 2, "draw"),
        a(5.5, 2, "discard"),
    ]
    record = rec(P3, opts(), [rnd(2, W_HANDS, W_DRAWS, acts)])
    why = (
        "The first turn may start as soon as every seat is ready. Hands unchanged: 6 -> 1, 18, 27."
    )
    expect = result([ended(2, 0, W_HANDS, [1, 18, 27])], [1, 18, 27])
    return sc("draw as the last seat says ready", ["R-LOOK-PHASE"], why, record, expect)


@scenario
def timeout_holding_jack() -> Json:
    record = rec(P3, opts(timer=30), [_timeout_first_turn("JH", seat0_draws=True)])
    why = (
        "Timer 30: seat 0 draws JH at 2.0 and holds it; at 31.0 JH is discarded without effect "
        "(no look at the middle). " + T_WHY
    )
    expect = result([ended(2, 1, T_END, [18, 1, 11])], [18, 1, 11])
    expect["seat_stream_contains"] = [
        {"seat": 0, "message": {"type": "timeout", "seat": 0, "card": "JH", "lost": 0}}
    ]
    expect["seat_stream_lacks"] = [{"seat": 0, "message": {"type": "look", "why": "jack"}}]
    return sc("timeout holding a jack", ["R-TIMEOUT", "R-JACK"], why, record, expect)


@scenario
def game_end_exactly_at_limit() -> Json:
    r1 = rnd(
        0,
        [["TS", "9S", "6S"], ["AS", "2S", "3S"]],
        ["4H", "5H"],
        [
            *readies(2),
            a(1.0, 1, "draw"),
            a(1.5, 1, "discard"),
            a(2.0, 1, "crisp"),
            a(4.0, 0, "draw"),
            a(4.5, 0, "discard"),
        ],
    )
    r2 = rnd(
        1,
        [["TH", "9H", "6H"], ["AC", "2C", "3C"]],
        ["4D", "5D", "7D"],
        [
            *readies(2),
            a(1.0, 0, "draw"),
            a(1.5, 0, "discard"),
            a(4.0, 1, "draw"),
            a(4.5, 1, "discard"),
            a(5.0, 1, "crisp"),
            a(7.0, 0, "draw"),
            a(7.5, 0, "discard"),
        ],
    )
    record = rec(P2, opts(limit=50), [r1, r2])
    why = (
        "Limit 50. Round 1 (dealer 0): seat 0 [TS 9S 6S] = 25, seat 1 [AS 2S 3S] = 6 calls -> 1. "
        "Round 2 (dealer 1): seat 0 [TH 9H 6H] = 25, seat 1 [AC 2C 3C] = 6 calls -> 1. Totals "
        "50 and 2: exactly the limit ends the game; seat 1 wins."
    )
    expect = result(
        [
            ended(0, 1, [["TS", "9S", "6S"], ["AS", "2S", "3S"]], [25, 1]),
            ended(1, 1, [["TH", "9H", "6H"], ["AC", "2C", "3C"]], [25, 1]),
        ],
        [50, 2],
        over=True,
        winners=[1],
    )
    return sc("game ends at exactly the limit", ["R-GAME-END", "R-DEALER"], why, record, expect)


@scenario
def queen_target_missing_seat() -> Json:
    acts = [
        *readies(3),
        a(1.0, 0, "draw"),  # QS
        a(1.5, 0, "queen", slot="left", target=5, target_slot="left"),
    ]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["QS"], acts)])
    why = "Seat 5 does not exist at a 3-seat table (docs/engine.md: R-QUEEN-TARGET)."
    return sc(
        "queen on a seat that does not exist",
        ["R-QUEEN-TARGET"],
        why,
        record,
        refused(record, "R-QUEEN-TARGET"),
    )


@scenario
def seat_outside_table() -> Json:
    record = rec(P3, opts(), [rnd(2, W_HANDS, W_DRAWS, [a(0.5, 3, "ready")])])
    why = "Seat 3 at a 3-seat table (docs/engine.md: R-PLAYERS)."
    return sc("a seat outside the table", ["R-PLAYERS"], why, record, refused(record, "R-PLAYERS"))


@scenario
def jack_with_another_card() -> Json:
    acts = [*readies(3), a(1.0, 0, "draw"), a(1.5, 0, "jack")]
    record = rec(P3, opts(), [rnd(2, W_HANDS, ["7S"], acts)])
    return sc(
        "jack action with a 7 drawn",
        ["R-JACK"],
        "Seat 0 holds 7S, not a Jack.",
        record,
        refused(record, "R-JACK"),
    )


@scenario
def discard_without_draw() -> Json:
    record = rec(P3, opts(), [w_round([a(1.0, 0, "discard")])])
    return sc(
        "discard with no drawn card",
        ["R-DISCARD"],
        "Seat 0 discards before drawing.",
        record,
        refused(record, "R-DISCARD"),
    )


@scenario
def take_discard_wrong_seat() -> Json:
    record = rec(P3, opts(take=True), [w_round([*W_OPEN, a(4.5, 2, "take_discard", slot="left")])])
    why = "After seat 0's turn it is seat 1's turn: seat 2 may not take from the pile."
    return sc(
        "take by a seat whose turn it is not",
        ["R-TURN", "R-TAKE-DISCARD"],
        why,
        record,
        refused(record, "R-TURN"),
    )


@scenario
def take_discard_before_2s() -> Json:
    record = rec(P3, opts(take=True), [w_round([*W_OPEN, a(3.0, 1, "take_discard", slot="left")])])
    why = (
        "Seat 0's turn ended at 2.0; a take replaces a draw, so seat 1 may take only from 4.0 "
        "(R-WINDOW: the next player may start 2 s after the turn ended)."
    )
    return sc(
        "take before the 2 s have passed",
        ["R-WINDOW", "R-TAKE-DISCARD"],
        why,
        record,
        refused(record, "R-WINDOW"),
    )


# ----------------------------------------------------------------------------- writing ----
def _dump(value: Any, indent: int = 0) -> str:
    """JSON with scalar lists (decks, hands) and flat objects (actions) on one line."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(value, dict):
        if all(not isinstance(v, dict | list) for v in value.values()):
            return json.dumps(value, ensure_ascii=False)
        items = [f"{inner}{json.dumps(k)}: {_dump(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        flat = all(not isinstance(v, dict | list) for v in value)
        short = json.dumps(value, ensure_ascii=False)
        if flat or len(short) <= 90:
            return short
        return "[\n" + ",\n".join(inner + _dump(v, indent + 1) for v in value) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def main() -> None:
    for old in HERE.glob("*.json"):
        old.unlink()
    for name, make in SCENARIOS.items():
        data = make()
        assert data["rules"] and all(rule.startswith("R-") for rule in data["rules"])
        (HERE / f"{name}.json").write_text(_dump(data) + "\n", encoding="utf-8")
    print(f"wrote {len(SCENARIOS)} scenarios to {HERE}")


if __name__ == "__main__":
    main()
