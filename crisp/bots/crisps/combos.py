"""Crisps! combinations on rank counts, fast enough for a bot's thousands of rollouts.

A hand (or any multiset of cards) is a list of 10 counts, index 0 for rank ``1`` … index 8 for
``9`` and index 9 for a Crisp (``X``). A combination is a ``Combo`` tuple ``(kind, rank, size)``:
``kind`` one of ``SINGLE``…``FOUR``, ``rank`` the index of its lowest card (CS-RUN) and ``size``
its number of cards. The rules are those of CS-COMBO, CS-RUN, CS-CRISP-RUN, CS-FOLLOW and
CS-SPECIAL; the engine's classifier is the authority, and the tests check this module against the
engine's ``legal_moves``. A bot chooses from the legal plays its seat is sent; this module is for
what it imagines (rollouts, plans).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

RANKS = "123456789X"
CRISP = 9
N_RANKS = 10
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}

SINGLE, PAIR, RUN, PAIR_RUN, THREE, FOUR = range(6)
KIND_NAMES = ("single", "pair", "run", "pair_run", "three", "four")
KIND_INDEX = {name: i for i, name in enumerate(KIND_NAMES)}

Combo = tuple[int, int, int]  # (kind, rank index of the lowest card, number of cards)
Counts = list[int]


def counts(cards: str) -> Counts:
    """``"3344X"`` as counts."""
    c = [0] * N_RANKS
    for ch in cards:
        c[RANK_INDEX[ch]] += 1
    return c


def cards_of(c: Iterable[int]) -> str:
    """Counts as cards in rank order (``X`` last)."""
    return "".join(RANKS[i] * n for i, n in enumerate(c))


def is_special(combo: Combo) -> bool:
    return combo[0] >= THREE


def top_rank(combo: Combo) -> int:
    """The index of the combination's highest card."""
    kind, rank, size = combo
    if kind == RUN:
        return rank + size - 1
    if kind == PAIR_RUN:
        return rank + size // 2 - 1
    return rank


def holds_crisp(combo: Combo) -> bool:
    """The combination holds at least one Crisp (for CS-SPECIAL)."""
    return top_rank(combo) == CRISP


