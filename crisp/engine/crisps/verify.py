"""``crisp verify`` for a Crisps! record (docs/record-crisps.md, docs/fairness.md): the commitment
is the SHA-256 of the revealed server seed, the first starter is ``below(2)`` on
``b"crisps-starter"``, and every round's deck is the Fisher–Yates shuffle on ``b"crisps-deck" +
r``. Returns the first difference, in the same sentences as Crisp's check."""

from __future__ import annotations

from typing import Any

from crisp.engine.common.fairness import Committed, commitment_of, fairness_from_record, game_key
from crisp.engine.crisps.record import RecordError, load
from crisp.engine.crisps.shuffle import deck_from_key, starter_from_key


class CrispsUnverifiable(ValueError):
    """A Crisps! record that cannot be checked (malformed, unfinished, or not commit–reveal)."""


def verify_crisps(source: Any) -> tuple[bool, str, int]:
    """(verified, "verified" or the first difference, the decks checked)."""
    try:
        data = load(source)
    except RecordError as err:
        raise CrispsUnverifiable(str(err)) from err
    if "fairness" not in data:
        raise CrispsUnverifiable("the record has no fairness (dealt from a seed or by hand)")
    fair = fairness_from_record(data["fairness"], 2)
    if isinstance(fair, Committed):
        raise CrispsUnverifiable("the server seed is revealed only once the game is over")
    decks = data.get("decks", [])
    if not decks or "first_starter" not in data:
        raise CrispsUnverifiable("the record lists no decks and first starter (a server's does)")
    said, real = data["fairness"]["commitment"], commitment_of(fair.server_seed)
    if real != said:
        return (
            False,
            f"fairness.commitment differs: SHA-256(server_seed) is {real}, the record says {said}",
            0,
        )
    key = game_key(fair.server_seed, fair.client_seeds)
    starter = starter_from_key(key)
    if data["first_starter"] != starter:
        return (
            False,
            f"first_starter differs: the seeds give seat {starter}, the record says "
            f"seat {data['first_starter']}",
            0,
        )
    for r, deck in enumerate(decks):
        want = deck_from_key(key, r + 1)
        for pos, (a, b) in enumerate(zip(want, deck, strict=True)):
            if a != b:
                return (
                    False,
                    f"decks[{r}] differs at position {pos}: the seeds give {a}, the "
                    f"record says {b}",
                    r,
                )
    return True, "verified", len(decks)
