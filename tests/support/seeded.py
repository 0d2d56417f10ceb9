"""The deals of a server started with ``CRISP_FIXED_SEED`` S (the ``fixed_seed`` setting): every
game's seeds are the engine's ``Fairness.from_int(S, n)`` (docs/fairness.md, "Integer seeds"),
so its first dealer and decks are known from S and the number of players."""

from __future__ import annotations

from typing import Any

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisp.shuffle import first_dealer, round_deck


def fixed_deck(seed: int, players: int, round_number: int = 1) -> list[str]:
    """Round ``round_number``'s deck (top first) of a fixed-seed server's game of ``players``."""
    return round_deck(Fairness.from_int(seed, players), round_number)


def fixed_first_dealer(seed: int, players: int) -> int:
    return first_dealer(Fairness.from_int(seed, players), players)


def fixed_fairness(seed: int, players: int) -> dict[str, Any]:
    """The record's ``fairness`` object of such a game in play (no server seed yet)."""
    return Fairness.from_int(seed, players).public().to_record()
