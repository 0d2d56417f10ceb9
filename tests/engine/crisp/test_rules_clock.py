"""docs/rules.md §6: the per-draw clock, timeouts, and drawing from the discard pile."""

from __future__ import annotations

import pytest
from engine_helpers import of_type, play_turn, stacked_game

from crisp.engine.crisp import IllegalAction, Options
from crisp.engine.crisp import actions as A

HANDS3 = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["7S", "8S", "9S"]]
TIMER30 = Options(timer=30)


def test_r_timer_counts_from_when_the_draw_is_due() -> None:
    """R-TIMER: from the turn's start (or 2 s after the previous turn), and per extra draw."""
    game, outs = stacked_game(HANDS3, ["2H", "KH", "3H"], options=TIMER30)
    assert of_type(outs, "turn", None)[-1]["deadline"] == 30.0
    outs = game.apply(A.Draw(0), 5)
    outs += game.apply(A.Discard(0), 6)
    turn = of_type(outs, "turn", None)[-1]
    assert (turn["seat"], turn["at"], turn["deadline"]) == (1, 8.0, 38.0)
    game.apply(A.Draw(1), 9)
    outs = game.apply(A.King(1), 12.5)
    turn = of_type(outs, "turn", None)[-1]
    assert (turn["draw"], turn["left"], turn["deadline"]) == (2, 2, 42.5)


def test_r_timeout_nothing_drawn_top_card_drawn_and_discarded() -> None:
    """R-TIMEOUT: nothing drawn yet: the top card is drawn and discarded for the player."""
    game, _ = stacked_game(HANDS3, ["9H"], options=TIMER30)
    outs = game.advance(30)
    assert of_type(outs, "timeout", 1)[0] == {
        "type": "timeout",
        "t": 30.0,
        "seat": 0,
        "card": "9H",
        "lost": 0,
    }
    assert game.round.pile == ["9H"] and game.round.turn == 1


def test_r_timeout_recycles_first_when_the_deck_is_empty() -> None:
    """R-TIMEOUT, R-RECYCLE: the top card is drawn after recycling if the deck is empty."""
    game, _ = stacked_game(HANDS3, [], options=TIMER30)
    r = game.round
    r.pile, r.deck = r.deck[::-1], []
    outs = game.advance(30)
    assert [o.msg["type"] for o in outs] == ["recycle", "timeout", "turn_end", "turn"]


def test_r_timeout_drawn_special_discarded_without_effect() -> None:
    """R-TIMEOUT (§8.3): KS used; QD drawn in the first extra draw; time runs out: QD is
    discarded without effect, the second extra draw is lost, no window opens."""
    game, _ = stacked_game(HANDS3, ["KS", "QD", "5H"], options=TIMER30)
    game.apply(A.Draw(0), 1)
    game.apply(A.King(0), 2)
    game.apply(A.Draw(0), 3)
    outs = game.advance(32)
    timeout = of_type(outs, "timeout", None)[0]
    assert (timeout["card"], timeout["lost"]) == ("QD", 1)
    assert of_type(outs, "turn_end", None)[0]["window_until"] is None
    assert game.round.pile == ["KS", "QD"] and game.round.hands[0] == HANDS3[0]
    assert game.round.turn == 1


def test_r_timeout_king_held_gives_no_extra_draws() -> None:
    """R-TIMEOUT: a King drawn and not played is discarded, and gives no extra draws."""
    game, _ = stacked_game(HANDS3, ["KS"], options=TIMER30)
    game.apply(A.Draw(0), 1)
    outs = game.advance(30)
    assert of_type(outs, "timeout", None)[0]["lost"] == 0
    assert game.round.turn == 1 and game.round.left == 1


def test_r_timeout_between_extra_draws_loses_them_all() -> None:
    """R-TIMEOUT: an extra draw not drawn yet: no card is drawn, the remaining draws are lost."""
    game, _ = stacked_game(HANDS3, ["KS", "5H"], options=TIMER30)
    game.apply(A.Draw(0), 1)
    game.apply(A.King(0), 2)
    outs = game.advance(32)
    timeout = of_type(outs, "timeout", None)[0]
    assert (timeout["card"], timeout["lost"]) == (None, 2)
    assert game.round.pile == ["KS"]


