"""The engine's server hooks: ``Game.set_absent`` (a host's grace for an absent seat) and
``Game.restart_clock`` (after a server restart), their ``clock`` messages, and the round's
``clock`` list of a record (docs/engine.md, "Server hooks: absent seats and restarts").

Every expected time is derived from the rule times (``Timing()``: start 2 s, window 3 s) and the
times the test itself chose; every deck is stacked, so every card drawn for a timeout is known.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from engine_helpers import of_type, play_turn, snapshot, stacked_game
from stacking import FIXED_ORDER, deal_deck

from crisp.engine.crisp import Game, IllegalAction, Options, Out, Timing
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.messages import encode
from crisp.engine.crisp.record import RecordError, load, replay

HANDS3 = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["7S", "8S", "9S"]]
HANDS3_ROUND2 = [["AH", "2H", "3H"], ["4H", "5H", "6H"], ["7H", "8H", "9H"]]
DRAWS = ["2D", "3D", "4D", "5D", "6D", "7D"]
TIMER30 = Options(timer=30)
TIMING = Timing()
START = TIMING.start_ms / 1000  # R-WINDOW: the next player may start 2 s after a turn ended
WINDOW = TIMING.window_ms / 1000  # R-WINDOW: the crisp window lasts 3 s


def types(outs: list[Out]) -> list[str]:
    return [o.msg["type"] for o in outs]


def clock(t: float, seat: int, deadline: float | None) -> dict[str, Any]:
    return {"type": "clock", "t": t, "seat": seat, "deadline": deadline}


def only_clock(outs: list[Out]) -> dict[str, Any]:
    """The one message of a hook call that changed a deadline: a ``clock`` sent to everyone."""
    assert len(outs) == 1, [o.msg for o in outs]
    assert outs[0].to is None  # every seat and every spectator
    return outs[0].msg


def assert_52(game: Game) -> None:
    """R-DECK: all 52 cards stay in play, each once, whatever the hooks timed out."""
    assert sorted(game.round.cards()) == sorted(FIXED_ORDER)


def deadline_in_view(game: Game) -> float | None:
    """The current draw's deadline as a reconnecting seat sees it."""
    turn: dict[str, Any] = game.view(None)["round"]["turn"]
    return turn["deadline"]


# -- set_absent: the seat's draws time out from `until` ------------------------------------------


def test_r_timeout_absent_seat_times_out_at_until_with_no_timer() -> None:
    """R-TIMEOUT with no per-draw time: an absent seat's draw times out at exactly ``until``; the
    top card is drawn and discarded for it, and its turn opens no window (R-WINDOW-NONE)."""
    game, _ = stacked_game(HANDS3, DRAWS)  # seat 0's first draw is due at 0, no deadline
    assert game.next_deadline() is None
    outs = game.set_absent(0, 4, 1)
    assert only_clock(outs) == clock(1.0, 0, 4.0)
    assert game.absent == [True, False, False]
    assert game.next_deadline() == 4.0 and deadline_in_view(game) == 4.0
    assert game.advance(3.999) == []
    outs = game.advance(4)
    assert types(outs) == ["timeout", "turn_end", "turn"]
    assert outs[0].msg == {"type": "timeout", "t": 4.0, "seat": 0, "card": DRAWS[0], "lost": 0}
    end = outs[1].msg
    assert (end["window_until"], end["next"], end["next_at"]) == (None, 1, 4.0)
    turn = outs[2].msg
    assert (turn["seat"], turn["at"], turn["deadline"]) == (1, 4.0, None)
    with pytest.raises(IllegalAction) as err:
        game.apply(A.Crisp(0), 4)
    assert err.value.rule == "R-WINDOW-NONE"
    assert game.round.pile == [DRAWS[0]]
    assert_52(game)


