"""The Crisps! bot interface: a client of one seat, honest by construction.

A ``CrispsBot`` is a ``crisp.bots.common.base.SeatBotBase`` whose table is Crisps!'s
``TableModel``: it answers ``decide(now)`` with the action it wants next and the earliest game
time to take it — the moment its decision was first asked for, never before ``now`` — or None
(nothing to do, or it lets its clock run out). It chooses among the legal plays its seat is
offered (the ``turn`` message's ``legal``). Given its seed and its messages it is deterministic;
a choice, once made, stays made until the next message that changes what is due.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.bots.common.base import Action, Intent, SeatBotBase
from crisp.bots.crisps.combos import Combo, combo_cards, leads
from crisp.bots.crisps.table import DRAW, LEAD, TableModel


class CrispsBot(SeatBotBase[TableModel, random.Random]):
    """One seat's player; the levels override ``choose_lead``, ``choose_follow`` and
    ``choose_take`` (and ``lets_time_run_out``)."""

    def __init__(
        self, seat: int, players: list[str], options: dict[str, Any], *, level: str, seed: int
    ) -> None:
        if seat not in (0, 1):
            raise ValueError(f"Crisps! has seats 0 and 1, not {seat!r}")
        super().__init__(seat, level, random.Random(seed), TableModel.new(seat, players, options))
        self._epoch = -1
        self._since = 0.0
        self._choice: Action | None = None

    # -- the interface ----------------------------------------------------------------------------

    def decide(self, now: float) -> Intent | None:
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
