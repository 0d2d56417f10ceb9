"""The ``normal`` and ``easy`` levels: a casual player who minds its own hand.

``normal`` remembers its own cards (its looks, what it swapped in) and guesses that any card it has
not seen is worth about 6.5 (a full deck's mean); it pays no attention to the other players' moves
nor to which cards are gone. A drawn card goes in place of its worst card when that saves at least
a point (so an unseen card is replaced by a 5 or lower), else it is discarded; a Jack is used while
its middle card is unknown; a Queen trades its worst card for a random opponent's random card when
that card is an 8 or more; with the host's option it takes the pile's top when that is a 3 or lower
and saves at least 3 points. It calls crisp when its estimated total is at most 10 (one more point
for every two of its turns in the round, so that a round always ends).

``easy`` plays the same way but forgets: at each of its turns every card it knows slips from its
memory with a 20% chance, and it calls late or wrongly (its threshold varies from 5 to 14 from one
window to the next, and once in a while it calls on a whim).
"""

from __future__ import annotations

from crisp.bots.common.base import Action
from crisp.bots.crisp.base import Bot
from crisp.bots.crisp.table import Msg
from crisp.engine.crisp.cards import JACK, KING, QUEEN, SLOTS, VALUE


class NormalBot(Bot):
    """A casual player: its own hand only (see the module's docstring)."""

    guess = 6.5  # what an unseen card is taken to be worth
    call_at = 10.0  # call when the estimated total is at most this
    patience = 2  # one more point of threshold every this many own turns

    def estimates(self) -> list[float]:
        return [VALUE[c] if c is not None else self.guess for c in self.table.hand]

    def total(self) -> float:
        return sum(self.estimates())

    def threshold(self) -> float:
        return self.call_at + self.table.my_turns // self.patience

    def wants_call(self) -> bool:
        return self.total() <= self.threshold()

    def worst(self) -> int:
        """The slot with the highest estimate (a known card first on a tie)."""
        est = self.estimates()
        hand = self.table.hand
        return max(range(3), key=lambda s: (est[s], hand[s] is not None))

    def choose_draw(self) -> Action | None:
        tb = self.table
        top = tb.pile[-1] if tb.pile else None
        if tb.options.get("take_discard") and top is not None and VALUE[top] <= 3:
            slot = self.worst()
            if self.estimates()[slot] - VALUE[top] >= 3:
                return {"do": "take_discard", "slot": SLOTS[slot]}
        return {"do": "draw"}

    def choose_play(self, card: str) -> Action | None:
        rank = card[0]
        hand = self.table.hand
        if rank == KING:
            return {"do": "king"}
        if rank == JACK:
            return {"do": "jack"} if hand[1] is None else {"do": "discard"}
        slot = self.worst()
        est = self.estimates()[slot]
        if rank == QUEEN:
            if hand[slot] is not None and est >= 8:
                n = self.table.n
                target = (self.seat + 1 + self.pick(n - 1)) % n
                return {
                    "do": "queen",
                    "slot": SLOTS[slot],
                    "target": target,
                    "target_slot": SLOTS[self.pick(3)],
                }
            return {"do": "discard"}
        if est - VALUE[card] >= 1:
            return {"do": "swap", "slot": SLOTS[slot]}
        return {"do": "discard"}


class EasyBot(NormalBot):
    """A forgetful casual player who calls late or wrongly (see the module's docstring)."""

    forget = 0.2
    p_whim = 0.03

    def noticed(self, msg: Msg) -> None:
        tb = self.table
        if msg.get("type") == "turn" and msg.get("seat") == self.seat and msg.get("draw") == 1:
            hand = tb.hand
            for slot in range(3):
                if hand[slot] is not None and self.chance(self.forget):
                    hand[slot] = None

    def threshold(self) -> float:
        return 5 + self.pick(10) + self.table.my_turns // 3

    def wants_call(self) -> bool:
        return self.chance(self.p_whim) or self.total() <= self.threshold()
