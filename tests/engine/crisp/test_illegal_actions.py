"""Every class of illegal action is refused with its rule id and changes nothing (legality)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from engine_helpers import play_turn, snapshot, stacked_game

from crisp.engine.crisp import Game, IllegalAction, Options
from crisp.engine.crisp import actions as A

HANDS = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["7S", "8S", "9S"]]


def fresh(draws: list[str], *, options: Options | None = None, ready: bool = True) -> Game:
    return stacked_game(HANDS, draws, options=options, ready=ready)[0]


def holding(card: str, options: Options | None = None) -> Game:
    game = fresh([card], options=options)
    game.apply(A.Draw(0), 1)
    return game


def after_turn() -> Game:
    game = fresh(["2H", "3H", "4H"])
    play_turn(game, 0, 1)  # seat 0's turn ends at t = 1; its window is open until 4
    return game


def called() -> Game:
    game = after_turn()
    game.apply(A.Crisp(0), 1.5)
    return game


def timed_out() -> Game:
    game = fresh(["2H"], options=Options(timer=30))
    game.advance(30)
    return game


def round_over() -> Game:
    game = called()
    for seat in (1, 2):
        play_turn(game, seat, 3)
    return game


def game_over() -> Game:
    from crisp.engine.crisp.simulate import play_random

    game = play_random(2, Options(limit=50), seed=1)
    assert game.over
    return game


def ready_once() -> Game:
    game = fresh([], ready=False)
    game.apply(A.Ready(0), 0.5)
    return game


Setup = Callable[[], Game]
CASES: list[tuple[str, Setup, A.Action, float, str]] = [
    ("seat outside the table", lambda: fresh([]), A.Draw(3), 1, "R-PLAYERS"),
    ("draw during the look", lambda: fresh([], ready=False), A.Draw(0), 1, "R-LOOK-PHASE"),
    ("ready twice", ready_once, A.Ready(0), 1, "R-LOOK-PHASE"),
    ("ready after the look", lambda: fresh([]), A.Ready(0), 1, "R-LOOK-PHASE"),
    ("draw out of turn", lambda: fresh([]), A.Draw(1), 1, "R-TURN"),
    ("draw before 2 s", after_turn, A.Draw(1), 2.999, "R-WINDOW"),
    ("draw twice", lambda: holding("5H"), A.Draw(0), 1, "R-DRAW"),
    ("swap with nothing drawn", lambda: fresh([]), A.Swap(0, 0), 1, "R-SWAP"),
    ("discard with nothing drawn", lambda: fresh([]), A.Discard(0), 1, "R-DISCARD"),
    ("jack with nothing drawn", lambda: fresh([]), A.Jack(0), 1, "R-JACK"),
    ("queen with nothing drawn", lambda: fresh([]), A.Queen(0, 0, 1, 0), 1, "R-QUEEN"),
    ("king with nothing drawn", lambda: fresh([]), A.King(0), 1, "R-KING"),
    ("swap a drawn jack", lambda: holding("JH"), A.Swap(0, 1), 1, "R-SPECIAL"),
    ("swap a drawn queen", lambda: holding("QH"), A.Swap(0, 1), 1, "R-SPECIAL"),
    ("swap a drawn king", lambda: holding("KH"), A.Swap(0, 1), 1, "R-SPECIAL"),
    ("discard a drawn king", lambda: holding("KH"), A.Discard(0), 1, "R-SPECIAL"),
    ("jack on a five", lambda: holding("5H"), A.Jack(0), 1, "R-JACK"),
    ("queen on a jack", lambda: holding("JH"), A.Queen(0, 0, 1, 0), 1, "R-QUEEN"),
    ("king on a queen", lambda: holding("QH"), A.King(0), 1, "R-KING"),
    ("queen on yourself", lambda: holding("QH"), A.Queen(0, 0, 0, 2), 1, "R-QUEEN-TARGET"),
    ("queen on no seat", lambda: holding("QH"), A.Queen(0, 0, 5, 2), 1, "R-QUEEN-TARGET"),
    ("take without the option", lambda: fresh([]), A.TakeDiscard(0, 0), 1, "R-OPT-DISCARD"),
    (
        "take from an empty pile",
        lambda: fresh([], options=Options(take_discard=True)),
        A.TakeDiscard(0, 0),
        1,
        "R-TAKE-DISCARD",
    ),
    (
        "take while holding a card",
        lambda: holding("5H", Options(take_discard=True)),
        A.TakeDiscard(0, 0),
        1,
        "R-TAKE-DISCARD",
    ),
    ("call by another seat", after_turn, A.Crisp(2), 2, "R-CRISP"),
    ("call before any turn", lambda: fresh([]), A.Crisp(0), 1, "R-CRISP"),
    ("call during your own turn", lambda: holding("5H"), A.Crisp(0), 1, "R-CRISP"),
    ("call at exactly 3 s", after_turn, A.Crisp(0), 4, "R-WINDOW"),
    ("second call", called, A.Crisp(0), 2, "R-CRISP-ONCE"),
    ("call after a timeout", timed_out, A.Crisp(0), 30, "R-WINDOW-NONE"),
    ("action after the round", round_over, A.Draw(0), 5, "R-FINAL-TURNS"),
    ("action after the game", game_over, A.Draw(0), 5, "R-GAME-END"),
]


@pytest.mark.parametrize(("name", "setup", "action", "t", "rule"), CASES, ids=[c[0] for c in CASES])
def test_refused_with_rule_id_and_nothing_changes(
    name: str, setup: Setup, action: A.Action, t: float, rule: str
) -> None:
    """Legality: each illegal class names its rule and leaves the game exactly as it was."""
    game = setup()
    game.advance(t)  # deadlines up to t are time passing, not the action
    before = snapshot(game) if not game.over else game.record()
    assert not game.can(action)
    with pytest.raises(IllegalAction) as err:
        game.apply(action, t)
    assert err.value.rule == rule, str(err.value)
    assert (snapshot(game) if not game.over else game.record()) == before
    assert action not in game.legal_actions(action.seat if 0 <= action.seat < game.n else 0)


def test_legal_actions_are_all_accepted() -> None:
    """legal_actions lists only what verify accepts, for every seat, through a random game."""
    from crisp.engine.crisp.simulate import play_random

    for seed in range(20):
        game = play_random(3, Options(timer=30, take_discard=True), seed, max_actions=25)
        for seat in range(3):
            for action in game.legal_actions(seat):
                game.verify(action)


def test_malformed_actions_in_records() -> None:
    """A malformed action is refused before it reaches the rules, saying what is wrong."""
    for bad, words in [
        ({"seat": 0, "do": "fly"}, "unknown action"),
        ({"seat": "0", "do": "draw"}, "seat"),
        ({"seat": 0, "do": "swap"}, "needs 'slot'"),
        ({"seat": 0, "do": "swap", "slot": "top"}, "left"),
        ({"seat": 0, "do": "draw", "slot": "left"}, "unexpected field"),
    ]:
        with pytest.raises(ValueError, match=words):
            A.from_record(bad)
