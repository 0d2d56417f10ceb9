"""Crisps! bots playing whole games in-process, against the engine, with nothing but their
seat's messages.

``play_game`` deals a ``CrispsGame`` (seeded) and plays it with the common driver
(``crisp.bots.common.arena.play``): the earliest action first (seat 0 first on a tie) or the
engine's next deadline, a deadline first on a tie (CS-TIMER: an action at the deadline is too
late). A refused action (``CrispsRefusal``) is a bot bug. Each seat's decision times are kept for
the report (wall clock: nothing in a game depends on them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from crisp.bots.common.arena import BotError, EngineArena, Player, Refused, play
from crisp.bots.common.base import Intent
from crisp.engine.crisps import CrispsGame, CrispsOptions, CrispsRefusal, Out

__all__ = ["MAX_ACTIONS", "BotError", "Played", "Player", "bot_seed", "make_bots", "play_game"]
__all__ += ["play_levels"]

#: A game's default bound: far more actions than any finished game takes (a round has at most
#: about a hundred).
MAX_ACTIONS = 5_000
MASK64 = (1 << 64) - 1


@dataclass(slots=True)
class Played:
    """The outcome of one game."""

    seed: int
    points: list[int]
    winner: int | None
    over: bool
    rounds: int
    actions: int
    illegal: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    stalled: bool = False
    #: per seat: decisions asked for (first ``decide`` of a due decision) and their seconds
    decisions: list[list[float]] = field(default_factory=lambda: [[], []])
    record: dict[str, Any] | None = None


class _Arena(EngineArena[CrispsGame]):
    """A ``CrispsGame`` as the common driver plays it: started once, at the beginning."""

    def __init__(self, game: CrispsGame) -> None:
        super().__init__(game)
        self.started = False

    def opening(self) -> list[Out] | None:
        if self.started:
            return None
        self.started = True
        return self.game.start()

    def now(self) -> float:
        return self.game.now

    def round_number(self) -> int:
        return self.game.round_no

    def apply(self, seat: int, wanted: dict[str, Any], at: float) -> list[Out]:
        try:
            return self.game.apply(seat, wanted, at)
        except CrispsRefusal as err:
            raise Refused(err.rule, err.message) from err


def bot_seed(seed: int, seat: int) -> int:
    """Each seat's bot seed, derived from the game's seed (SplitMix64's finaliser)."""
    z = (seed * 0x9E3779B97F4A7C15 + (seat + 1) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def make_bots(levels: Sequence[str], options: CrispsOptions, seed: int) -> list[Any]:
    """One bot per seat, ``levels[seat]``, seeded from the game's ``seed``."""
    from crisp.bots.crisps import make_bot

    players = [f"{level}-{i + 1}" for i, level in enumerate(levels)]
    opts = options.to_record()
    return [make_bot(lv, i, players, opts, bot_seed(seed, i)) for i, lv in enumerate(levels)]


def play_game(
    bots: Sequence[Player],
    options: CrispsOptions | None = None,
    seed: int = 0,
    *,
    max_actions: int = MAX_ACTIONS,
    strict: bool = False,
    keep_record: bool = False,
    check: Callable[[CrispsGame, int, Intent], None] | None = None,
    deliver_hook: Callable[[int, dict[str, Any]], None] | None = None,
    game: CrispsGame | None = None,
) -> Played:
    """Play one game of two ``bots`` with the engine seeded by ``seed`` (or ``game``, made by
    the caller and not yet started). ``check(game, seat, decision)`` sees every decision a bot
    returns; ``deliver_hook(seat, msg)`` every message a bot is given."""
    if len(bots) != 2:
        raise ValueError("Crisps! is for two bots")
    opts = options or CrispsOptions()
    if game is None:
        game = CrispsGame(["P1", "P2"], opts, seed=seed)
    run = play(
        _Arena(game),
        bots,
        max_actions=max_actions,
        strict=strict,
        check=None if check is None else partial(check, game),
        on_message=deliver_hook,
    )
    return Played(
        seed,
        list(game.points),
        game.winner,
        game.over,
        game.round_no,
        run.actions,
        run.illegal,
        run.stalled,
        run.decisions,
        game.record() if keep_record else None,
    )


def play_levels(
    levels: Sequence[str], options: CrispsOptions | None = None, seed: int = 0, **kwargs: Any
) -> Played:
    """``play_game`` with ``make_bot`` bots of ``levels`` (one per seat)."""
    opts = options or CrispsOptions()
    return play_game(make_bots(levels, opts, seed), opts, seed, **kwargs)
