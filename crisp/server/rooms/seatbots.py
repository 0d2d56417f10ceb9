"""Bots at a room's table: a bot member added in the lobby, or a stand-in for a disconnected
player until they come back. A bot is a client of its seat (the game makes it, ``make_bot``): it
is fed exactly the messages that seat is sent and acts through the same checked moves as a phone,
at a human pace."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from crisp.server.seam import Fields, Outgoing, SeatBot

# A bot thinks like a person, not slower: it thinks from the moment it saw
# the move coming (``now`` when it is planned), so a wait the rules impose before that move
# counts as reflection too, and it reacts a moment after that wait.
THINK = (0.25, 0.6)  # game seconds from seeing a move that asks for thought to the move itself
REACT = (0.1, 0.25)  # and at least this long after the earliest time the rules allow it


@dataclass
class Pending:
    at: float  # game time
    move: Fields


class SeatBots:
    """The bots of one game, by seat."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.bots: dict[int, SeatBot] = {}
        self.pending: dict[int, Pending] = {}
        # the bots' seeds and reaction times (not a secret): the hub's, shared by its rooms
        # (a generator's state is 2.9 KB)
        self.rng = rng or random.Random()

    def clear(self) -> None:
        self.bots = {}
        self.pending = {}

    def snapshot(self) -> tuple[dict[int, SeatBot], dict[int, Pending]]:
        return dict(self.bots), dict(self.pending)

    def restore(self, snap: tuple[dict[int, SeatBot], dict[int, Pending]]) -> None:
        self.bots, self.pending = dict(snap[0]), dict(snap[1])

    def seed(self) -> int:
        return self.rng.randrange(1 << 62)

    def seat(self, seat: int, bot: SeatBot) -> None:
        self.bots[seat] = bot
        self.pending.pop(seat, None)

    def release(self, seat: int) -> None:
        self.bots.pop(seat, None)
        self.pending.pop(seat, None)

    def observe(self, outs: Sequence[Outgoing]) -> None:
        for seat, bot in self.bots.items():
            for out in outs:
                if out.for_seat(seat):
                    bot.observe(out.msg)

    def plan(self, now: float) -> None:
        """Ask every bot what it wants next; keep a planned move while it stays the same."""
        for seat, bot in self.bots.items():
            wanted = bot.decide(now)
            if wanted is None:
                self.pending.pop(seat, None)
                continue
            old = self.pending.get(seat)
            if old is not None and old.move == wanted.move:
                continue
            when = max(wanted.at, now)
            if wanted.think:
                when = max(when + self.rng.uniform(*REACT), now + self.rng.uniform(*THINK))
            # game time is in whole ms: a move planned between two ms is due at the next one
            self.pending[seat] = Pending(math.ceil(when * 1000) / 1000, dict(wanted.move))

    def next_time(self) -> float | None:
        return min((p.at for p in self.pending.values()), default=None)

    def due(self, now: float, act: Callable[[int, dict[str, Any]], None]) -> None:
        """Make the earliest planned move if its time has come (the others are planned again
        after it, as it changes the game)."""
        if not self.pending:
            return
        seat, p = min(self.pending.items(), key=lambda item: item[1].at)
        if p.at <= now:
            del self.pending[seat]
            act(seat, p.move)