def test_r_timer_absent_deadline_is_the_sooner_of_grace_and_per_draw_time() -> None:
    """R-TIMER: with a per-draw time the absent seat's deadline is the sooner of ``until`` and the
    per-draw deadline; a later ``until`` changes nothing (no ``clock`` message)."""
    game, outs = stacked_game(HANDS3, DRAWS, options=TIMER30)
    timer_deadline = of_type(outs, "turn")[-1]["deadline"]
    assert timer_deadline == 30.0  # due at 0 (everyone ready), R-TIMER 30 s
    assert game.set_absent(0, 40, 1) == []  # 40 is after 30: the per-draw time comes first
    assert game.next_deadline() == timer_deadline
    outs = game.set_absent(0, 12, 2)
    assert only_clock(outs) == clock(2.0, 0, 12.0)
    outs = game.advance(12)
    assert outs[0].msg == {"type": "timeout", "t": 12.0, "seat": 0, "card": DRAWS[0], "lost": 0}
    assert_52(game)


def test_r_timeout_absent_seat_holding_a_card_after_a_king() -> None:
    """R-TIMEOUT: an absent seat's extra draw (R-KING) counts from when it became due: the card it
    drew is discarded for it and the last extra draw is lost."""
    game, _ = stacked_game(HANDS3, ["KH", "5H", "6H"])
    game.apply(A.Draw(0), 1)
    game.apply(A.King(0), 2)  # two extra draws, the first due at 2
    game.apply(A.Draw(0), 2.2)  # holds 5H
    outs = game.set_absent(0, 3, 2.5)
    assert only_clock(outs) == clock(2.5, 0, 3.0)
    outs = game.advance(3)
    assert outs[0].msg == {"type": "timeout", "t": 3.0, "seat": 0, "card": "5H", "lost": 1}
    assert game.round.pile == ["KH", "5H"] and game.round.hands[0] == HANDS3[0]
    assert game.round.turn == 1
    assert_52(game)


