"""The ``normal`` level: a sensible casual player who minds its own hand.

It plays by the rules of thumb of ``crisp.bots.crisps.policy``: it goes out when it can, leads
and follows its lowest combination without breaking up a three or four of a kind, keeps its
Specials for plays holding a Crisp (or for when it must), and takes the face-up card when it fits
its hand. It counts nothing and never looks at what the opponent did.
"""

from __future__ import annotations

from crisp.bots.crisps import policy
from crisp.bots.crisps.base import CrispsBot
from crisp.bots.crisps.combos import Combo


class NormalBot(CrispsBot):
    """``normal``'s rules of thumb (see ``crisp.bots.crisps.policy``)."""

    def choose_lead(self, legal: list[Combo]) -> Combo:
        tb = self.table
        return policy.choose_lead(tb.hand, sum(tb.hand), legal)

    def choose_follow(self, legal: list[Combo]) -> Combo | None:
        tb = self.table
        prev = tb.prev
        if prev is None:
            return None
        return policy.choose_follow(tb.hand, sum(tb.hand), tb.hands[tb.opp], prev, legal)

    def choose_take(self) -> bool:
        tb = self.table
        return policy.choose_take(tb.hand, tb.faceup)