def test_r_edges_action_at_exactly_the_deadline_is_too_late() -> None:
    """R-EDGES: an action at exactly a draw's deadline comes after the timeout."""
    game, _ = stacked_game(HANDS3, ["5H"], options=TIMER30)
    game.apply(A.Draw(0), 1)
    with pytest.raises(IllegalAction) as err:
        game.apply(A.Swap(0, 0), 30)
    assert err.value.rule == "R-TURN"
    assert game.round.turn == 1 and game.round.pile == ["5H"]
    game, _ = stacked_game(HANDS3, ["5H"], options=TIMER30)
    game.apply(A.Draw(0), 1)
    game.apply(A.Swap(0, 0), 29.999)
    assert game.round.hands[0][0] == "5H"


def test_r_opt_timer_none_never_times_out() -> None:
    """R-OPT-TIMER: with no time per draw there is no deadline."""
    game, outs = stacked_game(HANDS3, ["5H"])
    assert of_type(outs, "turn", None)[-1]["deadline"] is None
    assert game.next_deadline() is None
    assert game.advance(10_000) == []


def test_r_take_discard_worked_case_king_back() -> None:
    """R-TAKE-DISCARD (§8.7): KC used; the first extra draw takes KC back into the right slot:
    it counts 10 there and gives no extra draws."""
    game, _ = stacked_game(HANDS3, ["KC", "5H"], options=Options(take_discard=True))
    game.apply(A.Draw(0), 1)
    game.apply(A.King(0), 1)
    outs = game.apply(A.TakeDiscard(0, 2), 2)
    assert of_type(outs, "take", None)[0] == {
        "type": "take",
        "t": 2.0,
        "seat": 0,
        "slot": "right",
        "card": "3S",
    }
    r = game.round
    assert r.hands[0] == ["AS", "2S", "KC"] and r.pile == ["3S"] and r.left == 1
    play_turn(game, 0, 3)
    assert r.turn == 1  # no extra draws from the taken King


def test_r_take_discard_must_draw_from_an_empty_pile() -> None:
    """R-TAKE-DISCARD: an empty pile cannot be taken from."""
    game, _ = stacked_game(HANDS3, ["5H"], options=Options(take_discard=True))
    with pytest.raises(IllegalAction) as err:
        game.apply(A.TakeDiscard(0, 0), 1)
    assert err.value.rule == "R-TAKE-DISCARD"
    assert all(not isinstance(a, A.TakeDiscard) for a in game.legal_actions(0))


def test_r_take_discard_with_an_empty_deck_does_not_recycle() -> None:
    """R-TAKE-DISCARD: facing an empty deck a player may take; the deck is not recycled."""
    game, _ = stacked_game(HANDS3, [], options=Options(take_discard=True))
    r = game.round
    r.pile, r.deck = r.deck[::-1], []
    top = r.pile[-1]
    outs = game.apply(A.TakeDiscard(0, 1), 1)
    assert of_type(outs, "recycle", None) == []
    assert r.hands[0][1] == top and r.deck == []


def test_r_opt_discard_off_refuses_takes() -> None:
    """R-OPT-DISCARD: without the host's option, no take from the discard pile."""
    game, _ = stacked_game(HANDS3, ["5H", "6H"])
    play_turn(game, 0, 0)
    with pytest.raises(IllegalAction) as err:
        game.apply(A.TakeDiscard(1, 0), 2)
    assert err.value.rule == "R-OPT-DISCARD"


def test_refusal_hands_on_the_messages_of_deadlines_that_passed() -> None:
    """A refused action at t still lets the clock's deadlines before t happen, with messages."""
    game, _ = stacked_game(HANDS3, ["5H", "6H"], options=TIMER30)
    with pytest.raises(IllegalAction) as err:
        game.apply(A.Draw(0), 31)  # seat 0 timed out at 30: it is seat 1's turn now
    assert err.value.rule == "R-TURN"
    assert [o.msg["type"] for o in err.value.outs] == ["timeout", "turn_end", "turn"]
    assert game.advance(31) == []  # nothing is delivered twice