@pytest.mark.parametrize("until", [5.5, 7.5, 9.0])
def test_r_window_absent_next_seat_not_before_due_nor_before_the_window_ends(until: float) -> None:
    """R-WINDOW: the absent seat after a normal turn may start 2 s after it ended and the previous
    player may call for 3 s: its timeout comes at the latest of ``until``, the moment it may start
    and the end of that window, so the timeout never cuts the window short."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 5)
    ended = 5.0
    at, window_until = ended + START, ended + WINDOW
    outs = game.set_absent(1, until, 5.5)  # during the 2 s before seat 1 may start
    expected = max(at, until, window_until)
    assert only_clock(outs) == clock(5.5, 1, expected)
    assert deadline_in_view(game) == expected
    outs = game.advance(expected - 0.001)
    assert types(outs) == (["window_closed"] if expected > window_until else [])
    outs = game.advance(expected)
    if expected == window_until:  # on a tie the window closes first, then the timeout
        assert types(outs) == ["window_closed", "timeout", "turn_end", "turn"]
    else:
        assert types(outs) == ["timeout", "turn_end", "turn"]
    timeout = of_type(outs, "timeout")[0]
    assert (timeout["t"], timeout["seat"], timeout["card"]) == (expected, 1, DRAWS[1])
    assert_52(game)


def test_r_window_absent_before_the_turn_shows_in_its_turn_message() -> None:
    """R-WINDOW: a seat made absent before its turn gets no ``clock`` message; its ``turn``
    message carries the deadline, the end of the previous player's window; the previous player
    may still call until then."""
    game, _ = stacked_game(HANDS3, DRAWS)
    assert game.set_absent(1, 1, 1) == []
    game.apply(A.Draw(0), 4)
    outs = game.apply(A.Discard(0), 5)
    turn = of_type(outs, "turn")[-1]
    assert (turn["seat"], turn["at"], turn["deadline"]) == (1, 5 + START, 5 + WINDOW)
    assert game.can(A.Crisp(0), 5 + WINDOW - 0.001)


def test_r_window_none_absent_seat_after_a_timeout_times_out_at_once() -> None:
    """R-WINDOW-NONE: after a turn that timed out the next player may start at once, so an absent
    next seat whose grace is over times out at that same moment, and the one after it may start."""
    game, _ = stacked_game(HANDS3, DRAWS)
    assert game.set_absent(1, 0, 0) == []
    assert only_clock(game.set_absent(0, 2, 0)) == clock(0.0, 0, 2.0)
    outs = game.advance(2)
    assert types(outs) == ["timeout", "turn_end", "turn"] * 2
    first, second = of_type(outs, "timeout")
    assert (first["seat"], first["card"], second["seat"], second["card"]) == (
        0,
        DRAWS[0],
        1,
        DRAWS[1],
    )
    turns = of_type(outs, "turn")
    assert [(m["seat"], m["at"], m["deadline"]) for m in turns] == [(1, 2.0, 2.0), (2, 2.0, None)]
    assert game.round.turn == 2 and game.next_deadline() is None
    assert_52(game)


def test_set_absent_none_brings_the_seat_back_and_recomputes_the_deadline() -> None:
    """``until=None``: the seat is back; the current draw's deadline is recomputed (none with no
    per-draw time, R-TIMER from when it became due otherwise) and a ``clock`` message says so."""
    game, _ = stacked_game(HANDS3, DRAWS)
    game.set_absent(0, 4, 1)
    outs = game.set_absent(0, None, 2)
    assert only_clock(outs) == clock(2.0, 0, None)
    assert game.absent == [False] * 3
    assert game.next_deadline() is None and game.advance(100) == []

    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    play_turn(game, 0, 5)  # seat 1's draw is due at 7: R-TIMER deadline 7 + 30
    due = 5 + START
    assert only_clock(game.set_absent(1, 7.5, 6)) == clock(6.0, 1, 8.0)
    assert only_clock(game.set_absent(1, None, 6.5)) == clock(6.5, 1, due + 30)
    assert game.next_deadline() == WINDOW + 5  # only the window is pending now
    assert game.set_absent(2, 50, 7) == []  # not its turn: no message
    assert game.set_absent(2, None, 7) == []


def test_set_absent_a_seat_that_is_back_gets_the_normal_clock_next_turn() -> None:
    """A seat that came back before its turn has the plain R-TIMER deadline in its ``turn``."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    game.set_absent(1, 1, 1)
    game.set_absent(1, None, 2)
    outs = game.apply(A.Draw(0), 3) + game.apply(A.Discard(0), 3)
    turn = of_type(outs, "turn")[-1]
    assert (turn["seat"], turn["deadline"]) == (1, 3 + START + 30)


def test_set_absent_refusals_change_nothing() -> None:
    """``set_absent`` refuses (ValueError) an absence that would leave no seat present, a seat
    outside the table and an ``until`` before ``t``; a refusal changes nothing."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    game.set_absent(1, 10, 1)
    game.set_absent(2, 10, 1)
    before = snapshot(game)
    absent = list(game.absent)
    for seat, until, t in [(0, 10, 2), (0, 2, 2), (3, 10, 2), (-1, 10, 2), (0, 1, 2)]:
        with pytest.raises(ValueError):
            game.set_absent(seat, until, t)
    with pytest.raises(ValueError):
        game.set_absent(True, 10, 2)  # type: ignore[arg-type]
    assert snapshot(game) == before and game.absent == absent
    assert game.set_absent(1, None, 2) == []  # a seat may always come back
    assert game.set_absent(0, 5, 2) != []  # now seat 1 is present: seat 0 may go


def test_set_absent_two_players_one_must_stay() -> None:
    """With two players, one absent seat is the most: the other's absence is refused."""
    hands = [["AS", "2S", "3S"], ["4S", "5S", "6S"]]
    game, _ = stacked_game(hands, DRAWS)
    game.set_absent(1, 0, 0)
    with pytest.raises(ValueError, match="present"):
        game.set_absent(0, 5, 0)


# -- later rounds and between rounds ---------------------------------------------------------------


