"""Bots that play fair: each is a client of its seat, seeing only that seat's messages.

``make_bot(level, seat, players, options, seed)`` gives a ``Bot`` of one of the ``LEVELS``:

- ``random``: random legal choices (the engine's ``random-legal`` policy on the bot interface);
- ``easy``: a casual player that forgets what it saw and calls late or wrongly;
- ``normal``: a casual player that remembers its own hand;
- ``hard``: remembers everything its seat was shown, counts cards, reads its opponents and calls
  by expected score.

``crisp.bots.crisp.arena`` plays whole games of bots in-process; ``crisp simulate --bots`` reports
them.
"""

from __future__ import annotations

from typing import Any

from crisp.bots.common.base import Action, Intent
from crisp.bots.crisp.base import Bot
from crisp.bots.crisp.casual import EasyBot, NormalBot
from crisp.bots.crisp.hard import HardBot
from crisp.bots.crisp.random_bot import RandomBot

LEVELS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}


def make_bot(level: str, seat: int, players: list[str], options: dict[str, Any], seed: int) -> Bot:
    """A bot of ``level`` (``random``, ``easy``, ``normal`` or ``hard``) for ``seat``."""
    cls = LEVELS.get(level)
    if cls is None:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    return cls(seat, players, options, level=level, seed=seed)


__all__ = ["LEVELS", "Action", "Bot", "Intent", "make_bot"]
