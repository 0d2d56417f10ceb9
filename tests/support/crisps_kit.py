"""Stacked decks and records for Crisps! tests (docs/rules-crisps.md), independent of the engine's
dealing: a deck is written out here by CS-DEAL's positions, and a test replays a record it wrote by
hand."""

from __future__ import annotations

from collections import Counter
from typing import Any

RANKS = "123456789X"
FULL = Counter({r: 4 for r in RANKS})


def stack(
    hand0: str,
    hand1: str,
    aside: str = "",
    faceup: str = "",
    pile: str = "",
    no_faceup: bool = False,
) -> str:
    """The 40-card deck (top first) dealing ``hand0`` and ``hand1`` (CS-DEAL positions 1-24),
    then ``aside`` (25-28), the face-up card (29; none with CS-OPT-NO-FACEUP) and the pile's top
    cards; every position left open is filled from the unused cards in rank order."""
    assert len(hand0) == 12 and len(hand1) == 12, "a hand is 12 cards"
    used = Counter(hand0 + hand1 + aside + faceup + pile)
    assert not used - FULL, f"more than four of {sorted((used - FULL).elements())}"
    rest = list((FULL - used).elements())
    rest.sort(key=RANKS.index)

    def fill(part: str, n: int) -> str:
        out = part + "".join(rest.pop(0) for _ in range(n - len(part)))
        return out

    deck = hand0 + hand1 + fill(aside, 4)
    if no_faceup:
        assert not faceup
    else:
        deck += fill(faceup, 1)
    deck += pile + "".join(rest)
    assert len(deck) == 40 and Counter(deck) == FULL
    return deck


def record(
    decks: list[str], actions: list[dict[str, Any]], first_starter: int = 0, **options: Any
) -> dict[str, Any]:
    opts = {"no_faceup": False, "crisp_runs": False, "auto_skip": False, "timer": None}
    opts.update(options)
    return {
        "format": "crisps-record/1",
        "game": "crisps",
        "players": ["Ana", "Ben"],
        "options": opts,
        "first_starter": first_starter,
        "decks": decks,
        "actions": actions,
    }


def play(seat: int, cards: str) -> dict[str, Any]:
    return {"seat": seat, "do": "play", "cards": cards}


def pass_(seat: int) -> dict[str, Any]:
    return {"seat": seat, "do": "pass"}


def draw(seat: int, take: str) -> dict[str, Any]:
    return {"seat": seat, "do": "draw", "take": take}


def timeout(seat: int, t: float | None = None) -> dict[str, Any]:
    a: dict[str, Any] = {"seat": seat, "do": "timeout"}
    if t is not None:
        a["t"] = t
    return a


def of_type(msgs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in msgs if m["type"] == kind]