def _first_round_with_a_call(game: Game, t0: float = 1) -> list[Out]:
    """Round 1 of HANDS3 (dealer 2, order 0, 1, 2): seat 0 plays at t0 and calls; seat 1 plays
    its final turn as soon as it may (t0 + 2 s); seat 2's final turn is due at once after it."""
    outs = game.apply(A.Draw(0), t0) + game.apply(A.Discard(0), t0)
    outs += game.apply(A.Crisp(0), t0 + 0.5)
    outs += game.apply(A.Draw(1), t0 + START) + game.apply(A.Discard(1), t0 + START)
    return outs


def test_r_timeout_absent_seat_in_later_rounds_times_out_as_soon_as_due() -> None:
    """R-TIMEOUT, R-WINDOW-NONE: a seat still absent at the next deal times out as soon as each of
    its draws is due, although the per-draw time is 30 s; the next deal's record needs no entry."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    _first_round_with_a_call(game)
    due = 1 + START  # seat 2's final turn is due when seat 1's ended: no window in final turns
    outs = game.set_absent(2, due + 1, due + 0.5)
    assert only_clock(outs) == clock(due + 0.5, 2, due + 1)
    outs = game.advance(due + 1)
    assert types(outs)[:3] == ["timeout", "turn_end", "reveal"]
    assert game.round.over and game.record()["rounds"][0]["end"] == due + 1

    deck2 = deal_deck(0, HANDS3_ROUND2, ["2C", "3C"])
    outs = game.start_round(deck2, 0)  # dealer 0: seat 1 first, then seat 2
    assert game.absent == [False, False, True]
    game.apply(A.Ready(0), 0.5)
    game.apply(A.Ready(1), 0.5)
    outs = game.advance(TIMING.look_ms / 1000)  # seat 2 never says ready: the look lasts 10 s
    assert of_type(outs, "turn")[0]["deadline"] == 10 + 30  # seat 1 is present: R-TIMER
    outs = game.advance(40)  # seat 1 times out (no window), seat 2 is due at once and times out
    assert [(m["seat"], m["card"]) for m in of_type(outs, "timeout")] == [(1, "2C"), (2, "3C")]
    turns = of_type(outs, "turn")
    assert [(m["seat"], m["at"], m["deadline"]) for m in turns] == [
        (2, 40.0, 40.0),
        (0, 40.0, 70.0),
    ]
    assert "clock" not in game.record()["rounds"][1]
    assert_52(game)


def test_set_absent_between_rounds_applies_to_the_next_deal() -> None:
    """Between rounds ``set_absent`` changes nothing in the ended round; it is recorded at the
    start of the next deal (``after`` 0, ``t`` 0, ``until`` 0 or null) and applies from there."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    _first_round_with_a_call(game)
    game.apply(A.Draw(2), 4)
    game.apply(A.Discard(2), 4)
    assert game.round.over
    round1 = copy.deepcopy(game.record()["rounds"][0])
    assert game.set_absent(1, 50, 6) == []
    assert game.set_absent(2, 60, 6) == []
    with pytest.raises(ValueError):
        game.set_absent(0, 50, 6)  # between rounds too, one seat must stay present
    assert game.set_absent(2, None, 7) == []
    assert game.record()["rounds"][0] == round1
    assert game.absent == [False, True, False]

    deck2 = deal_deck(0, HANDS3_ROUND2, ["2C", "3C"])
    game.start_round(deck2, 0)  # seat 1 plays first
    assert game.record()["rounds"][1]["clock"] == [
        {"after": 0, "t": 0.0, "do": "absent", "seat": 1, "until": 0.0},
        {"after": 0, "t": 0.0, "do": "absent", "seat": 2, "until": 0.0},
        {"after": 0, "t": 0.0, "do": "absent", "seat": 2, "until": None},
    ]
    outs = game.apply(A.Ready(0), 1) + game.apply(A.Ready(2), 1)
    outs += game.advance(10)  # the look ends (seat 1 never said ready): seat 1 is due, and out
    turns = of_type(outs, "turn")
    assert [(m["seat"], m["at"], m["deadline"]) for m in turns] == [
        (1, 10.0, 10.0),
        (2, 10.0, 10.0 + 30),
    ]
    assert [(m["seat"], m["card"]) for m in of_type(outs, "timeout")] == [(1, "2C")]
    assert_52(game)


