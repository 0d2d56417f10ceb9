"""The pure rules of Crisps! (docs/rules-crisps.md): no asyncio, no web, no wall clock.

``CrispsGame`` is deterministic from a seed, from explicit decks and a first starter, or from the
commit–reveal ``Fairness`` of ``crisp.engine.common.fairness``. Time is an argument (game
seconds)."""

from crisp.engine.common.messages import WATCHERS, Out
from crisp.engine.crisps.combos import Combo, can_follow, classify
from crisp.engine.crisps.errors import CrispsRefusal
from crisp.engine.crisps.game import CrispsGame
from crisp.engine.crisps.options import CrispsOptions

__all__ = [
    "WATCHERS",
    "Combo",
    "CrispsGame",
    "CrispsOptions",
    "CrispsRefusal",
    "Out",
    "can_follow",
    "classify",
]
