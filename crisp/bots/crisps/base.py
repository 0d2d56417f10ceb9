"""The Crisps! bot interface: a client of one seat, honest by construction.

A ``CrispsBot`` is given exactly the messages its seat is sent (``observe``, in order) or a
reconnect snapshot (``load_view``), keeps its own ``TableModel`` from them and answers
``decide(now)`` with the action it wants next and the earliest game time to take it — the moment
its decision was first asked for, never before ``now`` — or None (nothing to do, or it lets its
clock run out). It chooses among the legal plays its seat is offered (the ``turn`` message's
``legal``). Given its seed and its messages it is deterministic; a choice, once made, stays made
until the next message that changes what is due.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.bots.crisps.combos import Combo, combo_cards, leads
from crisp.bots.crisps.table import DRAW, LEAD, TableModel

Action = dict[str, Any]
Decision = tuple[float, Action]


class CrispsBot:
    """One seat's player; the levels override ``choose_lead``, ``choose_follow`` and
    ``choose_take`` (and ``lets_time_run_out``)."""

    level = "base"

    def __init__(
        self, seat: int, players: list[str], options: dict[str, Any], *, level: str, seed: int
    ) -> None:
        if seat not in (0, 1):
            raise ValueError(f"Crisps! has seats 0 and 1, not {seat!r}")
        self.seat = seat
        self.level = level
        self.rng = random.Random(seed)
        self.table = TableModel.new(seat, players, options)
        self._epoch = -1
        self._since = 0.0
        self._choice: Action | None = None

    # -- the interface ----------------------------------------------------------------------------

    def observe(self, msg: dict[str, Any]) -> None:
        """One message this seat was sent, in order. Unknown keys and types are ignored."""
        self.table.observe(msg)
        self.noticed(msg)

    def load_view(self, view: dict[str, Any]) -> None:
        """Start (over) from a reconnect snapshot, ``game.view(seat)``: only what it shows."""
        self.table.load_view(view)
        self.restarted()

    def decide(self, now: float) -> Decision | None:
        """The next action wanted and the earliest game time to take it, or None."""
        tb = self.table
        if not tb.my_turn:
            return None
        if self._epoch != tb.epoch:
            self._epoch = tb.epoch
            self._since = now
            self._choice = None if self.lets_time_run_out() else self._choose()
        if self._choice is None:
            return None
        return (max(self._since, now), dict(self._choice))

    # -- what the levels decide -------------------------------------------------------------------

    def choose_lead(self, legal: list[Combo]) -> Combo:
        raise NotImplementedError

    def choose_follow(self, legal: list[Combo]) -> Combo | None:
        """A play, or None to pass."""
        raise NotImplementedError

    def choose_take(self) -> bool:
        """True: take the face-up card; False: the blind one."""
        raise NotImplementedError

    def lets_time_run_out(self) -> bool:
        """Let this decision time out (only ever with a timer)."""
        return False

    def noticed(self, msg: dict[str, Any]) -> None:
        """A hook after each message has updated the table."""

    def restarted(self) -> None:
        """A hook after a snapshot replaced the table."""

    # -- bookkeeping ------------------------------------------------------------------------------

    def _choose(self) -> Action | None:
        tb = self.table
        if tb.need == DRAW:
            if not tb.take:
                return None
            take = "faceup" if self.choose_take() else "blind"
            return {"do": "draw", "take": take if take in tb.take else tb.take[0]}
        legal = tb.legal
        if tb.need == LEAD:
            legal = legal or leads(tb.hand, tb.crisp_runs)
            return _play(self.choose_lead(legal)) if legal else None
        combo = self.choose_follow(legal)
        if combo is None:
            return {"do": "pass"} if tb.can_pass else None
        return _play(combo)


def _play(combo: Combo) -> Action:
    return {"do": "play", "cards": combo_cards(combo)}
