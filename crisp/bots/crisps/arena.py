"""Crisps! bots playing whole games in-process, against the engine, with nothing but their
seat's messages.

``play_game`` deals a ``CrispsGame`` (seeded), feeds each bot exactly the messages its seat is
sent (``Out.for_seat``), asks each bot for the action it wants and applies, in time order, the
earliest (seat 0 first on a tie) or the engine's next deadline, a deadline first on a tie
(CS-TIMER: an action at the deadline is too late). Bots act at the time they ask for. A refused
action (``CrispsRefusal``) is a bot bug: it is counted (raised with ``strict``), and that bot is
not asked again until its next message. ``max_actions`` bounds a game. Each ``decide`` is timed
(wall clock, for the report's decision times: nothing in a game depends on it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from crisp.bots.crisps.base import Decision
from crisp.engine.crisps import CrispsGame, CrispsOptions, CrispsRefusal, Out

#: A game's default bound: far more actions than any finished game takes (a round has at most
#: about a hundred).
MAX_ACTIONS = 5_000
MASK64 = (1 << 64) - 1


class Player(Protocol):
    def observe(self, msg: dict[str, Any]) -> None: ...

    def decide(self, now: float) -> Decision | None: ...


class BotError(AssertionError):
    """A bot asked for an illegal action (``strict``): always a bug."""


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
    check: Callable[[CrispsGame, int, Decision], None] | None = None,
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
    played = Played(seed, [0, 0], None, False, 0, 0)
    muted = [False, False]
    fresh = [True, True]

    def deliver(outs: list[Out]) -> None:
        for out in outs:
            for s in (0, 1):
                if out.for_seat(s):
                    if deliver_hook is not None:
                        deliver_hook(s, out.msg)
                    bots[s].observe(out.msg)
                    muted[s] = False
                    fresh[s] = True

    deliver(game.start())
    while not game.over:
        now = game.now
        best: tuple[float, int, dict[str, Any]] | None = None
        for s, bot in enumerate(bots):
            if muted[s]:
                continue
            began = time.perf_counter()
            want = bot.decide(now)
            if fresh[s] and want is not None:
                played.decisions[s].append(time.perf_counter() - began)
                fresh[s] = False
            if want is None:
                continue
            if check is not None:
                check(game, s, want)
            if best is None or want[0] < best[0]:
                best = (want[0], s, want[1])
        deadline = game.next_deadline()
        if deadline is not None and (best is None or deadline <= best[0]):
            deliver(game.advance(deadline))
            continue
        if best is None:
            played.stalled = True
            break
        if played.actions >= max_actions:
            break
        t, s, wanted = best
        at = max(t, now)
        try:
            outs = game.apply(s, dict(wanted), at)
        except CrispsRefusal as err:
            played.illegal.append((s, dict(wanted), err.rule))
            if strict:
                raise BotError(
                    f"seat {s} asked for an illegal {wanted} at {at} s "
                    f"(round {game.round_no}): {err.rule}: {err.message}"
                ) from err
            muted[s] = True  # until its next message
            continue
        played.actions += 1
        deliver(outs)
    played.points = list(game.points)
    played.winner = game.winner
    played.over = game.over
    played.rounds = game.round_no
    if keep_record:
        played.record = game.record()
    return played


def play_levels(
    levels: Sequence[str], options: CrispsOptions | None = None, seed: int = 0, **kwargs: Any
) -> Played:
    """``play_game`` with ``make_bot`` bots of ``levels`` (one per seat)."""
    opts = options or CrispsOptions()
    return play_game(make_bots(levels, opts, seed), opts, seed, **kwargs)
