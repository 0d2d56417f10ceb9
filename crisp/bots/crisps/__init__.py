"""Crisps! bots that play fair: each is a client of its seat, seeing only that seat's messages.

``make_bot(level, seat, players, options, seed)`` gives a ``CrispsBot`` of one of the ``LEVELS``:

- ``random``: a uniformly random legal move;
- ``normal``: plays its lowest combination, keeps its Specials for Crisps, takes a face-up card
  that fits its hand;
- ``hard``: counts the cards, models the opponent's hand from what it took face up and what it
  passed on, and picks each move by Monte Carlo search over deals of the unknown cards.

``crisp.bots.crisps.arena`` plays whole games of bots in-process; ``crisp simulate --game crisps``
reports them (``crisp.bots.crisps.lab``).
"""

from __future__ import annotations

from typing import Any

from crisp.bots.common.base import Action, Intent
from crisp.bots.crisps.base import CrispsBot
from crisp.bots.crisps.hard import HardBot
from crisp.bots.crisps.normal import NormalBot
from crisp.bots.crisps.random_bot import RandomBot

LEVELS: dict[str, type[CrispsBot]] = {
    "random": RandomBot,
    "normal": NormalBot,
    "hard": HardBot,
}


def make_bot(
    level: str, seat: int, players: list[str], options: dict[str, Any], seed: int
) -> CrispsBot:
    """A bot of ``level`` (``random``, ``normal`` or ``hard``) for ``seat`` (0 or 1)."""
    cls = LEVELS.get(level)
    if cls is None:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    return cls(seat, players, options, level=level, seed=seed)


__all__ = ["LEVELS", "Action", "CrispsBot", "Intent", "make_bot"]
