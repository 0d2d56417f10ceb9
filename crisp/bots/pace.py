"""A human pace for bots in rooms (the simulation acts at once, at the times bots ask for).

``human_time`` turns a bot's decision ``(t, action)`` into the moment a room should carry it out:
after a short random delay, a crisp call always inside its window (and before the next player may
start, so that the call is not a late one), and anything with a per-draw clock well before the
draw's deadline. The delays come from the room's own generator, not the bot's, so that a bot's
choices do not depend on its pace.
"""

from __future__ import annotations

from typing import Any

from crisp.bots.base import Bot
from crisp.engine.rng import Rng

#: Delays in seconds (low, high) by action.
DELAYS: dict[str, tuple[float, float]] = {
    "ready": (0.8, 3.0),
    "draw": (0.6, 1.6),
    "take_discard": (0.8, 2.0),
    "crisp": (0.3, 1.2),
}
PLAY_DELAY = (0.8, 2.2)  # swap, discard, jack, queen, king
MARGIN = 0.25  # seconds kept before a window's end or a draw's deadline


def human_time(bot: Bot, decision: tuple[float, dict[str, Any]], rng: Rng) -> float:
    """The game time at which a room should carry out ``decision`` (never before its time)."""
    t, action = decision
    low, high = DELAYS.get(action["do"], PLAY_DELAY)
    at = t + low + (high - low) * rng.random()
    tb = bot.table
    if action["do"] == "ready":
        return max(t, min(at, tb.look_until - MARGIN))
    if action["do"] == "crisp":
        latest = min(tb.window_until - MARGIN, tb.window_since + 2.0 - MARGIN)
        return max(t, min(at, latest))
    if tb.deadline is not None:
        return max(t, min(at, float(tb.deadline) - 2 * MARGIN))
    return at
