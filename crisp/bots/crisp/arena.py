"""Bots playing a whole game in-process, against the engine, with nothing but their messages.

``play_game`` deals with ``crisp.engine.crisp.Game`` (seeded), feeds every bot exactly the messages
its
seat is sent (``Out.for_seat``), asks each for the action it wants and applies, in time order, the
earliest of them or the engine's next deadline (``next_deadline()``), a deadline first on a tie
(R-EDGES: an action at a deadline comes after it) and bots in seat order on a tie. Bots act
instantly: at the time they asked for. An ``IllegalAction`` from a bot is a bug: it is counted
(or raised with ``strict``), and that bot is not asked again until its next message. ``max_actions``
bounds a game so that a broken bot cannot loop forever.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from crisp.bots.crisp.base import Bot, Decision
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.errors import IllegalAction
from crisp.engine.crisp.game import Game
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.rng import GOLDEN, MASK64, Rng
from crisp.engine.crisp.timing import to_seconds

#: A game's default bound: far more actions than any finished game of bots takes.
MAX_ACTIONS = 50_000


class Player(Protocol):
    """What the driver needs of a seat's player: the ``Bot`` interface's message side."""

    def observe(self, msg: dict[str, Any]) -> None: ...

    def decide(self, now: float) -> Decision | None: ...


class BotError(AssertionError):
    """A bot asked for an illegal action (``strict``): always a bug."""


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
    check: Callable[[Game, int, Decision], None] | None = None,
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
    seen = [0] * n
    muted = [False] * n
    played = Played(seed, [0] * n, [], False, 0, 0)

    def deliver(outs: list[Out]) -> None:
        for out in outs:
            for s in range(n):
                if out.for_seat(s):
                    bots[s].observe(out.msg)
                    seen[s] += 1
                    muted[s] = False

    while not game.over:
        if not game.rounds or game.round.over:
            number = len(game.rounds) + 1
            deliver(game.start_round(decks(number) if decks is not None else None))
            continue
        now = to_seconds(game.round.now)
        best: tuple[float, int, dict[str, Any]] | None = None
        for s, bot in enumerate(bots):
            if muted[s]:
                continue
            want = bot.decide(now)
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
            action = A.from_record({**wanted, "seat": s})
            outs = game.apply(action, at)
        except (IllegalAction, ValueError) as err:
            rule = getattr(err, "rule", "malformed")
            played.illegal.append((s, dict(wanted), str(rule)))
            if strict:
                raise BotError(
                    f"seat {s} asked for an illegal {wanted} at {at} s "
                    f"(round {len(game.rounds)}): {rule}: {err}"
                ) from err
            muted[s] = True  # until its next message
            deliver(getattr(err, "outs", []) or [])
            continue
        played.actions += 1
        if keep_log:
            played.log.append(Step(len(game.rounds), at, s, dict(wanted), tuple(seen)))
        deliver(outs)
    played.totals = list(game.totals)
    played.winners = list(game.winners)
    played.over = game.over
    played.rounds = len(game.rounds)
    if keep_record:
        played.record = game.record()
    return played


def play_levels(
    levels: Sequence[str],
    options: Options | None = None,
    seed: int = 0,
    **kwargs: Any,
) -> Played:
    """``play_game`` with ``make_bot`` bots of ``levels`` (one per seat)."""
    opts = options or Options()
    return play_game(make_bots(levels, opts, seed), opts, seed, **kwargs)