def test_set_absent_before_the_first_deal_applies_to_round_one() -> None:
    """Before the first deal an absence is recorded at the start of round 1."""
    game = Game(["P0", "P1"], Options())
    assert game.set_absent(0, 3, 0) == []
    outs = game.start_round(deal_deck(1, [["AS", "2S", "3S"], ["4S", "5S", "6S"]], ["7D"]), 1)
    assert game.record()["rounds"][0]["clock"] == [
        {"after": 0, "t": 0.0, "do": "absent", "seat": 0, "until": 0.0}
    ]
    assert of_type(outs, "clock") == []
    game.apply(A.Ready(1), 0)
    outs = game.advance(10)  # seat 0 first, due at the end of the look, times out at once
    assert of_type(outs, "timeout")[0] == {
        "type": "timeout",
        "t": 10.0,
        "seat": 0,
        "card": "7D",
        "lost": 0,
    }


def test_set_absent_after_the_game_is_over_is_refused() -> None:
    """R-GAME-END: no hook changes a game that is over."""
    from crisp.engine.crisp.simulate import play_random

    game = play_random(2, Options(limit=50), 3)
    assert game.over
    record = game.record()
    with pytest.raises(IllegalAction) as err:
        game.set_absent(0, 5, 5)
    assert err.value.rule == "R-GAME-END"
    assert game.restart_clock(5) == []
    assert game.record() == record


# -- restart_clock ---------------------------------------------------------------------------------


def test_r_timer_restart_clock_restarts_the_per_draw_time_in_full() -> None:
    """R-TIMER after a server restart: the current draw's 30 s start again from ``t``; a draw made
    just before the new deadline is on time, the held card is discarded at it (R-TIMEOUT)."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    game.apply(A.Draw(0), 5)  # seat 0 holds DRAWS[0]; its draw was due at 0, deadline 30
    outs = game.restart_clock(20)
    assert only_clock(outs) == clock(20.0, 0, 50.0)
    assert deadline_in_view(game) == 50.0
    assert game.record()["rounds"][0]["clock"] == [{"after": 4, "t": 20.0, "do": "restart"}]
    assert game.advance(49.999) == []
    outs = game.advance(50)
    assert outs[0].msg == {"type": "timeout", "t": 50.0, "seat": 0, "card": DRAWS[0], "lost": 0}
    assert_52(game)


def test_r_timer_restart_clock_after_a_deadline_passed_restarts_the_next_draw() -> None:
    """R-TIMER: ``restart_clock(t)`` first applies the deadlines up to ``t`` (the timeout at 30),
    then restarts the draw that is due then (seat 1's, due at once after a timeout)."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    outs = game.restart_clock(45)
    assert types(outs) == ["timeout", "turn_end", "turn", "clock"]
    assert of_type(outs, "turn")[0]["deadline"] == 30 + 30
    assert outs[-1].msg == clock(45.0, 1, 45 + 30)


def test_r_timer_restart_clock_does_nothing_without_a_draw_clock() -> None:
    """``restart_clock`` needs the per-draw time and a draw due: with no timer, in the look phase,
    before a draw may start, between rounds and before the first deal it sends nothing."""
    game, _ = stacked_game(HANDS3, DRAWS)
    assert game.restart_clock(5) == []
    assert "clock" not in game.record()["rounds"][0]

    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30, ready=False)
    assert game.restart_clock(5) == [] and game.round.phase_name == "look"
    assert "clock" not in game.record()["rounds"][0]

    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    play_turn(game, 0, 5)  # seat 1 may start at 7: its 30 s have not begun
    assert game.restart_clock(6) == []
    assert deadline_in_view(game) == 5 + START + 30

    assert Game(["a", "b"], TIMER30).restart_clock(0) == []

    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    _first_round_with_a_call(game)
    game.apply(A.Draw(2), 4)
    game.apply(A.Discard(2), 4)
    assert game.round.over and game.restart_clock(6) == []


