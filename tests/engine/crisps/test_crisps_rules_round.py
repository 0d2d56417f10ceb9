"""docs/rules-crisps.md §2, §4–§10: the round, tricks, draws, points, options, timing, what each
seat sees and the order of refusals; one test (at least) per rule id, on stacked decks."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from crisps_kit import stack
from paths import ROOT

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisps import CrispsGame, CrispsOptions, CrispsRefusal
from crisp.engine.crisps.cards import counts_of, text
from crisp.engine.crisps.shuffle import deck_from_key

DECK = stack("1134455799XX", "1233567799XX", aside="1236", faceup="8", pile="26")


def game(deck: str = DECK, starter: int = 0, **opts: Any) -> CrispsGame:
    g = CrispsGame(
        ["Ana", "Ben"],
        CrispsOptions(**opts),
        first_starter=starter,
        decks=[deck, deck, deck, deck, deck],
    )
    g.start()
    return g


def rule_of(g: CrispsGame, seat: Any, action: Any) -> str:
    before = (json.dumps([g.view(0), g.view(1), g.view(None)]), json.dumps(g.record()))
    with pytest.raises(CrispsRefusal) as err:
        g.apply(seat, action, 5.0)
    assert (json.dumps([g.view(0), g.view(1), g.view(None)]), json.dumps(g.record())) == before
    return err.value.rule


def test_cs_terms_and_cs_players_two_seats_only() -> None:
    with pytest.raises(ValueError, match="CS-PLAYERS"):
        CrispsGame(["Ana", "Ben", "Cy"], seed=1)
    g = game()
    assert rule_of(g, 2, {"do": "play", "cards": "1"}) == "CS-NOTATION"


def test_cs_shuffle_same_seed_same_game_and_fairness_labels() -> None:
    a, b = CrispsGame(["a", "b"], seed=7), CrispsGame(["a", "b"], seed=7)
    assert [o.msg for o in a.start()] == [o.msg for o in b.start()]
    fair = Fairness.from_int(7, 2)
    assert a.round.deck == deck_from_key(fair.key(), 1)
    assert sorted(a.round.deck) == sorted("".join(r * 4 for r in "123456789X"))
    assert CrispsGame(["a", "b"], seed=8).dealing.deck(1) != a.round.deck
    assert deck_from_key(fair.key(), 2) != a.round.deck


def test_cs_deal_positions_and_cs_set_aside() -> None:
    g = game()
    rnd = g.round
    assert text(rnd.hands[0]) == "1134455799XX" and text(rnd.hands[1]) == "1233567799XX"
    assert rnd.set_aside == "1236" and rnd.faceup == "8" and rnd.pile[:2] == ["2", "6"]
    assert len(rnd.pile) == 11 and rnd.supply() == 12
    nf = game(stack("1134455799XX", "1233567799XX", pile="27", no_faceup=True), no_faceup=True)
    assert nf.round.faceup is None and len(nf.round.pile) == 12 and nf.round.pile[0] == "2"
    # the set-aside cards are never drawn: six draws take exactly the face-up card and the pile
    for _ in range(6):
        low = next(r for r in "123456789X" if g.round.hands[0]["123456789X".index(r)])
        g.apply(0, {"do": "play", "cards": low}, 1)
        g.apply(1, {"do": "pass"}, 1)
        g.apply(0, {"do": "draw", "take": "faceup"}, 1)
    drawn = counts_of(DECK[28:])
    held = [a + b for a, b in zip(g.round.hands[0], g.round.hands[1], strict=True)]
    start = [a + b for a, b in zip(counts_of(DECK[:12]), counts_of(DECK[12:24]), strict=True)]
    assert [h - s + p for h, s, p in zip(held, start, g.round.played, strict=True)] == drawn


def test_cs_start_seeded_first_then_fewer_points_then_alternate() -> None:
    assert CrispsGame(["a", "b"], seed=7).dealing.first_starter() in (0, 1)
    starters = {CrispsGame(["a", "b"], seed=s).dealing.first_starter() for s in range(20)}
    assert starters == {0, 1}
    g = game(starter=1)
    assert g.round.starter == 1 and g.due == (1, "lead")
    # later rounds: test_cs_point_and_cs_game_end_… and §11 case 8


def test_cs_lead_starter_leads_any_combination_and_may_not_pass() -> None:
    g = game()
    assert g.due == (0, "lead")
    assert rule_of(g, 0, {"do": "pass"}) == "CS-LEAD"
    g.apply(0, {"do": "play", "cards": "99"}, 1)
    g2 = game(stack("555123467889", "123467889XXX"))
    g2.apply(0, {"do": "play", "cards": "555"}, 1)  # a Special may lead
    assert g2.due == (1, "follow")


def test_cs_turn_only_the_due_seat_acts() -> None:
    g = game()
    assert rule_of(g, 1, {"do": "play", "cards": "1"}) == "CS-TURN"
    g.apply(0, {"do": "play", "cards": "1"}, 1)
    assert rule_of(g, 0, {"do": "play", "cards": "1"}) == "CS-TURN"


def test_cs_hand_only_cards_held() -> None:
    g = game()
    assert rule_of(g, 0, {"do": "play", "cards": "2"}) == "CS-HAND"
    assert rule_of(g, 0, {"do": "play", "cards": "111"}) == "CS-HAND"


def test_cs_pass_always_allowed_ends_trick_cs_trick_win() -> None:
    g = game()
    g.apply(0, {"do": "play", "cards": "1"}, 1)
    assert {"do": "pass"} in g.legal_moves(1)
    g.apply(1, {"do": "play", "cards": "2"}, 1)
    g.apply(0, {"do": "pass"}, 1)  # seat 0 could follow (3, 4, …) and passes all the same
    assert g.round.trick == [] and g.due == (1, "draw")  # the last player wins the trick
    g.apply(1, {"do": "draw", "take": "blind"}, 1)
    assert g.due == (1, "lead")  # the passer never leads next


def test_cs_out_ends_round_mid_trick_no_reply_no_draw() -> None:
    g = game(stack("1234599XXXX9", "112233445566"), starter=1)
    g.apply(1, {"do": "play", "cards": "112233445566"}, 1)
    assert g.points == [0, 1] and g.round_no == 2 and g.history[0]["winner"] == 1
    g = game(stack("X34567891234", "55667788999X"))
    g.apply(0, {"do": "play", "cards": "3"}, 1)
    assert g.due == (1, "follow")


def test_cs_draw_winner_chooses_passer_gets_other() -> None:
    g = game()
    g.apply(0, {"do": "play", "cards": "4"}, 1)
    g.apply(1, {"do": "pass"}, 1)
    assert g.due == (0, "draw")
    assert sorted(g.legal_moves(0), key=str) == [
        {"do": "draw", "take": "blind"},
        {"do": "draw", "take": "faceup"},
    ]
    assert rule_of(g, 0, {"do": "play", "cards": "1"}) == "CS-DRAW"
    assert rule_of(g, 0, {"do": "pass"}) == "CS-DRAW"
    g.apply(0, {"do": "draw", "take": "blind"}, 1)
    assert rule_of(g, 0, {"do": "draw", "take": "blind"}) == "CS-DRAW"


def test_cs_refill_and_cs_supply_twelve_ten_down_to_zero() -> None:
    g = game()
    seen = []
    for _ in range(6):
        low = next(r for r in "123456789X" if g.round.hands[0]["123456789X".index(r)])
        g.apply(0, {"do": "play", "cards": low}, 1)
        g.apply(1, {"do": "pass"}, 1)
        g.apply(0, {"do": "draw", "take": "faceup"}, 1)
        seen.append((g.round.supply(), g.round.faceup))
    assert [s for s, _ in seen] == [10, 8, 6, 4, 2, 0]
    assert seen[0][1] == "6" and seen[-1][1] is None
    assert all(f is not None for _, f in seen[:-1])


def test_cs_draw_empty_pass_then_lead_at_once() -> None:
    g = game()
    for _ in range(7):
        low = next(r for r in "123456789X" if g.round.hands[0]["123456789X".index(r)])
        g.apply(0, {"do": "play", "cards": low}, 1)
        g.apply(1, {"do": "pass"}, 1)
        if g.due == (0, "draw"):
            g.apply(0, {"do": "draw", "take": "faceup"}, 1)
    assert g.due == (0, "lead") and g.round.supply() == 0


def test_cs_point_and_cs_game_end_three_points_then_everything_refused() -> None:
    out0 = stack("112233445566", "77889999XXXX")  # seat 0 can go out at once
    out1 = stack("77889999XXXX", "112233445566")  # seat 1 can
    g = CrispsGame(["a", "b"], first_starter=0, decks=[out0, out1, out0, out1, out0])
    g.start()
    starters, outs = [], []
    for t in range(1, 6):
        assert g.due is not None
        seat = g.due[0]
        starters.append(seat)
        outs += g.apply(seat, {"do": "play", "cards": "112233445566"}, t)
    assert starters == [0, 1, 0, 1, 0]  # fewer points, else not the previous starter
    assert [h["points"] for h in g.history] == [[1, 0], [1, 1], [2, 1], [2, 2], [3, 2]]
    assert g.over and g.winner == 0 and g.due is None and g.next_deadline() is None
    over = [o.msg for o in outs if o.msg["type"] == "game_over"]
    assert over == [{"type": "game_over", "t": 5, "winner": 0, "points": [3, 2]}]
    assert rule_of(g, 0, {"do": "play", "cards": "1"}) == "CS-GAME-END"
    assert rule_of(g, 1, {"do": "pass"}) == "CS-GAME-END"
    assert rule_of(g, 0, {"do": "fly"}) == "CS-NOTATION"  # not well formed comes first
    assert g.legal_moves(0) == [] and g.legal_moves(1) == []


def test_cs_game_end_next_round_dealt_at_once_needs_a_deck() -> None:
    g = CrispsGame(["a", "b"], first_starter=0, decks=[stack("112233445566", "77889999XXXX")])
    g.start()
    with pytest.raises(ValueError, match="no deck for round 2"):
        g.apply(0, {"do": "play", "cards": "112233445566"}, 1)
    assert g.points == [0, 0] and g.actions == []  # nothing half applied
    seeded = CrispsGame(["a", "b"], seed=3, decks=[stack("112233445566", "77889999XXXX")])
    seeded.start()
    seeded.apply(0, {"do": "play", "cards": "112233445566"}, 1)
    assert seeded.round_no == 2 and seeded.due is not None  # dealt in the same step


def test_cs_opt_no_faceup_draws_by_themselves() -> None:
    g = game(stack("1134455799XX", "1233567799XX", pile="27", no_faceup=True), no_faceup=True)
    g.apply(0, {"do": "play", "cards": "4"}, 1)
    g.apply(1, {"do": "pass"}, 1)
    assert g.due == (0, "lead") and len(g.round.pile) == 10
    assert rule_of(g, 0, {"do": "draw", "take": "blind"}) == "CS-OPT-NO-FACEUP"


def test_cs_opt_skip_counts_only_played_cards() -> None:
    # seat 0 leads X: three Crisps unplayed (one in seat 0's own hand): no skip
    g = game(stack("X12345678912", "XXX123456789"), auto_skip=True)
    g.apply(0, {"do": "play", "cards": "X"}, 1)
    assert g.due == (1, "follow")
    # seat 0 leads XXXX: nothing can follow: skipped at once, seat 0 draws
    g = game(stack("XXXX12345678", "123456789123"), auto_skip=True)
    g.apply(0, {"do": "play", "cards": "XXXX"}, 1)
    assert g.due == (0, "draw")
    assert rule_of(g, 1, {"do": "pass"}) == "CS-TURN"


def test_cs_timing_without_timer_nothing_times_out() -> None:
    g = game()
    assert g.next_deadline() is None and g.advance(1e9) == []
    assert rule_of(g, 0, {"do": "timeout"}) == "CS-OPT-TIMER"


def test_cs_opt_timer_values() -> None:
    for bad in (10, 0, True, "30"):
        with pytest.raises(ValueError):
            CrispsOptions(timer=bad)  # type: ignore[arg-type]
    for ok in (30, 45, 60, None):
        assert CrispsOptions(timer=ok).timer == ok


def test_cs_timer_counted_from_when_due_and_exact_deadline() -> None:
    g = game(timer=45)
    assert g.next_deadline() == 45
    g.advance(12.5)
    g.apply(0, {"do": "play", "cards": "4"}, 12.5)
    assert g.next_deadline() == 57.5
    assert g.advance(57.499) == [] and g.due == (1, "follow")
    g.advance(57.5)  # at exactly the deadline: too late
    assert g.due == (0, "draw") and g.next_deadline() == 102.5


def test_cs_timeout_lead_plays_lowest_card_and_crisps_only_plays_x() -> None:
    g = game(stack("XXXX12345678", "123456789123"), timer=30)
    g.advance(30)
    assert g.round.trick[0][1].cards == "1"
    g = game(timer=30)
    g.advance(30)  # leads 1
    g.advance(60)  # pass
    g.advance(90)  # faceup
    assert g.actions[-1]["do"] == "timeout" and g.round.hands[0][7] == 1  # took the face-up 8


def test_cs_timeout_lead_may_empty_the_hand_and_win_the_round() -> None:
    g = game(stack("112233445588", "66677799XXXX"), timer=30)
    t = 0.0
    for lead in ["1122334455", "88", None, None, None, None]:
        t += 1
        assert g.due is not None and g.due[0] == 0
        low = next(r for r in "123456789X" if g.round.hands[0]["123456789X".index(r)])
        g.apply(0, {"do": "play", "cards": lead or low}, t)
        g.apply(1, {"do": "pass"}, t)
        g.apply(0, {"do": "draw", "take": "faceup"}, t)
    assert g.round.supply() == 0 and g.round.counts()[0] == 2
    g.advance(t + 30)  # the lowest card, as a single
    g.apply(1, {"do": "pass"}, t + 31)
    assert g.round.counts()[0] == 1 and g.due == (0, "lead") and g.deadline == t + 61
    outs = g.advance(t + 61)  # the last card: the hand is empty, the round is won
    assert [o.msg["type"] for o in outs if o.for_seat(None)][:2] == ["play", "round_end"]
    assert g.points == [1, 0] and g.round_no == 2 and g.history[0]["winner"] == 0


def test_cs_see_hand_own_hand_in_rank_order() -> None:
    g = game(stack("XX9911345457", "1233567799XX"))
    (r0,) = [
        o.msg
        for o in CrispsGame(["a", "b"], first_starter=0, decks=[g.round.deck]).start()
        if o.for_seat(0) and o.msg["type"] == "round"
    ]
    assert r0["hand"] == "1134455799XX"
    assert g.view(0)["hand"] == "1134455799XX" and "hand" not in g.view(None)


def test_cs_see_draw_blind_card_to_its_drawer_only() -> None:
    g = game()
    g.apply(0, {"do": "play", "cards": "4"}, 1)
    g.apply(1, {"do": "pass"}, 1)
    outs = g.apply(0, {"do": "draw", "take": "faceup"}, 1)
    got = {
        s: [o.msg for o in outs if o.for_seat(s) and o.msg["type"] == "draw"] for s in (0, 1, None)
    }
    assert got[1][0]["blind"] == "2" and "blind" not in got[0][0] and "blind" not in got[None][0]


def test_cs_see_public_everyone_sees_plays_points_counts() -> None:
    g = game()
    outs = g.apply(0, {"do": "play", "cards": "99"}, 1)
    for s in (0, 1, None):
        (p,) = [o.msg for o in outs if o.for_seat(s) and o.msg["type"] == "play"]
        assert p == {
            "type": "play",
            "t": 1,
            "seat": 0,
            "cards": "99",
            "kind": "pair",
            "rank": "9",
            "size": 2,
            "hands": [10, 12],
            "timeout": False,
        }
        v = g.view(s)
        assert v["trick"] == [{"seat": 0, "cards": "99", "kind": "pair", "rank": "9", "size": 2}]
        assert v["played"] == "99" and v["faceup"] == "8" and v["pile"] == 11
        assert v["hands"] == [10, 12] and v["set_aside"] == 4


def test_cs_see_end_loser_hand_and_set_aside_to_both() -> None:
    g = game(stack("112233445566", "77889999XXX3", aside="X123"))
    outs = g.apply(0, {"do": "play", "cards": "112233445566"}, 1)
    for s in (0, 1, None):
        (e,) = [o.msg for o in outs if o.for_seat(s) and o.msg["type"] == "round_end"]
        assert e["loser_hand"] == "377889999XXX" and e["set_aside"] == "123X"
        assert g.view(s)["last_round"]["set_aside"] == "123X"


def test_cs_no_trace_no_ids_and_only_counts_of_hidden_cards() -> None:
    msgs = [o.msg for o in CrispsGame(["a", "b"], first_starter=0, decks=[DECK]).start()]
    for m in msgs:
        assert not re.search(r'"(id|ids|index|hash|card_id|slot)"', json.dumps(m))
    watcher = [m for m in msgs if m["type"] == "round" and "hand" not in m]
    assert watcher and watcher[0]["hands"] == [12, 12] and watcher[0]["pile"] == 11


def test_refusal_order_of_section_10() -> None:
    g = game(timer=None)
    # not well formed comes before everything
    assert rule_of(g, 1, {"do": "fly"}) == "CS-NOTATION"
    assert rule_of(g, 0, {"do": "draw", "take": "top"}) == "CS-NOTATION"
    assert rule_of(g, 0, {"do": "play", "cards": ""}) == "CS-NOTATION"
    # the wrong seat before the timer, the draw, the hand
    assert rule_of(g, 1, {"do": "timeout"}) == "CS-TURN"
    assert rule_of(g, 0, {"do": "timeout"}) == "CS-OPT-TIMER"
    nf = game(stack("1134455799XX", "1233567799XX", pile="27", no_faceup=True), no_faceup=True)
    assert rule_of(nf, 0, {"do": "draw", "take": "blind"}) == "CS-OPT-NO-FACEUP"
    assert rule_of(g, 0, {"do": "draw", "take": "blind"}) == "CS-DRAW"
    assert rule_of(g, 0, {"do": "pass"}) == "CS-LEAD"
    # CS-HAND before CS-COMBO: 2 is not held, and 12 is no combination
    assert rule_of(g, 0, {"do": "play", "cards": "12"}) == "CS-HAND"
    assert rule_of(g, 0, {"do": "play", "cards": "13"}) == "CS-COMBO"
    assert (
        rule_of(game(stack("789X12345678", "123456789123")), 0, {"do": "play", "cards": "789X"})
        == "CS-CRISP-RUN"
    )
    g.apply(0, {"do": "play", "cards": "55"}, 1)
    assert rule_of(g, 1, {"do": "play", "cards": "3"}) == "CS-FOLLOW"
    assert rule_of(g, 1, {"do": "play", "cards": "1"}) == "CS-FOLLOW"


def test_every_rule_id_is_named_by_a_test() -> None:
    ids = set(re.findall(r"\*\*(CS-[A-Z-]+)\*\*", (ROOT / "docs/rules-crisps.md").read_text()))
    names = ""
    for path in ROOT.glob("tests/engine/crisps/test_crisps_rules_*.py"):
        names += " ".join(re.findall(r"def (test_\w+)", path.read_text()))
    missing = {i for i in ids if i.lower().replace("-", "_") not in names}
    assert not missing, sorted(missing)