def combo_counts(combo: Combo) -> Counts:
    """The cards of a combination, as counts."""
    c = [0] * N_RANKS
    kind, rank, size = combo
    if kind == RUN:
        for i in range(rank, rank + size):
            c[i] = 1
    elif kind == PAIR_RUN:
        for i in range(rank, rank + size // 2):
            c[i] = 2
    else:
        c[rank] = size
    return c


def combo_cards(combo: Combo) -> str:
    return cards_of(combo_counts(combo))


def remove(c: Counts, combo: Combo) -> None:
    """Take the combination's cards out of ``c`` (in place; the caller knows they are there)."""
    kind, rank, size = combo
    if kind == RUN:
        for i in range(rank, rank + size):
            c[i] -= 1
    elif kind == PAIR_RUN:
        for i in range(rank, rank + size // 2):
            c[i] -= 2
    else:
        c[rank] -= size


def classify(cards: str, crisp_runs: bool) -> Combo | None:
    """The combination a set of cards makes, or None (no combination under these options)."""
    if not cards or any(ch not in RANK_INDEX for ch in cards):
        return None
    c = counts(cards)
    present = [i for i in range(N_RANKS) if c[i]]
    n = len(cards)
    if len(present) == 1:
        kind = (SINGLE, PAIR, THREE, FOUR)[n - 1]
        return (kind, present[0], n)
    lo, hi = present[0], present[-1]
    if hi - lo + 1 != len(present) or (hi == CRISP and not crisp_runs):
        return None
    per = {c[i] for i in present}
    if per == {1} and len(present) >= 3:
        return (RUN, lo, n)
    if per == {2} and len(present) >= 2:
        return (PAIR_RUN, lo, n)
    return None


def can_follow(prev: Combo, play: Combo) -> bool:
    """CS-FOLLOW and CS-SPECIAL: may ``play`` follow ``prev``?"""
    if play[0] >= THREE:
        if prev[0] < THREE:
            return holds_crisp(prev)
        return play[2] > prev[2] or (play[2] == prev[2] and play[1] > prev[1])
    return prev[0] == play[0] and prev[2] == play[2] and play[1] >= prev[1]


def _runs(c: Counts, need: int, min_len: int, top: int) -> Iterator[Combo]:
    """Runs (``need`` 1) or pair runs (``need`` 2) of at least ``min_len`` ranks."""
    kind = RUN if need == 1 else PAIR_RUN
    for start in range(top + 1):
        end = start
        while end <= top and c[end] >= need:
            end += 1
            if end - start >= min_len:
                yield (kind, start, (end - start) * need)


def leads(c: Counts, crisp_runs: bool) -> list[Combo]:
    """Every combination that can be made from ``c`` (CS-LEAD: any may lead)."""
    out: list[Combo] = []
    for i in range(N_RANKS):
        n = c[i]
        if n >= 1:
            out.append((SINGLE, i, 1))
        if n >= 2:
            out.append((PAIR, i, 2))
        if n >= 3:
            out.append((THREE, i, 3))
        if n >= 4:
            out.append((FOUR, i, 4))
    top = CRISP if crisp_runs else CRISP - 1
    out.extend(_runs(c, 1, 3, top))
    out.extend(_runs(c, 2, 2, top))
    return out


def specials_over(c: Counts, prev: Combo) -> list[Combo]:
    """The Specials in ``c`` that may follow ``prev`` (CS-SPECIAL)."""
    out: list[Combo] = []
    if max(c) < 3 or (prev[0] < THREE and not holds_crisp(prev)):
        return out
    for i in range(N_RANKS):
        for size, kind in ((3, THREE), (4, FOUR)):
            if c[i] >= size and can_follow(prev, (kind, i, size)):
                out.append((kind, i, size))
    return out


def ordinary_over(c: Counts, prev: Combo, crisp_runs: bool) -> list[Combo]:
    """The Ordinary combinations in ``c`` that may follow ``prev`` (CS-FOLLOW), lowest first."""
    kind, rank, size = prev
    out: list[Combo] = []
    if kind >= THREE:
        return out
    if kind in (SINGLE, PAIR):
        for i in range(rank, N_RANKS):
            if c[i] >= size:
                out.append((kind, i, size))
        return out
    need = 1 if kind == RUN else 2
    length = size // need
    top = CRISP if crisp_runs else CRISP - 1
    for start in range(rank, top - length + 2):
        if all(c[j] >= need for j in range(start, start + length)):
            out.append((kind, start, size))
    return out


def follows(c: Counts, prev: Combo, crisp_runs: bool) -> list[Combo]:
    """Every combination in ``c`` that may follow ``prev``: the Ordinary ones, then Specials."""
    return ordinary_over(c, prev, crisp_runs) + specials_over(c, prev)


def pool_can_follow(pool: Counts, prev: Combo, crisp_runs: bool) -> bool:
    """CS-OPT-SKIP: can any combination that may follow ``prev`` be made from ``pool``?"""
    if specials_over(pool, prev):
        return True
    return bool(ordinary_over(pool, prev, crisp_runs))


def to_wire(combo: Combo) -> dict[str, object]:
    """A combination as the contract's legal-play entry (cards, kind, rank, size)."""
    return {
        "cards": combo_cards(combo),
        "kind": KIND_NAMES[combo[0]],
        "rank": RANKS[combo[1]],
        "size": combo[2],
    }


def from_wire(entry: dict[str, object], crisp_runs: bool) -> Combo | None:
    """A legal-play entry (or a ``play`` message) as a ``Combo``, from its cards."""
    cards = entry.get("cards")
    return classify(cards, crisp_runs) if isinstance(cards, str) else None
