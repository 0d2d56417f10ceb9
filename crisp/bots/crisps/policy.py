"""The ``normal`` player's rules of thumb, on rank counts: the ``normal`` level plays by them, and
``hard`` imagines both players playing by them in its rollouts.

- It **goes out** whenever one legal play empties its hand.
- It **leads lowest**: the combination of its lowest rank, the longest of them (a run or a pair
  run from that rank sheds more than its single), never breaking up a three or four of a kind.
- It **follows lowest**: the lowest Ordinary combination that may follow, never breaking up a
  three or four of a kind; failing one, it passes.
- It **keeps Specials for Crisps**: it spends a three or four of a kind only on a play holding a
  Crisp, or when it must: its hand holds nothing else to lead, or, on a Special, the opponent is
  down to ``SPECIAL_ON_SPECIAL`` cards or fewer (else it would go out unopposed).
- Its **draw** takes the face-up card when it fits the hand (a second, third or fourth of a rank,
  the missing middle or end of a three-card run) or is a 9 or a Crisp; otherwise the blind card.
"""

from __future__ import annotations

from collections.abc import Sequence

from crisp.bots.crisps.combos import (
    CRISP,
    RUN,
    THREE,
    Combo,
    Counts,
    holds_crisp,
)

#: On a Special, ``normal`` answers with a Special only when the opponent holds this few cards.
SPECIAL_ON_SPECIAL = 4
#: The face-up card is taken when it is this rank (index) or higher: a 9 or a Crisp.
HIGH_TAKE = 8


def breaks_bomb(h: Counts, combo: Combo) -> bool:
    """An Ordinary combination that takes a card of a rank held three or four times."""
    kind, rank, size = combo
    if kind >= THREE:
        return False
    if kind < RUN:
        return h[rank] >= 3
    stop = rank + (size if kind == RUN else size // 2)
    return max(h[rank:stop]) >= 3


def _lead_key(combo: Combo) -> tuple[int, int]:
    return (combo[1], -combo[2])


def choose_lead(h: Counts, n: int, candidates: Sequence[Combo]) -> Combo:
    """``normal``'s lead among ``candidates`` (every combination its hand makes)."""
    best: Combo | None = None
    special: Combo | None = None
    bombs = max(h) >= 3
    for combo in candidates:
        if combo[2] == n:
            return combo
        if combo[0] >= THREE:
            if special is None or _lead_key(combo) < _lead_key(special):
                special = combo
            continue
        if bombs and breaks_bomb(h, combo):
            continue
        if best is None or _lead_key(combo) < _lead_key(best):
            best = combo
    if best is not None:
        return best
    if special is not None:
        return special
    return min(candidates, key=_lead_key)


def choose_follow(
    h: Counts, n: int, opp_n: int, prev: Combo, candidates: Sequence[Combo]
) -> Combo | None:
    """``normal``'s follow among ``candidates`` (the legal plays), or None: pass."""
    best: Combo | None = None
    special: Combo | None = None
    bombs = max(h) >= 3
    for combo in candidates:
        if combo[2] == n:
            return combo
        if combo[0] >= THREE:
            if special is None or (combo[2], combo[1]) < (special[2], special[1]):
                special = combo
        elif (best is None or combo[1] < best[1]) and not (bombs and breaks_bomb(h, combo)):
            best = combo
    if best is not None:
        return best
    if special is not None and (
        (prev[0] < THREE and holds_crisp(prev)) or opp_n <= SPECIAL_ON_SPECIAL
    ):
        return special
    return None


def fits(h: Counts, card: int) -> bool:
    """The card pairs up with the hand or completes a three-card run (or is high)."""
    if card >= HIGH_TAKE or h[card] >= 1:
        return True
    top = CRISP - 1  # a Crisp is high anyway
    left = card >= 1 and h[card - 1] >= 1
    right = card + 1 <= top and h[card + 1] >= 1
    if left and right:
        return True
    if left and card >= 2 and h[card - 2] >= 1:
        return True
    return right and card + 2 <= top and h[card + 2] >= 1


def choose_take(h: Counts, faceup: int | None) -> bool:
    """``normal``'s draw: True to take the face-up card, False for the blind one."""
    return faceup is not None and fits(h, faceup)


def whole_hand(h: Counts, n: int, candidates: Sequence[Combo]) -> Combo | None:
    """The candidate that empties the hand, if any."""
    for combo in candidates:
        if combo[2] == n:
            return combo
    return None