def test_r_timer_restart_clock_keeps_an_absent_seats_grace() -> None:
    """R-TIMER with an absent seat: after a restart its deadline is the sooner of ``t`` + 30 s and
    its ``until``."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    assert game.set_absent(0, 40, 1) == []  # 30 comes first
    outs = game.restart_clock(20)
    assert only_clock(outs) == clock(20.0, 0, 40.0)  # min(20 + 30, 40)
    outs = game.restart_clock(39)
    assert outs == []  # min(39 + 30, 40) is still 40: no change, no message
    assert game.advance(40)[0].msg["type"] == "timeout"


# -- the record's clock list -----------------------------------------------------------------------


def _played_game_with_hooks() -> tuple[Game, list[Out]]:
    """Two rounds (timer 30) with absences, returns and restarts in and between them; every
    message the game sent, in order."""
    game, outs = stacked_game(HANDS3, DRAWS, options=TIMER30)
    outs += game.set_absent(2, 0.5, 0.5)  # not its turn: recorded, no message
    outs += game.apply(A.Draw(0), 5)
    outs += game.restart_clock(20)  # seat 0's deadline: 50
    outs += game.apply(A.Swap(0, 1), 21)
    outs += game.apply(A.Crisp(0), 22)
    outs += game.set_absent(1, 26, 22.5)  # seat 1 may start at 23 and times out at 26
    outs += game.advance(26)  # seat 2, due at once after it, times out too: the round ends
    assert game.round.over
    outs += game.set_absent(2, None, 27)  # between rounds: for the next deal
    outs += game.set_absent(1, None, 27)
    outs += game.set_absent(0, 30, 27)
    outs += game.start_round(deal_deck(0, HANDS3_ROUND2, ["2C", "3C", "4C", "5C"]), 0)
    outs += game.apply(A.Ready(1), 0.2) + game.apply(A.Ready(2), 0.3)
    outs += game.advance(10)  # seat 0 never says ready; seat 1 plays first, due at 10
    outs += game.apply(A.Draw(1), 11) + game.apply(A.Discard(1), 12)
    outs += game.restart_clock(13)  # seat 2's draw is due at 14: its time has not begun
    outs += game.apply(A.Draw(2), 15)
    outs += game.restart_clock(16)
    outs += game.apply(A.Discard(2), 17)  # seat 0 (absent) is due at 19, times out at 20
    outs += game.set_absent(0, None, 19.5)  # back in time: 30 s from 19
    outs += game.apply(A.Draw(0), 21)
    return game, outs


def test_record_clock_list_round_trip_is_byte_identical() -> None:
    """A game with absences and restarts is recorded in its rounds' ``clock`` lists and replays
    from that record (through JSON) to byte-identical messages, the same record, result, absent
    seats, deadlines and views of every seat."""
    game, outs = _played_game_with_hooks()
    record = json.loads(json.dumps(game.record()))
    assert record["rounds"][0]["clock"] == [
        {"after": 3, "t": 0.5, "do": "absent", "seat": 2, "until": 0.5},
        {"after": 4, "t": 20.0, "do": "restart"},
        {"after": 6, "t": 22.5, "do": "absent", "seat": 1, "until": 26.0},
    ]
    assert record["rounds"][0]["end"] == 26.0
    assert record["rounds"][1]["clock"] == [
        {"after": 0, "t": 0.0, "do": "absent", "seat": 2, "until": None},
        {"after": 0, "t": 0.0, "do": "absent", "seat": 1, "until": None},
        {"after": 0, "t": 0.0, "do": "absent", "seat": 0, "until": 0.0},
        {"after": 4, "t": 13.0, "do": "restart"},
        {"after": 5, "t": 16.0, "do": "restart"},
        {"after": 6, "t": 19.5, "do": "absent", "seat": 0, "until": None},
    ]
    assert [m["deadline"] for m in of_type(outs, "clock")] == [50.0, 26.0, 46.0, 49.0]
    assert load(record) is record
    rep = replay(record)
    assert [(o.to, encode(o.msg)) for o in rep.outs] == [(o.to, encode(o.msg)) for o in outs]
    assert rep.game.record() == record
    assert rep.game.result() == game.result()
    assert rep.game.absent == game.absent == [False] * 3
    assert rep.game.next_deadline() == game.next_deadline() == 19 + 30
    for seat in [None, 0, 1, 2]:
        assert rep.game.view(seat) == game.view(seat)
    assert_52(rep.game)


@pytest.mark.parametrize("timer", [None, 30])
@pytest.mark.parametrize("seed", range(500, 504))
def test_record_clock_list_round_trip_of_random_games(seed: int, timer: int | None) -> None:
    """Random legal games whose seats go absent and come back and whose clock restarts replay to
    the same messages, byte for byte, and to the same record."""
    from crisp.engine.crisp.simulate import Policy, play_random

    outs: list[Out] = []
    policy = Policy(p_absent=0.1, p_restart=0.1)
    game = play_random(3, Options(timer=timer), seed, max_rounds=3, policy=policy, sink=outs.extend)
    record = json.loads(json.dumps(game.record()))
    assert any("clock" in rnd for rnd in record["rounds"])
    rep = replay(record)
    assert [(o.to, encode(o.msg)) for o in rep.outs] == [(o.to, encode(o.msg)) for o in outs]
    assert rep.game.record() == record and rep.game.result() == game.result()


def _small_record() -> dict[str, Any]:
    """Five actions: the three readies at 0, seat 0's draw at 5 and its discard at 6."""
    game, _ = stacked_game(HANDS3, DRAWS, options=TIMER30)
    game.apply(A.Draw(0), 5)
    game.apply(A.Discard(0), 6)
    return game.record()


