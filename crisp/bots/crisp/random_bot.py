"""The ``random`` level: random legal choices from its own view.

The same policy as the engine's ``random-legal`` (``crisp.engine.crisp.simulate``), built on the bot
interface: it says ready in 85% of looks (else the look runs out); with the host's option it takes
the pile's top into a random slot instead of a draw (25%); a drawn A–T is swapped into a random slot
(60%) or discarded; a Jack or a Queen is used (80%, the Queen between a random slot of its own and a
random slot of a random opponent) or discarded; a King is used; with a per-draw clock it lets a draw
time out (4%); when its crisp window opens it calls (20%).
"""

from __future__ import annotations

from crisp.bots.common.base import Action
from crisp.bots.crisp.base import Bot
from crisp.engine.crisp.cards import JACK, KING, QUEEN, SLOTS


class RandomBot(Bot):
    """Random legal play (see the module's docstring)."""

    p_ready = 0.85
    p_swap = 0.6
    p_special = 0.8
    p_take = 0.25
    p_timeout = 0.04
    p_call = 0.2

    def wants_ready(self) -> bool:
        return self.chance(self.p_ready)

    def wants_call(self) -> bool:
        return self.chance(self.p_call)

    def _times_out(self) -> bool:
        return self.table.deadline is not None and self.chance(self.p_timeout)

    def choose_draw(self) -> Action | None:
        tb = self.table
        if tb.options.get("take_discard") and tb.pile and self.chance(self.p_take):
            return {"do": "take_discard", "slot": SLOTS[self.pick(3)]}
        if self._times_out():
            return None
        return {"do": "draw"}

    def choose_play(self, card: str) -> Action | None:
        if self._times_out():
            return None
        rank = card[0]
        if rank == KING:
            return {"do": "king"}
        if rank == QUEEN:
            if self.chance(self.p_special):
                n = self.table.n
                target = (self.seat + 1 + self.pick(n - 1)) % n
                return {
                    "do": "queen",
                    "slot": SLOTS[self.pick(3)],
                    "target": target,
                    "target_slot": SLOTS[self.pick(3)],
                }
            return {"do": "discard"}
        if rank == JACK:
            return {"do": "jack"} if self.chance(self.p_special) else {"do": "discard"}
        if self.chance(self.p_swap):
            return {"do": "swap", "slot": SLOTS[self.pick(3)]}
        return {"do": "discard"}
