"""The pure rules of Crisps! (docs/rules-crisps.md): no asyncio, no web, no wall clock.

``CrispsGame`` is deterministic from a seed, from explicit decks and a first starter, or from the
commit–reveal ``Fairness`` of ``crisp.engine.fairness``. Time is an argument (game seconds)."""

from crisp.crisps.engine.combos import Combo, can_follow, classify
from crisp.crisps.engine.errors import CrispsRefusal
from crisp.crisps.engine.game import CrispsGame
from crisp.crisps.engine.messages import WATCHERS, Out
from crisp.crisps.engine.options import CrispsOptions

__all__ = ["WATCHERS", "Combo", "CrispsGame", "CrispsOptions", "CrispsRefusal", "Out",
           "can_follow", "classify"]