@pytest.mark.parametrize(
    ("clock_list", "says"),
    [
        ({"after": 0}, "rounds[0].clock must be a list"),
        (["restart"], "rounds[0].clock[0]: an entry is an object"),
        ([{"t": 1, "do": "restart"}], "rounds[0].clock[0].after"),
        ([{"after": True, "t": 1, "do": "restart"}], "rounds[0].clock[0].after"),
        ([{"after": -1, "t": 1, "do": "restart"}], "rounds[0].clock[0].after"),
        ([{"after": 6, "t": 1, "do": "restart"}], "rounds[0].clock[0].after"),
        ([{"after": 1.0, "t": 1, "do": "restart"}], "rounds[0].clock[0].after"),
        (
            [{"after": 4, "t": 5, "do": "restart"}, {"after": 3, "t": 5, "do": "restart"}],
            "rounds[0].clock[1].after",
        ),
        ([{"after": 4, "do": "restart"}], "rounds[0].clock[0]: t must be a number"),
        ([{"after": 4, "t": "5", "do": "restart"}], "rounds[0].clock[0]: t must be a number"),
        ([{"after": 4, "t": -1, "do": "restart"}], "rounds[0].clock[0]: t must be a finite"),
        ([{"after": 4, "t": float("nan"), "do": "restart"}], "rounds[0].clock[0]: t must be"),
        ([{"after": 4, "t": 5, "do": "pause"}], "rounds[0].clock[0].do"),
        ([{"after": 4, "t": 5}], "rounds[0].clock[0].do"),
        ([{"after": 4, "t": 5, "do": "restart", "seat": 0}], "unknown field 'seat'"),
        ([{"after": 4, "t": 5, "do": "absent", "until": 6}], "rounds[0].clock[0].seat"),
        ([{"after": 4, "t": 5, "do": "absent", "seat": 3, "until": 6}], "rounds[0].clock[0].seat"),
        (
            [{"after": 4, "t": 5, "do": "absent", "seat": False, "until": 6}],
            "rounds[0].clock[0].seat",
        ),
        (
            [{"after": 4, "t": 5, "do": "absent", "seat": 0, "until": "6"}],
            "rounds[0].clock[0].until",
        ),
        (
            [{"after": 4, "t": 5, "do": "absent", "seat": 0, "until": True}],
            "rounds[0].clock[0].until",
        ),
        (
            [{"after": 4, "t": 5, "do": "absent", "seat": 0, "until": -6}],
            "rounds[0].clock[0].until",
        ),
        (
            [{"after": 4, "t": 5, "do": "absent", "seat": 0, "until": 6, "why": "x"}],
            "rounds[0].clock[0]: unknown field 'why'",
        ),
    ],
)
def test_load_refuses_malformed_clock_entries(clock_list: Any, says: str) -> None:
    """``load`` (and so ``replay``) refuses a malformed ``clock`` list with a RecordError that
    names the entry and the field (``rounds[R].clock[C].field``)."""
    record = _small_record()
    load(copy.deepcopy(record))  # the record is well formed before the change
    record["rounds"][0]["clock"] = clock_list
    with pytest.raises(RecordError) as err:
        load(record)
    assert says in str(err.value)
    with pytest.raises(RecordError):
        replay(record)


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ([{"after": 4, "t": 5.5, "do": "absent", "seat": 1, "until": 5}], "before now"),
        ([{"after": 4, "t": 4, "do": "restart"}], "before the action"),  # action 3 is at 5
        (
            [{"after": 3, "t": 1, "do": "absent", "seat": s, "until": 9} for s in (1, 2, 0)],
            "at least one seat must stay present",
        ),
    ],
)
def test_replay_refuses_clock_entries_that_cannot_happen(entries: Any, says: str) -> None:
    """An absence ending before it starts, an entry earlier than the action before it, or every
    seat absent: ``replay`` refuses the record with a RecordError naming the round's clock."""
    record = _small_record()
    record["rounds"][0]["clock"] = entries
    with pytest.raises(RecordError, match=says) as err:
        replay(record)
    assert "rounds[0].clock" in str(err.value)


