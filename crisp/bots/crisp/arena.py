"""Crisp's bots playing a whole game in-process, against the engine, with nothing but their
messages.

``play_game`` deals with ``crisp.engine.crisp.Game`` (seeded) and plays it with the common driver
(``crisp.bots.common.arena.play``): a deadline first on a tie (R-EDGES: an action at a deadline
comes after it) and bots in seat order on a tie; an ``IllegalAction`` from a bot is a bug.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from crisp.bots.common.arena import BotError, EngineArena, Player, Refused, Step, play
from crisp.bots.common.base import Intent
from crisp.bots.crisp.base import Bot
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.errors import IllegalAction
from crisp.engine.crisp.game import Game
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.rng import GOLDEN, MASK64, Rng
from crisp.engine.crisp.timing import to_seconds

__all__ = ["MAX_ACTIONS", "BotError", "Played", "Player", "Step", "bot_seed", "make_bots"]
__all__ += ["play_game", "play_levels"]

#: A game's default bound: far more actions than any finished game of bots takes.
MAX_ACTIONS = 50_000


@dataclass(slots=True)
class Played:
    """The outcome of one game."""

    seed: int
    totals: list[int]
    winners: list[int]
    over: bool
    rounds: int
    actions: int
    illegal: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    stalled: bool = False
    log: list[Step] = field(default_factory=list)
    record: dict[str, Any] | None = None


class _Arena(EngineArena[Game]):
    """A Crisp ``Game`` as the common driver plays it: a round is dealt when none is under way
    (``decks(number)`` may give its deck)."""

    def __init__(self, game: Game, decks: Callable[[int], list[str] | None] | None) -> None:
        super().__init__(game)
        self.decks = decks

    def opening(self) -> list[Out] | None:
        game = self.game
        if game.rounds and not game.round.over:
            return None
        number = len(game.rounds) + 1
        return game.start_round(self.decks(number) if self.decks is not None else None)

    def now(self) -> float:
        return to_seconds(self.game.round.now)

    def round_number(self) -> int:
        return len(self.game.rounds)

    def apply(self, seat: int, wanted: dict[str, Any], at: float) -> list[Out]:
        try:
            return self.game.apply(A.from_record({**wanted, "seat": seat}), at)
        except (IllegalAction, ValueError) as err:
            rule = str(getattr(err, "rule", "malformed"))
            raise Refused(rule, str(err), getattr(err, "outs", []) or []) from err


def bot_seed(seed: int, seat: int) -> int:
    """Each seat's bot seed, derived from the game's seed."""
    return Rng((seed * 0x2545F4914F6CDD1D + (seat + 1) * GOLDEN) & MASK64).next64()


def make_bots(levels: Sequence[str], options: Options, seed: int) -> list[Bot]:
    """One bot per seat, ``levels[seat]``, seeded from the game's ``seed``."""
    from crisp.bots.crisp import make_bot

    players = [f"{level}-{i + 1}" for i, level in enumerate(levels)]
    opts = options.to_record()
    return [make_bot(lv, i, players, opts, bot_seed(seed, i)) for i, lv in enumerate(levels)]


def play_game(
    bots: Sequence[Player],
    options: Options | None = None,
    seed: int = 0,
    *,
    max_actions: int = MAX_ACTIONS,
    strict: bool = False,
    decks: Callable[[int], list[str] | None] | None = None,
    keep_log: bool = False,
    keep_record: bool = False,
    check: Callable[[Game, int, Intent], None] | None = None,
    game: Game | None = None,
) -> Played:
    """Play one game of ``bots`` (one per seat) with the engine seeded by ``seed``.

    ``decks(round_number)`` may give a round's deck order instead of the seeded one (None: the
    seeded one). ``check(game, seat, decision)`` sees every decision a bot returns. ``game`` may
    be a game made by the caller (not yet dealt), instead of a new one seeded by ``seed``.
    """
    n = len(bots)
    if game is None:
        game = Game([f"P{i + 1}" for i in range(n)], options or Options(), seed=seed)
    run = play(
        _Arena(game, decks),
        bots,
        max_actions=max_actions,
        strict=strict,
        keep_log=keep_log,
        check=None if check is None else partial(check, game),
    )
    return Played(
        seed,
        list(game.totals),
        list(game.winners),
        game.over,
        len(game.rounds),
        run.actions,
        run.illegal,
        run.stalled,
        run.log,
        game.record() if keep_record else None,
    )


def play_levels(
    levels: Sequence[str],
    options: Options | None = None,
    seed: int = 0,
    **kwargs: Any,
) -> Played:
    """``play_game`` with ``make_bot`` bots of ``levels`` (one per seat)."""
    opts = options or Options()
    return play_game(make_bots(levels, opts, seed), opts, seed, **kwargs)
