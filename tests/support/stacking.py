"""Stacked decks for scenario tests: the cards a test cares about on top, the rest in a fixed order.

Kept independent of ``crisp.engine.crisp`` on purpose: the scenarios are an outside check of the
engine.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"
#: AS 2S … KS AH … KH AD … KD AC … KC: the order the cards below the stacked top come in.
FIXED_ORDER: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)


def stacked_deck(top: list[str]) -> list[str]:
    """A full 52-card deck, top first: ``top`` in that order, then the others in FIXED_ORDER."""
    unknown = [card for card in top if card not in FIXED_ORDER]
    assert not unknown, f"unknown card codes {unknown}"
    assert len(set(top)) == len(top), f"duplicate cards in {top}"
    taken = set(top)
    deck = list(top) + [card for card in FIXED_ORDER if card not in taken]
    assert len(deck) == 52
    return deck


def deal_deck(dealer: int, hands: list[list[str]], draws: list[str]) -> list[str]:
    """The deck that deals ``hands`` (per seat, ``[left, middle, right]``) with ``draws`` next.

    R-DEAL: three passes, one card at a time, starting with the seat after the dealer; the first
    pass fills the left slots, the second the middle ones, the third the right ones.
    """
    n = len(hands)
    assert 2 <= n <= 8 and 0 <= dealer < n
    assert all(len(hand) == 3 for hand in hands)
    top: list[str] = []
    for slot in range(3):
        for k in range(1, n + 1):
            top.append(hands[(dealer + k) % n][slot])
    return stacked_deck(top + draws)
