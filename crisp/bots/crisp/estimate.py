"""Estimating unknown cards from what is left: the values an unseen card can have.

A card a seat has not seen (or whose place it lost) is one of the cards whose place it does not
know: ``Pool`` counts those by value, so that an unknown slot or the next draw is estimated by the
mean of what is left (R-VALUE: A 1, 2–9, T J Q K 10), not by the mean of a full deck.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from crisp.engine.crisp.cards import KING, QUEEN, SPECIAL_RANKS, VALUE

#: The mean value of a full deck: (4·45 + 16·10) / 52.
DECK_MEAN = 340 / 52


class Pool:
    """The unseen cards, counted by value (1 to 10) and by kind (a number card or J, Q, K)."""

    __slots__ = ("counts", "kings", "mean", "numbers", "queens", "size", "specials", "var")

    def __init__(self, cards: Iterable[str]) -> None:
        counts = [0] * 11  # counts[v]: unseen A–T cards of value v
        specials = kings = queens = 0
        for card in cards:
            rank = card[0]
            if rank in SPECIAL_RANKS:
                specials += 1
                kings += rank == KING
                queens += rank == QUEEN
            else:
                counts[VALUE[card]] += 1
        self.counts = counts
        self.specials = specials
        self.kings = kings
        self.queens = queens
        self.numbers = sum(counts)
        self.size = self.numbers + specials
        if self.size == 0:
            self.mean, self.var = DECK_MEAN, 8.0
            return
        total = sum(v * c for v, c in enumerate(counts)) + 10 * specials
        squares = sum(v * v * c for v, c in enumerate(counts)) + 100 * specials
        self.mean = total / self.size
        self.var = max(squares / self.size - self.mean**2, 0.0)

    def dist(self) -> list[tuple[int, float]]:
        """The value of an unknown card: ``(value, probability)`` pairs."""
        if self.size == 0:
            return [(round(DECK_MEAN), 1.0)]
        out = [(v, c / self.size) for v, c in enumerate(self.counts) if c]
        if self.specials:
            tens = [p for v, p in out if v == 10]
            out = [(v, p) for v, p in out if v != 10]
            out.append((10, (tens[0] if tens else 0.0) + self.specials / self.size))
        return out

    def number_mean(self) -> float:
        """The mean value of an unknown A–T: a card swapped in from a draw is never a J, Q or K
        (R-SPECIAL)."""
        if self.numbers == 0:
            return self.mean
        return sum(v * c for v, c in enumerate(self.counts)) / self.numbers

    def mean_below(self, bound: float) -> float:
        """The mean value of an unknown card known to be worth less than ``bound``."""
        num = den = 0
        for v, c in enumerate(self.counts):
            if c and v < bound:
                num += v * c
                den += c
        return num / den if den else min(self.mean, max(1.0, bound - 1))

    def draw_gain(self, worst: float) -> float:
        """The expected gain of a draw for a hand whose worst card is worth ``worst``: a drawn A–T
        is swapped in when lower (J, Q and K count nothing here)."""
        if self.size == 0:
            return 0.0
        gain = sum(c * (worst - v) for v, c in enumerate(self.counts) if c and v < worst)
        return gain / self.size


def normal_above(x: float, mean: float, var: float) -> float:
    """P(X > x) for X normal(mean, var)."""
    if var <= 1e-9:
        return 1.0 if mean > x else 0.0
    return 0.5 * math.erfc((x - mean) / math.sqrt(2 * var))
