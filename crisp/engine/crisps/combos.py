"""Combinations (docs/rules-crisps.md §3) and which may follow which (§4): ONE classifier,
``classify``, and ONE follow test, ``can_follow``. Everything else (legal moves, the skip's pool
test, bots) goes through these two."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from crisp.engine.crisps.cards import COPIES, RANKS, Counts, text

CRISP = len(RANKS) - 1  # the index of X
ORDINARY = ("single", "pair", "run", "pair_run")
SPECIAL = ("three", "four")
KINDS = ORDINARY + SPECIAL


@dataclass(frozen=True, slots=True)
class Combo:
    """A combination: its cards (rank order), kind, rank (its lowest card, CS-RUN) and size."""

    cards: str
    kind: str
    rank: str
    size: int

    @property
    def special(self) -> bool:
        return self.kind in SPECIAL

    @property
    def has_crisp(self) -> bool:
        return "X" in self.cards

    @property
    def value(self) -> int:
        return RANKS.index(self.rank)

    def wire(self) -> dict[str, object]:
        return {"cards": self.cards, "kind": self.kind, "rank": self.rank, "size": self.size}


def classify(cards: str | Counts, crisp_runs: bool) -> Combo | str:
    """The combination of a set (a string of ranks in any order, or counts by rank), or the rule
    that refuses it: ``CS-NOTATION`` for a string that is not ranks, ``CS-CRISP-RUN`` for a set
    that would be a run or pair run were a Crisp rank 10, without the option (CS-OPT-CRISP-RUNS),
    ``CS-COMBO`` for any other set that is no combination."""
    if isinstance(cards, str):
        if not cards or any(ch not in RANKS for ch in cards):
            return "CS-NOTATION"
        counts = [cards.count(r) for r in RANKS]
    else:
        counts = list(cards)
    ranks = [i for i, n in enumerate(counts) if n]
    if not ranks:
        return "CS-COMBO"
    size = sum(counts)
    written, low = text(counts), RANKS[ranks[0]]
    if len(ranks) == 1:
        kind = {1: "single", 2: "pair", 3: "three", 4: "four"}.get(size)
        return Combo(written, kind, low, size) if kind else "CS-COMBO"
    each = {counts[i] for i in ranks}
    consecutive = ranks[-1] - ranks[0] == len(ranks) - 1
    if len(each) != 1 or not consecutive:
        return "CS-COMBO"
    (n,) = each
    if n == 1 and len(ranks) >= 3:
        kind = "run"
    elif n == 2:
        kind = "pair_run"
    else:
        return "CS-COMBO"
    if ranks[-1] == CRISP and not crisp_runs:
        return "CS-CRISP-RUN"
    return Combo(written, kind, low, size)


def can_follow(prev: Combo, play: Combo) -> str | None:
    """None if ``play`` may follow ``prev`` (CS-FOLLOW, CS-SPECIAL), else the rule it breaks."""
    if play.special:
        if not prev.special:
            return None if prev.has_crisp else "CS-SPECIAL"
        if play.size > prev.size or (play.size == prev.size and play.value > prev.value):
            return None
        return "CS-SPECIAL"
    if prev.special:
        return "CS-FOLLOW"
    if play.kind == prev.kind and play.size == prev.size and play.value >= prev.value:
        return None
    return "CS-FOLLOW"


def _shapes(crisp_runs: bool) -> Iterator[Counts]:
    """Every set that is a combination, as counts (each rank at most four times)."""
    top = len(RANKS) if crisp_runs else CRISP  # the ranks a run may use
    for i in range(len(RANKS)):
        for n in range(1, COPIES + 1):
            c = [0] * len(RANKS)
            c[i] = n
            yield c
    for per, least in ((1, 3), (2, 2)):
        for lo in range(top):
            for hi in range(lo + least - 1, top):
                c = [0] * len(RANKS)
                for i in range(lo, hi + 1):
                    c[i] = per
                yield c


_SHAPES: dict[bool, tuple[Combo, ...]] = {}


def all_combos(crisp_runs: bool) -> tuple[Combo, ...]:
    """Every combination there is, under the option or not (a few hundred), lowest sets first."""
    if crisp_runs not in _SHAPES:
        found = []
        for c in _shapes(crisp_runs):
            combo = classify(c, crisp_runs)
            assert isinstance(combo, Combo)
            found.append(combo)
        _SHAPES[crisp_runs] = tuple(found)
    return _SHAPES[crisp_runs]


def combos_within(counts: Counts, crisp_runs: bool) -> Iterator[Combo]:
    """Every combination that can be made from ``counts``."""
    for combo in all_combos(crisp_runs):
        need = combo_counts(combo)
        if all(h >= p for h, p in zip(counts, need, strict=True)):
            yield combo


_COUNTS: dict[str, Counts] = {}


def combo_counts(combo: Combo) -> Counts:
    got = _COUNTS.get(combo.cards)
    if got is None:
        got = [0] * len(RANKS)
        for ch in combo.cards:
            got[RANKS.index(ch)] += 1
        _COUNTS[combo.cards] = got
    return got


def followable(prev: Combo, counts: Counts, crisp_runs: bool) -> bool:
    """Whether some combination made from ``counts`` may follow ``prev`` (CS-OPT-SKIP's test)."""
    return any(can_follow(prev, c) is None for c in combos_within(counts, crisp_runs))
