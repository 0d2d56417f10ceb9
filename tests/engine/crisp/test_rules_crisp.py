"""docs/rules.md §4 and §6: calling crisp, the window and its edges, the final turns, the look
phase."""

from __future__ import annotations

import pytest
from engine_helpers import of_type, play_turn, stacked_game

from crisp.engine.crisp import IllegalAction
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.game import Game

HANDS3 = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["7S", "8S", "9S"]]
DRAWS = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]


def refused(game: Game, action: A.Action, t: float) -> str:
    with pytest.raises(IllegalAction) as err:
        game.apply(action, t)
    return err.value.rule


def test_r_crisp_only_the_player_whose_turn_just_ended() -> None:
    """R-CRISP: only the player whose turn has just ended may call."""
    game, _ = stacked_game(HANDS3, DRAWS)
    assert refused(game, A.Crisp(0), 0) == "R-CRISP"  # before any turn
    play_turn(game, 0, 0)  # ends at t = 0
    assert refused(game, A.Crisp(1), 0.5) == "R-CRISP"
    assert refused(game, A.Crisp(2), 0.5) == "R-CRISP"
    assert A.Crisp(0) in game.legal_actions(0)
    outs = game.apply(A.Crisp(0), 0.5)
    assert of_type(outs, "crisp", None)[0]["final"] == [1, 2]


def test_r_crisp_once_and_not_during_final_turns() -> None:
    """R-CRISP-ONCE: one call per round; nobody calls during the final turns."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 1)
    assert refused(game, A.Crisp(0), 1.5) == "R-CRISP-ONCE"
    play_turn(game, 1, 2)
    assert refused(game, A.Crisp(1), 2.5) == "R-CRISP-ONCE"


def test_r_final_turns_every_other_player_once_then_reveal() -> None:
    """R-FINAL-TURNS: every other player plays exactly one final turn, then all is revealed."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 1)
    assert game.round.turn == 1
    outs = game.apply(A.Draw(1), 2)  # may start at 2 s: the window the caller used
    assert of_type(outs, "draw", 0)[0]["seat"] == 1
    outs = game.apply(A.Discard(1), 2)
    end = of_type(outs, "turn_end", None)[0]
    assert end["window_until"] is None and end["next_at"] == 2.0  # R-WINDOW-NONE
    play_turn(game, 2, 2)
    assert game.round.over
    with pytest.raises(IllegalAction) as err:
        game.apply(A.Draw(0), 3)
    assert err.value.rule == "R-FINAL-TURNS"


def test_r_final_turns_caller_can_be_queened() -> None:
    """R-FINAL-TURNS, R-QUEEN-TARGET: the caller is still a Queen target in the final turns."""
    game, _ = stacked_game(HANDS3, ["2H", "QD"])
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 1)
    game.apply(A.Draw(1), 2)
    game.apply(A.Queen(1, 0, 0, 1), 2)
    assert game.round.hands[0][1] == "4S" and game.round.hands[1][0] == "2S"


def test_r_window_late_call_worked_case() -> None:
    """R-WINDOW (§8.5): seat 1 draws at 2.4, seat 0 calls at 2.8: seat 1's turn is final."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    game.apply(A.Draw(1), 2.4)
    game.apply(A.Crisp(0), 2.8)
    game.apply(A.Discard(1), 3.5)
    assert refused(game, A.Crisp(1), 3.6) == "R-CRISP-ONCE"
    assert game.round.turn == 2
    play_turn(game, 2, 3.6)
    assert game.round.over and game.round.caller == 0


def test_r_window_closed_early_worked_case() -> None:
    """R-WINDOW (§8.6): seat 1 draws at 2.1, discards at 2.5: seat 0's call at 2.8 is refused."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    game.apply(A.Draw(1), 2.1)
    game.apply(A.Discard(1), 2.5)
    assert refused(game, A.Crisp(0), 2.8) == "R-WINDOW"
    assert A.Crisp(1) in game.legal_actions(1)
    game.apply(A.Crisp(1), 2.8)
    assert game.round.caller == 1


