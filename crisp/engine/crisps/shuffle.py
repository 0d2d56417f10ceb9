"""Where each round's deck and the first starter come from (CS-SHUFFLE, CS-START): explicit
decks (top first) and a first starter, or the commit–reveal shuffle of docs/fairness.md with the
Crisps! labels: round r's deck is a Fisher–Yates shuffle of the sorted deck ``1111…XXXX`` on the
stream ``b"crisps-deck" + r`` (4 bytes big-endian), the first starter ``below(2)`` on
``b"crisps-starter"``. An integer seed S deals as ``Fairness.from_int(S, 2)`` (a server seed of
SHA-256(b"crisp-seed:S"), empty client seeds). Explicit decks come first; rounds past them are
derived from the seed or fairness, if any."""

from __future__ import annotations

from crisp.engine.common.fairness import Committed, Fairness, Stream
from crisp.engine.crisps.cards import SORTED_DECK

DECK_LABEL = b"crisps-deck"
STARTER_LABEL = b"crisps-starter"


def deck_from_key(key: bytes, round_number: int) -> str:
    """Round ``round_number``'s deck (from 1), top first."""
    if round_number < 1:
        raise ValueError("rounds are numbered from 1")
    stream = Stream(key, DECK_LABEL + round_number.to_bytes(4, "big"))
    deck = list(SORTED_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return "".join(deck)


def starter_from_key(key: bytes) -> int:
    return Stream(key, STARTER_LABEL).below(2)


class Dealing:
    """The decks and the first starter of one game."""

    def __init__(
        self,
        seed: int | None,
        fairness: Fairness | Committed | None,
        decks: list[str] | None,
        first_starter: int | None,
    ) -> None:
        if seed is not None and fairness is not None:
            raise ValueError("a game deals from a seed or from fairness, not both")
        if seed is not None:
            fairness = Fairness.from_int(seed, 2)
        self.key = fairness.key() if isinstance(fairness, Fairness) else None
        self.decks = list(decks or [])
        self._first = first_starter
        if first_starter is None and self.key is None:
            raise ValueError("a game without a seed or a revealed fairness needs first_starter")
        self._cache: dict[int, str] = {}

    def deck(self, round_number: int) -> str:
        if round_number <= len(self.decks):
            return self.decks[round_number - 1]
        if self.key is None:
            raise ValueError(
                f"no deck for round {round_number}: the game has {len(self.decks)} and no seed"
            )
        if round_number not in self._cache:
            self._cache[round_number] = deck_from_key(self.key, round_number)
        return self._cache[round_number]

    def first_starter(self) -> int:
        if self._first is not None:
            return self._first
        assert self.key is not None
        return starter_from_key(self.key)
