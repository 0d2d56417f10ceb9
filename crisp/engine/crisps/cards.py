"""Cards and notation (CS-DECK, CS-RANK, CS-NOTATION): a card is its rank, ``1``–``9`` or ``X``
(a Crisp); a set of cards is a string of ranks, kept in rank order. Hands and played cards are
held as counts by rank (``Counts``: ten integers, index 0 for ``1`` … index 9 for ``X``)."""

from __future__ import annotations

from collections.abc import Iterable

from crisp.engine.crisps.errors import CrispsRefusal

#: The ranks, lowest first (CS-RANK): 1 < 2 < … < 9 < X.
RANKS = "123456789X"
#: Copies of each rank (CS-DECK).
COPIES = 4
DECK_SIZE = len(RANKS) * COPIES
#: The sorted deck, what a shuffle starts from: ``1111 2222 … 9999 XXXX``.
SORTED_DECK = "".join(r * COPIES for r in RANKS)

Counts = list[int]


def value(rank: str) -> int:
    """A rank's index, 0 (``1``) to 9 (``X``)."""
    return RANKS.index(rank)


def parse(cards: object) -> Counts:
    """The counts of a set written in the notation (any order); refused under CS-NOTATION if it
    is not a non-empty string of ranks."""
    if not isinstance(cards, str) or not cards:
        raise CrispsRefusal("CS-NOTATION", "a play is a non-empty string of ranks 1-9 and X")
    counts = [0] * len(RANKS)
    for ch in cards:
        i = RANKS.find(ch)
        if i < 0:
            raise CrispsRefusal("CS-NOTATION", f"{ch!r} is not a rank (1-9 or X)")
        counts[i] += 1
    return counts


def text(counts: Iterable[int]) -> str:
    """The set of ``counts`` in the notation, rank order."""
    return "".join(r * n for r, n in zip(RANKS, counts, strict=True))


def counts_of(cards: str) -> Counts:
    """The counts of a string already known to be well formed."""
    counts = [0] * len(RANKS)
    for ch in cards:
        counts[RANKS.index(ch)] += 1
    return counts


def sort_cards(cards: str) -> str:
    return text(counts_of(cards))


def contains(hand: Counts, part: Counts) -> bool:
    return all(h >= p for h, p in zip(hand, part, strict=True))


def is_deck(deck: object) -> bool:
    """A deck order: 40 characters holding each rank four times."""
    return (
        isinstance(deck, str)
        and len(deck) == DECK_SIZE
        and all(c in RANKS for c in deck)
        and counts_of(deck) == [COPIES] * len(RANKS)
    )
