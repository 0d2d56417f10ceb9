"""Bots playing a whole game in-process, against any game's engine, with nothing but their
seat's messages.

``play`` feeds every bot exactly the messages its seat is sent (``for_seat``), asks each for the
action it wants and applies, in time order, the earliest of them (seat order on a tie) or the
engine's next deadline, a deadline first on a tie (an action at a deadline comes after it). Bots
act at the time they asked for. A refused action is a bot bug: it is counted (or raised as a
``BotError`` with ``strict``), and that bot is not asked again until its next message.
``max_actions`` bounds a game so that a broken bot cannot loop forever. The first answer to each
new message is timed (wall clock, for a report's decision times: nothing in a game depends on it).

Each game says how its engine is driven with an ``Arena``: the messages due before the next
decision (a new round), the game time, the next deadline, and how a move is applied.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from crisp.bots.common.base import Intent
from crisp.engine.common.messages import Addressed


class Player(Protocol):
    """What the driver needs of a seat's player: a bot's message side."""

    def observe(self, msg: dict[str, Any]) -> None: ...

    def decide(self, now: float) -> Intent | None: ...


class BotError(AssertionError):
    """A bot asked for an illegal action (``strict``): always a bug."""


class Refused(Exception):
    """A game refused a bot's action: the rule it breaks, why, and what was applied before."""

    def __init__(self, rule: str, message: str, outs: Sequence[Addressed] = ()) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.outs = outs


class Arena(Protocol):
    """One game's engine as the driver plays it."""

    @property
    def over(self) -> bool: ...

    def opening(self) -> Sequence[Addressed] | None:
        """The messages due before anyone decides (a game's or a round's start), or None."""

    def now(self) -> float:
        """The game time, in seconds."""

    def round_number(self) -> int: ...

    def next_deadline(self) -> float | None: ...

    def advance(self, t: float) -> Sequence[Addressed]: ...

    def apply(self, seat: int, wanted: dict[str, Any], at: float) -> Sequence[Addressed]:
        """Apply ``seat``'s action at ``at``; raises ``Refused``."""


class Engine(Protocol):
    """What every game's engine offers the driver as it is."""

    @property
    def over(self) -> bool: ...

    def next_deadline(self) -> float | None: ...

    def advance(self, t: float, /) -> Sequence[Addressed]: ...


EngineT = TypeVar("EngineT", bound=Engine)


class EngineArena(Generic[EngineT]):
    """An ``Arena`` over ``game``: whether it is over, its deadlines and ``advance`` are the
    engine's own; each game adds the rest (``opening``, ``now``, ``round_number``, ``apply``)."""

    def __init__(self, game: EngineT) -> None:
        self.game = game

    @property
    def over(self) -> bool:
        return self.game.over

    def next_deadline(self) -> float | None:
        return self.game.next_deadline()

    def advance(self, t: float) -> Sequence[Addressed]:
        return self.game.advance(t)


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action: its round, time, seat, the action, and how many messages each seat
    had been sent when it was applied."""

    round: int
    t: float
    seat: int
    action: dict[str, Any]
    seen: tuple[int, ...]


@dataclass(slots=True)
class Run:
    """What the driver saw of one game: the actions applied, the refused ones (seat, action,
    rule), whether no one had anything left to do, the steps (``keep_log``) and each seat's
    decision times in seconds."""

    actions: int = 0
    illegal: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    stalled: bool = False
    log: list[Step] = field(default_factory=list)
    decisions: list[list[float]] = field(default_factory=list)


def play(
    arena: Arena,
    bots: Sequence[Player],
    *,
    max_actions: int,
    strict: bool = False,
    keep_log: bool = False,
    check: Callable[[int, Intent], None] | None = None,
    on_message: Callable[[int, dict[str, Any]], None] | None = None,
) -> Run:
    """Play ``arena``'s game to its end (or ``max_actions``, or a stall) with one bot a seat.
    ``check(seat, intent)`` sees every answer a bot gives; ``on_message(seat, msg)`` every
    message a bot is given."""
    n = len(bots)
    seats = range(n)
    seen = [0] * n
    muted = [False] * n
    fresh = [True] * n
    run = Run(decisions=[[] for _ in seats])

    def deliver(outs: Sequence[Addressed]) -> None:
        for out in outs:
            for s in seats:
                if out.for_seat(s):
                    if on_message is not None:
                        on_message(s, out.msg)
                    bots[s].observe(out.msg)
                    seen[s] += 1
                    muted[s] = False
                    fresh[s] = True

    while not arena.over:
        opening = arena.opening()
        if opening is not None:
            deliver(opening)
            continue
        now = arena.now()
        best: tuple[float, int, dict[str, Any]] | None = None
        for s, bot in enumerate(bots):
            if muted[s]:
                continue
            began = time.perf_counter()
            want = bot.decide(now)
            if want is None:
                continue
            if fresh[s]:
                run.decisions[s].append(time.perf_counter() - began)
                fresh[s] = False
            if check is not None:
                check(s, want)
            if best is None or want[0] < best[0]:
                best = (want[0], s, want[1])
        deadline = arena.next_deadline()
        if deadline is not None and (best is None or deadline <= best[0]):
            deliver(arena.advance(deadline))
            continue
        if best is None:
            run.stalled = True
            break
        if run.actions >= max_actions:
            break
        t, s, wanted = best
        at = max(t, now)
        try:
            outs = arena.apply(s, dict(wanted), at)
        except Refused as err:
            run.illegal.append((s, dict(wanted), err.rule))
            if strict:
                raise BotError(
                    f"seat {s} asked for an illegal {wanted} at {at} s "
                    f"(round {arena.round_number()}): {err.rule}: {err.message}"
                ) from err.__cause__
            muted[s] = True  # until its next message
            deliver(err.outs)
            continue
        run.actions += 1
        if keep_log:
            run.log.append(Step(arena.round_number(), at, s, dict(wanted), tuple(seen)))
        deliver(outs)
    return run