def test_r_window_closed_early_sends_window_closed_before_the_turn_end() -> None:
    """R-WINDOW: seat 0's window closes as soon as seat 1's turn ends (2.5 s, before its 3 s):
    ``window_closed`` says so, just before seat 1's ``turn_end`` (its own window opening)."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    game.apply(A.Draw(1), 2.1)
    outs = game.apply(A.Discard(1), 2.5)
    kinds = [o.msg["type"] for o in outs]
    assert kinds == ["discard", "window_closed", "turn_end", "turn"]
    assert outs[1].msg == {"type": "window_closed", "t": 2.5, "seat": 0}
    assert outs[1].to is None  # to everyone
    assert game.next_deadline() == 5.5  # seat 1's window; seat 0's closes only once
    assert [o.msg["type"] for o in game.advance(5.5)] == ["window_closed"]


def test_r_crisp_not_by_a_seat_whose_window_closed_earlier_in_the_round() -> None:
    """R-CRISP, not R-WINDOW: seat 0's window closed at 3 s and seat 1's turn has ended since;
    seat 0's turn is not the one that just ended, so its call is refused as R-CRISP. The seat
    whose window the latest turn's end closed early still gets R-WINDOW (its window closed)."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    game.advance(3)  # seat 0's window closes by time
    play_turn(game, 1, 3)  # seat 1's turn ends at 3 s: its window is open until 6 s
    assert refused(game, A.Crisp(0), 3.5) == "R-CRISP"
    game.apply(A.Draw(2), 5)
    game.apply(A.Discard(2), 5.5)  # closes seat 1's window early
    assert refused(game, A.Crisp(1), 5.6) == "R-WINDOW"
    assert refused(game, A.Crisp(0), 5.6) == "R-CRISP"  # seat 0's turn is due, not begun


def test_r_edges_call_at_exactly_three_seconds_is_late() -> None:
    """R-EDGES: a call at exactly 3 s is too late; at 2.999 s it counts."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 6.2)
    assert refused(game, A.Crisp(0), 9.2) == "R-WINDOW"
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 6.2)
    game.apply(A.Crisp(0), 9.199)
    assert game.round.caller == 0


def test_r_edges_next_player_at_exactly_two_seconds() -> None:
    """R-EDGES, R-WINDOW: 6.2 + 2 is exactly 8.2: a draw then is allowed, at 8.199 refused."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 6.2)
    assert refused(game, A.Draw(1), 8.199) == "R-WINDOW"
    game.apply(A.Draw(1), 8.2)
    assert game.round.held == "3H"


def test_r_window_closes_with_a_message_when_time_runs_out() -> None:
    """R-WINDOW: with no call, the window closes at 3 s (announced to everyone)."""
    game, _ = stacked_game(HANDS3, DRAWS)
    play_turn(game, 0, 0)
    assert game.next_deadline() == 3.0
    outs = game.advance(3)
    assert of_type(outs, "window_closed", None) == [{"type": "window_closed", "t": 3.0, "seat": 0}]
    assert game.legal_actions(0) == []


def test_r_window_none_after_timeout() -> None:
    """R-WINDOW-NONE: a turn that timed out opens no window; the next player starts at once."""
    from crisp.engine.crisp import Options

    game, _ = stacked_game(HANDS3, DRAWS, options=Options(timer=30))
    outs = game.advance(30)
    assert of_type(outs, "timeout", None)[0]["card"] == "2H"
    end = of_type(outs, "turn_end", None)[0]
    assert end["window_until"] is None and end["next_at"] == 30.0
    assert refused(game, A.Crisp(0), 30) == "R-WINDOW-NONE"
    game.apply(A.Draw(1), 30)


def test_r_no_call_round_goes_on() -> None:
    """R-NO-CALL: without a call nothing ends the round; the look ends and turns go round."""
    game, _ = stacked_game(HANDS3, DRAWS)
    t = 0.0
    for turn in range(6):
        play_turn(game, turn % 3, t)
        t += 2
    assert not game.round.over and game.round.turn == 0


def test_r_look_phase_all_ready_or_ten_seconds() -> None:
    """R-LOOK-PHASE: the first turn starts when every seat is ready, or at exactly 10 s."""
    game, _ = stacked_game(HANDS3, DRAWS, ready=False)
    assert refused(game, A.Draw(0), 0.5) == "R-LOOK-PHASE"
    game.apply(A.Ready(1), 1)
    assert refused(game, A.Ready(1), 2) == "R-LOOK-PHASE"
    assert refused(game, A.Draw(0), 9.999) == "R-LOOK-PHASE"
    outs = game.advance(10)
    assert of_type(outs, "turn", None)[0]["at"] == 10.0
    assert refused(game, A.Ready(0), 10) == "R-LOOK-PHASE"
    game.apply(A.Draw(0), 10)

    game, _ = stacked_game(HANDS3, DRAWS, ready=False)
    for seat in range(3):
        outs = game.apply(A.Ready(seat), 1 + seat)
    assert of_type(outs, "turn", None)[0]["at"] == 3.0
    game.apply(A.Draw(0), 3)


def test_two_players_worked_case() -> None:
    """R-FINAL-TURNS (§8.9): with two players, seat 0 calls, seat 1 plays one final turn."""
    game, _ = stacked_game([["AS", "2S", "3S"], ["4S", "5S", "6S"]], DRAWS)
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 2.5)
    play_turn(game, 1, 2.5)
    assert game.round.over
    assert game.result()["rounds"][0]["scores"] == [1 + 2 + 3 - 5, 4 + 5 + 6]
