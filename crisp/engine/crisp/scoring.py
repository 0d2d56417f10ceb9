"""Round scores and the end of the game (docs/rules.md §5)."""

from __future__ import annotations

from collections.abc import Sequence

from crisp.engine.crisp.cards import VALUE

CALLER_BONUS = 5


def hand_total(hand: Sequence[str]) -> int:
    """R-ROUND-SCORE, R-VALUE: the total of a player's three cards."""
    return sum(VALUE[c] for c in hand)


def round_scores(hands: Sequence[Sequence[str]], caller: int | None) -> list[int]:
    """R-CALLER-BONUS: the caller loses 5 if strictly lowest, else gains 5."""
    scores = [hand_total(h) for h in hands]
    if caller is not None:
        mine = scores[caller]
        lowest = all(mine < s for i, s in enumerate(scores) if i != caller)
        scores[caller] = mine - CALLER_BONUS if lowest else mine + CALLER_BONUS
    return scores


def game_winners(totals: Sequence[int], limit: int) -> list[int] | None:
    """R-GAME-END: the winners if some total reached the limit, else None (the game goes on)."""
    if max(totals) < limit:
        return None
    best = min(totals)
    return [seat for seat, total in enumerate(totals) if total == best]
