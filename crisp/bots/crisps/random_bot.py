"""The ``random`` level: a uniformly random legal move from its own view.

At a lead it plays one of the legal plays it is offered, each as likely; at a follow one of them
or the pass, each as likely; at a draw the face-up or the blind card, evenly. With a timer (and
only then) it lets one decision in ``1 / P_TIMEOUT`` run out (CS-TIMEOUT), so that timeouts are
played too.
"""

from __future__ import annotations

from crisp.bots.crisps.base import CrispsBot
from crisp.bots.crisps.combos import Combo

P_TIMEOUT = 0.04


class RandomBot(CrispsBot):
    """Uniform legal play (see the module's docstring)."""

    def lets_time_run_out(self) -> bool:
        return self.table.deadline is not None and self.rng.random() < P_TIMEOUT

    def choose_lead(self, legal: list[Combo]) -> Combo:
        return legal[self.rng.randrange(len(legal))]

    def choose_follow(self, legal: list[Combo]) -> Combo | None:
        n = len(legal) + (1 if self.table.can_pass else 0)
        i = self.rng.randrange(n) if n else 0
        return legal[i] if i < len(legal) else None

    def choose_take(self) -> bool:
        return self.rng.random() < 0.5