# -- malformed clock entries found while writing these tests ------------------------------------


@pytest.mark.parametrize("t", [4, 7])
def test_load_refuses_clock_times_out_of_order_with_the_actions(t: float) -> None:
    """``load`` checks that actions' times never go back; a ``clock`` entry placed after action
    ``after-1`` (the draw at 5) and before action ``after`` (the discard at 6) must have a ``t``
    between them."""
    record = _small_record()
    record["rounds"][0]["clock"] = [{"after": 4, "t": t, "do": "restart"}]
    with pytest.raises(RecordError, match=r"rounds\[0\]\.clock\[0\]"):
        load(record)


def test_replay_of_a_clock_entry_later_than_the_next_action_is_a_record_error(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``clock`` entry at 7 placed before the discard at 6 is a malformed record: ``replay``
    should raise RecordError and ``crisp replay`` exit with status 2 and one line, not a
    traceback."""
    from crisp.cli import main

    record = _small_record()
    record["rounds"][0]["clock"] = [{"after": 4, "t": 7, "do": "restart"}]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "malformed record" in capsys.readouterr().err
    with pytest.raises(RecordError):
        replay(record)


def test_load_refuses_an_absent_entry_without_until() -> None:
    """``until`` is a required field of an ``absent`` entry (a number, or null for a return): an
    entry without it is ambiguous and must be refused, not read as a return."""
    record = _small_record()
    record["rounds"][0]["clock"] = [{"after": 4, "t": 5, "do": "absent", "seat": 1}]
    with pytest.raises(RecordError, match="until"):
        load(record)
