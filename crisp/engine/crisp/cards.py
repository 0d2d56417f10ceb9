"""Cards as two-letter codes (rank then suit: ``AS``, ``TD``, ``QH``) and their values (R-VALUE)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

RANKS = "A23456789TJQK"
SUITS = "SHDC"

#: The 52 codes in the sorted order seeded shuffles start from: ``AS 2S … KS AH … KC``.
SORTED_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
ALL_CARDS: frozenset[str] = frozenset(SORTED_DECK)

#: R-VALUE: Ace 1, 2 to 9 their number, T J Q K 10.
VALUE: dict[str, int] = {
    code: (RANKS.index(code[0]) + 1 if code[0] in "A23456789" else 10) for code in SORTED_DECK
}

JACK, QUEEN, KING = "J", "Q", "K"
SPECIAL_RANKS = frozenset((JACK, QUEEN, KING))

#: A slot of a hand, by name (the wire's and the record's).
SlotName = Literal["left", "middle", "right"]
SLOTS: tuple[SlotName, SlotName, SlotName] = ("left", "middle", "right")
SLOT_INDEX: dict[str, int] = {name: i for i, name in enumerate(SLOTS)}
LEFT, MIDDLE, RIGHT = 0, 1, 2
#: R-LOOK-START and R-QUEEN-LOOK: the slots a player may look at.
LOOKABLE = (LEFT, RIGHT)


def is_special(card: str) -> bool:
    """A J, Q or K (R-SPECIAL): never swapped into a hand when drawn from the deck."""
    return card[0] in SPECIAL_RANKS


def check_deck(deck: Sequence[str]) -> list[str]:
    """Return ``deck`` as a list if it is the 52 distinct codes (R-DECK), else raise ValueError."""
    cards = list(deck)
    if len(cards) != 52:
        raise ValueError(f"a deck has 52 cards, this one has {len(cards)}")
    unknown = [c for c in cards if not isinstance(c, str) or c not in ALL_CARDS]
    if unknown:
        raise ValueError(f"unknown card code {unknown[0]!r} (rank A23456789TJQK, suit SHDC)")
    seen: set[str] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"card {card} appears twice")
        seen.add(card)
    return cards
