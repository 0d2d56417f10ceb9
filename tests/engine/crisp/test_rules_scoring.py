"""docs/rules.md §5: round scores, the caller's ±5, cumulative totals and the end of the game."""

from __future__ import annotations

import pytest
from engine_helpers import of_type, play_turn, stacked_game
from stacking import deal_deck

from crisp.engine.crisp import Game, IllegalAction, Options
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.scoring import game_winners, hand_total, round_scores


def test_r_round_score_is_the_hand_total() -> None:
    """R-ROUND-SCORE: the total of the three cards (R-VALUE: J Q K count 10 in a hand)."""
    assert hand_total(["AS", "KD", "7C"]) == 18
    assert round_scores([["AS", "2S", "3S"], ["QS", "JD", "TC"]], None) == [6, 30]


def test_r_caller_bonus() -> None:
    """R-CALLER-BONUS: strictly lowest -5 (can go negative); a tie or higher +5 (§8.8)."""
    assert round_scores([["AS", "AH", "2C"], ["9S", "9H", "9D"]], 0) == [-1, 27]
    assert round_scores([["5S", "5H", "2C"], ["4S", "4H", "4D"]], 0) == [17, 12]  # tie: 12 + 5
    assert round_scores([["9S", "9H", "9C"], ["4S", "4H", "4D"]], 0) == [32, 12]


def test_r_game_end_and_tied_winners() -> None:
    """R-GAME-END (§8.10): limit 50, totals 51 38 38: the game ends; seats 1 and 2 both win."""
    assert game_winners([51, 38, 38], 50) == [1, 2]
    assert game_winners([49, 38, 38], 50) is None
    assert game_winners([50, 60, 70], 50) == [0]


def _round(game: Game, hands: list[list[str]], dealer: int, caller: int) -> list:  # type: ignore[type-arg]
    """Deal ``hands``, let every seat discard once, ``caller`` calls; returns the outs."""
    n = len(hands)
    outs = game.start_round(deal_deck(dealer, hands, ["6C", "7C", "6D", "7D", "8D", "6H"]), dealer)
    for seat in range(n):
        outs += game.apply(A.Ready(seat), 0)
    seat = (dealer + 1) % n
    t = 0.0
    while not game.round.over:
        game.apply(A.Draw(seat), t)
        outs += game.apply(A.Discard(seat), t)
        if seat == caller and game.round.caller is None:
            outs += game.apply(A.Crisp(seat), t)
        seat = (seat + 1) % n
        t += 2.0
    return outs


def test_r_cumulative_scores_and_game_end_at_the_limit() -> None:
    """R-CUMULATIVE, R-GAME-END, R-OPT-LIMIT, R-DEALER: totals add up round after round; the game
    ends at the end of the round where a total reaches the limit; tied lowest totals all win."""
    game = Game(["a", "b", "c"], Options(limit=50))
    high = [["TS", "TH", "TD"], ["9S", "9H", "9D"], ["9C", "8S", "AD"]]
    outs = _round(game, high, dealer=2, caller=2)  # 30, 27 and the caller 18, strictly lowest
    assert of_type(outs, "reveal", None)[0]["scores"] == [30, 27, 13]
    outs = _round(game, [["KS", "QS", "JS"], ["AS", "2S", "3S"], ["4S", "5S", "AC"]], 0, 1)
    reveal = of_type(outs, "reveal", None)[0]
    assert reveal["scores"] == [30, 1, 10] and reveal["totals"] == [60, 28, 23]
    over = of_type(outs, "game_over", 2)[0]
    assert game.over and over["winners"] == [2] and over["totals"] == [60, 28, 23]
    with pytest.raises(IllegalAction) as err:
        game.start_round()
    assert err.value.rule == "R-GAME-END"
    assert game.result()["over"] is True and game.result()["winners"] == [2]


def test_r_game_end_tie_winners_through_play() -> None:
    """R-GAME-END: players tied for the lowest total all win."""
    game = Game(["a", "b", "c"], Options(limit=50))
    outs = _round(game, [["KS", "QS", "JS"], ["KH", "QH", "JH"], ["KD", "QD", "JD"]], 2, 0)
    outs = _round(game, [["2S", "2H", "AS"], ["4S", "4H", "4D"], ["4C", "5S", "3D"]], 0, 0)
    reveal = of_type(outs, "reveal", None)[0]
    assert reveal["totals"] == [35 + 0, 30 + 12, 30 + 12]  # the caller's 5 - 5
    assert game.over is False
    outs = _round(game, [["TS", "TH", "TD"], ["AS", "AH", "2S"], ["AD", "AC", "2H"]], 1, 0)
    assert game.totals == [35 + 35, 42 + 4, 42 + 4]
    assert game.over and game.winners == [1, 2]
    assert of_type(outs, "game_over", None)[0]["winners"] == [1, 2]


def test_caller_tie_through_play() -> None:
    """R-CALLER-BONUS (§8.8): caller 12 and another 12: the caller scores 17."""
    game, _ = stacked_game([["5S", "5H", "2C"], ["4S", "4H", "4D"]], ["9H", "8H"])
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 1)
    game.apply(A.Draw(1), 2)
    outs = game.apply(A.Discard(1), 2)
    assert of_type(outs, "reveal", 0)[0]["scores"] == [17, 12]
