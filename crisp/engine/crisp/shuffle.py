"""Where Crisp's dealers and decks come from: the commit–reveal shuffle of docs/fairness.md with
Crisp's labels, or the SplitMix64 seed of games made before it.

- the first dealer is ``below(players)`` on ``b"dealer"``;
- round r's deck (r from 1) is a Fisher–Yates shuffle of ``SORTED_DECK`` on
  ``b"deck" + r as 4 bytes big-endian``: for i from 51 down to 1, j = below(i + 1), swap i and j;
  position 0 is the top.
"""

from __future__ import annotations

from collections.abc import Callable

from crisp.engine.common.fairness import Fairness, Stream
from crisp.engine.crisp import rng
from crisp.engine.crisp.cards import SORTED_DECK

DEALER_LABEL = b"dealer"
DECK_LABEL = b"deck"


def dealer_from_key(key: bytes, players: int) -> int:
    """The first dealer (R-DEALER): ``below(players)`` on the stream ``b"dealer"``."""
    return _dealer(Stream(key, DEALER_LABEL), players)


def deck_from_key(key: bytes, round_number: int) -> list[str]:
    """Round ``round_number``'s deck (1-based), top first: Fisher–Yates on ``b"deck" + r``."""
    return _deck(lambda label: Stream(key, label), round_number)


def first_dealer(fairness: Fairness, players: int) -> int:
    """The first dealer of a game dealt by ``fairness``."""
    return _dealer(fairness.stream(DEALER_LABEL), players)


def round_deck(fairness: Fairness, round_number: int) -> list[str]:
    """Round ``round_number``'s deck (1-based) of a game dealt by ``fairness``, top first."""
    return _deck(fairness.stream, round_number)


def _dealer(stream: Stream, players: int) -> int:
    return stream.below(players)


def _deck(stream_of: Callable[[bytes], Stream], round_number: int) -> list[str]:
    if round_number < 1:
        raise ValueError("rounds are numbered from 1")
    stream = stream_of(DECK_LABEL + round_number.to_bytes(4, "big"))
    deck = list(SORTED_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class FairShuffle:
    """The dealers and decks of a game dealt by the commit–reveal shuffle."""

    __slots__ = ("fairness",)

    def __init__(self, fairness: Fairness) -> None:
        self.fairness = fairness

    def first_dealer(self, players: int) -> int:
        return first_dealer(self.fairness, players)

    def deck(self, round_number: int) -> list[str]:
        return round_deck(self.fairness, round_number)


class LegacySeed:
    """The derivation of records and rooms made before ``hmac-sha256/1``: a 63-bit game seed
    driving SplitMix64 (``crisp.engine.crisp.rng``), kept byte for byte."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def first_dealer(self, players: int) -> int:
        return rng.first_dealer(self.seed, players)

    def deck(self, round_number: int) -> list[str]:
        return rng.round_deck(self.seed, round_number)
