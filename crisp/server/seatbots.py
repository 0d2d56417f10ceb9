"""Bots at a room's table: a bot member added in the lobby, or a stand-in for a disconnected
player until they come back. A bot is a client of its seat: it is fed exactly the engine messages
that seat is sent (or, when it takes a seat over mid-game, that seat's reconnect view) and acts
through the same validated actions as a phone, at a human pace."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crisp.engine import Out

log = logging.getLogger("crisp.server")

LEVELS = ("easy", "normal", "hard")
THINK = (0.6, 1.8)  # game seconds a bot waits before acting (a human pace)


@dataclass
class Pending:
    at: float  # game time
    action: dict[str, Any]


class SeatBots:
    """The bots of one game, by seat."""

    def __init__(self) -> None:
        self.bots: dict[int, Any] = {}
        self.pending: dict[int, Pending] = {}
        self.rng = random.Random()

    def clear(self) -> None:
        self.bots.clear()
        self.pending.clear()

    def seat(self, seat: int, level: str, players: list[str], options: dict[str, Any],
             view: dict[str, Any] | None) -> None:  # fmt: skip
        """Put a bot of ``level`` at ``seat``; mid-game it starts from the seat's view."""
        from crisp.bots import make_bot

        bot = make_bot(level, seat, players, options, self.rng.randrange(1 << 62))
        if view is not None:
            bot.load_view(view)
        self.bots[seat] = bot
        self.pending.pop(seat, None)

    def release(self, seat: int) -> None:
        self.bots.pop(seat, None)
        self.pending.pop(seat, None)

    def observe(self, outs: list[Out]) -> None:
        for seat, bot in self.bots.items():
            for out in outs:
                if out.for_seat(seat):
                    bot.observe(out.msg)

    def plan(self, now: float) -> None:
        """Ask every bot what it wants next; keep a planned action while it stays the same."""
        for seat, bot in self.bots.items():
            wanted = bot.decide(now)
            if wanted is None:
                self.pending.pop(seat, None)
                continue
            at, action = wanted
            old = self.pending.get(seat)
            if old is not None and old.action == action:
                continue
            # A call is timed by the bot itself, inside its window; anything else waits a moment.
            when = max(at, now)
            if action.get("do") != "crisp":
                when += self.rng.uniform(*THINK)
            self.pending[seat] = Pending(when, dict(action))

    def next_time(self) -> float | None:
        return min((p.at for p in self.pending.values()), default=None)

    def due(self, now: float, act: Callable[[int, dict[str, Any]], None]) -> None:
        """Apply the earliest planned action if its time has come (the others are planned again
        after it, as it changes the game)."""
        if not self.pending:
            return
        seat, p = min(self.pending.items(), key=lambda item: item[1].at)
        if p.at <= now:
            del self.pending[seat]
            act(seat, p.action)
