"""The bot interface: a client of one seat, honest by construction.

A ``Bot`` is given exactly the messages its seat is sent (``observe``, in order) or a reconnect
snapshot (``load_view``), keeps its own model of the table from them (``TableModel``) and answers
``decide(now)`` with the action it wants next and the earliest game time at which it may take it.
It never sees the engine: whatever it knows came through its seat's messages. Given its seed and
its messages it is deterministic: the same messages give the same decisions.

Subclasses (the levels) choose; this class does the bookkeeping: when a draw is due, when a crisp
window is open, when a drawn card waits to be played, and the times of each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from crisp.bots.crisp.table import LOOK, PLAY, Msg, TableModel
from crisp.engine.crisp.rng import Rng

Action = dict[str, Any]
Decision = tuple[float, Action]
T = TypeVar("T")


class Bot:
    """One seat's player. ``decide`` returns ``(time, action)`` or None (nothing to do until a
    new message). Actions are record actions without ``seat`` and ``t``."""

    level: str = "base"

    def __init__(
        self, seat: int, players: list[str], options: dict[str, Any], *, level: str, seed: int
    ) -> None:
        self.seat = seat
        self.level = level
        self.rng = Rng(seed)
        self.table = TableModel(seat, players, options)
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._memo_round = -1
        self._intent: Decision | None = None
        self._dirty = True
        self._look_t = 0.0

    # -- the interface ----------------------------------------------------------------------------

    def observe(self, msg: dict[str, Any]) -> None:
        """One message this seat was sent, in order. Unknown keys and types are ignored."""
        self.table.observe(msg)
        if msg.get("type") == "round":
            self._look_t = self.table.t
        self.noticed(msg)
        self._dirty = True

    def load_view(self, view: dict[str, Any]) -> None:
        """Start (over) from a reconnect snapshot, ``game.view(seat)``: only what it shows."""
        self.table.load_view(view)
        self._look_t = self.table.t
        self._memo.clear()
        self.restarted()
        self._dirty = True

    def decide(self, now: float) -> Decision | None:
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

    def noticed(self, msg: Msg) -> None:
        """A hook after each message has updated the table."""

    def restarted(self) -> None:
        """A hook after a snapshot replaced the table."""

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

    def _compute(self) -> Decision | None:
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
