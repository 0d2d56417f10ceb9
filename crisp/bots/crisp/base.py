"""The bot interface: a client of one seat, honest by construction.

A ``Bot`` is a ``crisp.bots.common.base.SeatBotBase`` whose table is Crisp's ``TableModel``: it
answers ``decide(now)`` with the action it wants next and the earliest game time at which it may
take it (an ``Intent``).

Subclasses (the levels) choose; this class does the bookkeeping: when a draw is due, when a crisp
window is open, when a drawn card waits to be played, and the times of each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from crisp.bots.common.base import Action, Intent, SeatBotBase
from crisp.bots.crisp.table import LOOK, PLAY, TableModel
from crisp.engine.crisp.rng import Rng

T = TypeVar("T")


class Bot(SeatBotBase[TableModel, Rng]):
    """One seat's player. ``decide`` returns ``(time, action)`` or None (nothing to do until a
    new message). Actions are record actions without ``seat`` and ``t``."""

    def __init__(
        self, seat: int, players: list[str], options: dict[str, Any], *, level: str, seed: int
    ) -> None:
        super().__init__(seat, level, Rng(seed), TableModel(seat, players, options))
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._memo_round = -1
        self._intent: Intent | None = None
        self._dirty = True
        self._look_t = 0.0

    # -- the bookkeeping of every message ---------------------------------------------------------

    def kept(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "round":
            self._look_t = self.table.t
        self._dirty = True

    def reloaded(self) -> None:
        self._look_t = self.table.t
        self._memo.clear()
        self._dirty = True

    # -- the interface ----------------------------------------------------------------------------

    def decide(self, now: float) -> Intent | None:
        """The next action wanted and the earliest game time to take it (never before ``now``),
        or None. A crisp call is only offered while its window is open at ``now``."""
        if self._dirty:
            self._intent = self._compute()
            self._dirty = False
        if self._intent is None:
            return None
        t, action = self._intent
        if action["do"] == "crisp":
            tb = self.table
            if not tb.my_window or now >= tb.window_until:
                return None
        return (max(t, now), dict(action))

    # -- what subclasses decide -------------------------------------------------------------------

    def wants_ready(self) -> bool:
        """Say ready at the start of the look (else let the look phase run out)."""
        return True

    def wants_call(self) -> bool:
        """Call crisp in the window that just opened (asked once per window)."""
        return False

    def choose_draw(self) -> Action | None:
        """A draw is due: ``draw`` or ``take_discard`` (None: let the clock run out)."""
        return {"do": "draw"}

    def choose_play(self, card: str) -> Action | None:
        """Play the drawn ``card`` (None: let the clock run out)."""
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------------

    def once(self, key: tuple[Any, ...], choose: Callable[[], T]) -> T:
        """The choice for ``key``, made once per round (so a random choice stays made)."""
        tb = self.table
        if self._memo_round != tb.round:
            self._memo.clear()
            self._memo_round = tb.round
        if key not in self._memo:
            self._memo[key] = choose()
        value: T = self._memo[key]
        return value

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, n: int) -> int:
        return self.rng.below(n)

    # -- bookkeeping ------------------------------------------------------------------------------

    def _compute(self) -> Intent | None:
        tb = self.table
        if tb.over or tb.phase is None:
            return None
        if tb.phase == LOOK:
            if tb.ready[self.seat] or not self.once(("ready",), self.wants_ready):
                return None
            return (self._look_t, {"do": "ready"})
        if tb.phase != PLAY:
            return None
        if tb.my_window and self.once(("call", tb.window_since), self.wants_call):
            return (tb.window_since, {"do": "crisp"})
        if tb.turn != self.seat:
            return None
        if tb.holding:
            if tb.held is None:
                return None
            card = tb.held
            play = self.once(("play", tb.turns), lambda: self.choose_play(card))
            return None if play is None else (tb.held_at, play)
        draw = self.once(("draw", tb.turns), self.choose_draw)
        return None if draw is None else (tb.at, draw)
