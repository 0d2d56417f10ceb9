"""SplitMix64, specified to the bit: the dealers and decks of games made before the commit–reveal
shuffle (``Game(seed=S)``, a record's ``"seed"``; new games deal by ``fairness.py``), and the
simulator's and bots' choices.

SplitMix64 is tiny, fast and the same in every language, so another implementation (a client,
a bot written elsewhere) can derive the same dealers and decks from a game's seed. The engine never
touches Python's global ``random``.
"""

from __future__ import annotations

from crisp.engine.crisp.cards import SORTED_DECK

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class Rng:
    """SplitMix64 (Steele, Lea and Flood, 2014)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def random(self) -> float:
        """A uniform float in ``[0, 1)`` (53 bits)."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias (rejection sampling)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n


def first_dealer(seed: int, players: int) -> int:
    """The seat of the first dealer (R-DEALER) for a game seed."""
    return Rng(seed).below(players)


def round_deck(seed: int, round_number: int) -> list[str]:
    """Round ``round_number``'s deck (1-based), top first: Fisher–Yates over the sorted deck."""
    rng = Rng((seed + round_number * GOLDEN) & MASK64)
    deck = list(SORTED_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
