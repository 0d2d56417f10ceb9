"""docs/rules-crisps.md §11: every worked case, as a stacked-deck record replayed by the engine, its
result worked out by hand. A refusal is checked by replaying the record with the refused action
added: it must fail with the rule id, and the game without it must be what it was."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from crisps_kit import draw, of_type, pass_, play, record, stack, timeout

from crisp.engine.crisps.record import ReplayError, replay


def refused(rec: dict[str, Any], action: dict[str, Any]) -> str:
    """The rule id refusing ``action`` after ``rec``'s actions; the game stays as it was."""
    before = replay(rec).game
    views = [before.view(s) for s in (0, 1, None)]
    longer = copy.deepcopy(rec)
    longer["actions"].append(action)
    with pytest.raises(ReplayError) as err:
        replay(longer)
    try:  # the same refusal straight on the game: it changes nothing
        before.apply(action["seat"], {k: v for k, v in action.items() if k != "seat"}, 1.0)
    except Exception as direct:
        assert getattr(direct, "rule", None) == err.value.rule
    else:
        raise AssertionError("the engine accepted what the replay refused")
    assert [before.view(s) for s in (0, 1, None)] == views
    assert before.record() == replay(rec).game.record()
    return err.value.rule


def msgs(rec: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    return [o.msg for o in replay(rec).outs if o.for_seat(seat)]


# -- 1. Match, then bomb -------------------------------------------------------------------------

CASE1 = stack("22223456788X", "11134567999X")


def test_case1_match_then_bomb_cs_follow_cs_special() -> None:
    rec = record(
        [CASE1], [play(0, "7"), play(1, "X"), play(0, "X"), play(1, "111"), play(0, "2222")]
    )
    game = replay(rec).game
    assert [(s, c.cards) for s, c in game.round.trick] == [
        (0, "7"),
        (1, "X"),
        (0, "X"),
        (1, "111"),
        (0, "2222"),
    ]
    assert game.due == (1, "follow")
    assert game.round.hands[0] == [0, 0, 1, 1, 1, 1, 0, 2, 0, 0]  # 345688 left
    lead8 = record([CASE1], [play(0, "8")])
    assert refused(lead8, play(1, "111")) == "CS-SPECIAL"
    assert refused(lead8, play(1, "7")) == "CS-FOLLOW"


# -- 2. Special on Special -----------------------------------------------------------------------

CASE2 = stack("125557899XXX", "123333444666")


def test_case2_special_on_special_cs_special() -> None:
    rec = record([CASE2], [play(0, "555")])
    assert refused(rec, play(1, "444")) == "CS-SPECIAL"
    rec["actions"].append(play(1, "666"))
    assert refused(rec, play(0, "XX")) == "CS-FOLLOW"
    rec["actions"].append(play(0, "XXX"))
    rec["actions"].append(play(1, "3333"))
    game = replay(rec).game
    assert [c.cards for _, c in game.round.trick] == ["555", "666", "XXX", "3333"]
    assert game.due == (0, "follow")


# -- 3. Lengths ----------------------------------------------------------------------------------

CASE3 = stack("11133447899X", "223344556677")


def test_case3_lengths_cs_follow() -> None:
    rec = record([CASE3], [play(0, "3344")])
    assert refused(rec, play(1, "44556677")) == "CS-FOLLOW"
    assert refused(rec, play(1, "2233")) == "CS-FOLLOW"
    rec["actions"].append(play(1, "4455"))
    assert refused(rec, play(0, "789")) == "CS-FOLLOW"
    assert replay(rec).game.due == (0, "follow")


# -- 4. Crisps in runs ---------------------------------------------------------------------------

CASE4 = stack("12233456789X", "111445566778")


def test_case4_crisps_in_runs_cs_crisp_run_cs_opt_crisp_runs() -> None:
    assert refused(record([CASE4], []), play(0, "789X")) == "CS-CRISP-RUN"
    assert refused(record([CASE4], [], crisp_runs=True), play(0, "19X")) == "CS-COMBO"
    rec = record([CASE4], [play(0, "789X"), play(1, "111")], crisp_runs=True)
    game = replay(rec).game
    assert [c.kind for _, c in game.round.trick] == ["run", "three"]


# -- 5. The draw ---------------------------------------------------------------------------------

CASE5_HANDS = ("1134455799XX", "1233567799XX")
CASE5 = stack(*CASE5_HANDS, faceup="8", pile="26")


def test_case5_the_draw_cs_draw_cs_refill_cs_see_draw() -> None:
    rec = record([CASE5], [play(0, "4"), pass_(1), draw(0, "faceup")])
    game = replay(rec).game
    assert game.round.hands[0][7] == 1  # the 8
    assert game.round.hands[1][1] == 2  # a second 2
    assert game.round.faceup == "6"
    assert game.due == (0, "lead")
    for seat in (0, None):
        (d,) = of_type(msgs(rec, seat), "draw")
        assert "blind" not in d and d["faceup"] == "8" and d["new_faceup"] == "6"
    (d1,) = of_type(msgs(rec, 1), "draw")
    assert d1["blind"] == "2"
    blind = record([CASE5], [play(0, "4"), pass_(1), draw(0, "blind")])
    game = replay(blind).game
    assert game.round.hands[0][1] == 1 and game.round.hands[1][7] == 1
    assert game.round.faceup == "6"
    (d0,) = of_type(msgs(blind, 0), "draw")
    assert d0["blind"] == "2" and "blind" not in of_type(msgs(blind, 1), "draw")[0]


# -- 6. No face-up draw --------------------------------------------------------------------------


def test_case6_no_faceup_draw_cs_opt_no_faceup() -> None:
    deck = stack(*CASE5_HANDS, pile="27", no_faceup=True)
    rec = record([deck], [play(0, "4"), pass_(1)], no_faceup=True)
    game = replay(rec).game
    assert game.round.faceup is None
    assert game.round.hands[0][1] == 1 and game.round.hands[1][6] == 3  # a 2; a third 7
    assert game.due == (0, "lead")
    assert refused(rec, draw(0, "faceup")) == "CS-OPT-NO-FACEUP"
    (d0,) = of_type(msgs(rec, 0), "draw")
    (d1,) = of_type(msgs(rec, 1), "draw")
    (dw,) = of_type(msgs(rec, None), "draw")
    assert (d0["blind"], d1["blind"], d0["take"]) == ("2", "7", None)
    assert "blind" not in dw


# -- 7. Empty supply -----------------------------------------------------------------------------


def test_case7_empty_supply_cs_supply_cs_draw_empty() -> None:
    hand0 = list("1134455799XX")
    actions: list[dict[str, Any]] = []
    game = replay(record([CASE5], [])).game
    for _ in range(6):
        low = next(r for r in "123456789X" if game.round.hands[0]["123456789X".index(r)])
        actions += [play(0, low), pass_(1), draw(0, "faceup")]
        game = replay(record([CASE5], actions)).game
    del hand0
    assert game.round.counts() == [12, 18]
    assert game.round.supply() == 0 and game.round.faceup is None
    low = next(r for r in "123456789X" if game.round.hands[0]["123456789X".index(r)])
    actions += [play(0, low), pass_(1)]
    rec = record([CASE5], actions)
    game = replay(rec).game
    assert game.due == (0, "lead") and game.round.counts() == [11, 18]
    assert refused(rec, draw(0, "faceup")) == "CS-DRAW"


# -- 8. Going out, and who starts ----------------------------------------------------------------


def test_case8_going_out_and_who_starts_cs_out_cs_start_cs_point() -> None:
    r1 = stack("112233445566", "77889999XXXX")
    r2 = stack("777888XXXX34", "112233445569", faceup="6")
    r3 = stack("123456789X12", "3456789X1234")
    actions = [
        play(0, "112233445566"),
        play(1, "9"),
        pass_(0),
        draw(1, "faceup"),
        play(1, "112233445566"),
    ]
    rep = replay(record([r1, r2, r3], actions))
    assert rep.result == {
        "game": "crisps",
        "rounds": [
            {"starter": 0, "winner": 0, "scores": [1, 0]},
            {"starter": 1, "winner": 1, "scores": [1, 1]},
            {"starter": 0, "winner": None, "scores": None},
        ],
        "scores": [1, 1],
        "over": False,
        "winner": None,
    }
    ends = of_type([o.msg for o in rep.outs], "round_end")
    assert ends[0]["loser_hand"] == "77889999XXXX" and ends[0]["points"] == [1, 0]
    # round 1 ended before seat 1 played: no turn for seat 1 in round 1 but its lead of round 2
    assert rep.game.due == (0, "lead")


# -- 9. Timeouts ---------------------------------------------------------------------------------


def test_case9_timeouts_cs_timeout_cs_timer() -> None:
    deck = stack("2234567899XX", "111345667788", faceup="5")
    rec = record([deck], [timeout(0, 30), timeout(1, 60), timeout(0, 90)], timer=30)
    rep = replay(rec)
    out = [o.msg for o in rep.outs if o.for_seat(None)]
    (p,) = of_type(out, "play")
    assert (p["seat"], p["cards"], p["timeout"]) == (0, "2", True)
    (ps,) = of_type(out, "pass")
    assert (ps["seat"], ps["timeout"], ps["skipped"]) == (1, True, False)
    (d,) = of_type(out, "draw")
    assert (d["seat"], d["take"], d["faceup"], d["timeout"]) == (0, "faceup", "5", True)
    assert rep.game.due == (0, "lead") and rep.game.deadline == 120
    # the same through the clock: advance applies each timeout at its own deadline
    from crisp.engine.crisps import CrispsGame, CrispsOptions

    game = CrispsGame(["Ana", "Ben"], CrispsOptions(timer=30), first_starter=0, decks=[deck])
    game.start()
    assert game.advance(29.999) == []
    game.advance(90)  # 30: the lead, 60: the pass, 90: the draw (at exactly the deadline)
    assert game.actions == [
        {"seat": 0, "do": "timeout", "t": 30},
        {"seat": 1, "do": "timeout", "t": 60},
        {"seat": 0, "do": "timeout", "t": 90},
    ]
    assert game.record()["actions"] == rep.game.record()["actions"]


# -- 10. Automatic skip --------------------------------------------------------------------------

CASE10 = stack("999123456781", "9XXXX1234567", faceup="2", pile="3345")


def test_case10_automatic_skip_cs_opt_skip() -> None:
    actions = [
        play(0, "9"),
        play(1, "9"),
        play(0, "9"),
        play(1, "X"),
        pass_(0),
        draw(1, "faceup"),
        play(1, "XXX"),
        pass_(0),
        draw(1, "faceup"),
        play(1, "1"),
        play(0, "9"),
    ]
    rec = record([CASE10], actions, auto_skip=True)
    game = replay(rec).game
    assert game.due == (0, "draw")
    passes = of_type(msgs(rec, None), "pass")
    last = {k: v for k, v in passes[-1].items() if k != "t"}  # t: the game time it was made
    assert last == {"type": "pass", "seat": 1, "skipped": True, "timeout": False}
    assert [p["skipped"] for p in passes] == [False, False, True]
    assert refused(rec, pass_(1)) == "CS-TURN"


def test_case10_unplayed_crisp_set_aside_means_no_skip_cs_opt_skip() -> None:
    deck = stack("999123456781", "9XXX12345671", aside="X", faceup="2", pile="3345")
    actions = [
        play(0, "9"),
        play(1, "9"),
        play(0, "9"),
        play(1, "X"),
        pass_(0),
        draw(1, "faceup"),
        play(1, "XX"),
        pass_(0),
        draw(1, "faceup"),
        play(1, "1"),
        play(0, "9"),
    ]
    game = replay(record([deck], actions, auto_skip=True)).game
    assert game.due == (1, "follow")
    assert game.legal_moves(1) == [{"do": "pass"}]


def test_case5_a_faceup_card_taken_stays_known_cs_see_public() -> None:
    """CS-SEE-PUBLIC: "a face-up card taken stays known to both" — in every view (a phone that
    reconnects, a bot taking a seat over), until its taker plays it."""
    rec = record([CASE5], [play(0, "4"), pass_(1), draw(0, "faceup")])
    game = replay(rec).game
    for seat in (0, 1, None):
        assert game.view(seat)["known"] == ["8", ""]
    blind = replay(record([CASE5], [play(0, "4"), pass_(1), draw(0, "blind")])).game
    assert blind.view(0)["known"] == ["", "8"]  # the passer got it, in sight of both
    then = replay(record([CASE5], [play(0, "4"), pass_(1), draw(0, "faceup"), play(0, "8")]))
    assert then.game.view(1)["known"] == ["", ""]  # played: no longer in the hand
