"""Crisp's half of ``crisp verify FILE`` (``crisp.games.records``): check a finished game's shuffle
against its seeds (docs/fairness.md).

The record's ``fairness`` gives the commitment the server published before the start, the server
seed it revealed at the end and the client seeds of the seats. ``verify`` checks, in this order,
that the commitment is the SHA-256 of the server seed, that the first dealer and every round's
deck follow from the seeds (hmac-sha256/1), and that each later dealer is the previous one's next
seat (R-DEALER). The verdict is ``verified``, or the first difference; a record it cannot check
(malformed, unfinished, or made before the scheme) raises ``Unverifiable``.
``crisp/static/games/crisp/fairness.js`` does the same in a browser, with the same sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crisp.engine.common.fairness import Committed, Fairness, commitment_of, game_key
from crisp.engine.crisp.record import RecordError, load, record_fairness
from crisp.engine.crisp.shuffle import dealer_from_key, deck_from_key


class Unverifiable(ValueError):
    """A record that cannot be checked (malformed, unfinished, or without a fairness)."""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str  # "verified", or the first difference
    rounds: int  # the decks checked


def verify_record(source: Any) -> Verdict:
    """Check ``source`` (a path or a record dict); raise ``Unverifiable`` if it cannot be."""
    if not isinstance(source, dict | str | Path):
        raise Unverifiable("a record is a JSON object")
    try:
        data = load(source)
        fair = record_fairness(data)
    except RecordError as err:
        raise Unverifiable(str(err)) from err
    if fair is None:
        raise Unverifiable("the record has no fairness (made before hmac-sha256/1, or by hand)")
    if isinstance(fair, Committed):
        raise Unverifiable("the server seed is revealed only once the game is over")
    rounds = data["rounds"]
    for ri, rnd in enumerate(rounds):
        for name in ("dealer", "deck"):
            if name not in rnd:
                raise Unverifiable(f"rounds[{ri}] has no {name} (a finished game lists them)")
    if not rounds:
        raise Unverifiable("the record has no rounds")
    return _compare(data, fair)


def _compare(data: dict[str, Any], fair: Fairness) -> Verdict:
    said = data["fairness"]["commitment"]
    real = commitment_of(fair.server_seed)
    if real != said:
        return Verdict(
            False,
            f"fairness.commitment differs: SHA-256(server_seed) is {real}, the record says {said}",
            0,
        )
    key = game_key(fair.server_seed, fair.client_seeds)
    rounds = data["rounds"]
    n = len(data["players"])
    dealer = dealer_from_key(key, n)
    for ri, rnd in enumerate(rounds):
        if ri:
            dealer = (rounds[ri - 1]["dealer"] + 1) % n
        if rnd["dealer"] != dealer:
            why = "the seeds give" if ri == 0 else "R-DEALER gives"
            return Verdict(
                False,
                f"rounds[{ri}].dealer differs: {why} seat {dealer}, "
                f"the record says seat {rnd['dealer']}",
                ri,
            )
        deck = deck_from_key(key, ri + 1)
        for pos, (want, got) in enumerate(zip(deck, rnd["deck"], strict=True)):
            if want != got:
                return Verdict(
                    False,
                    f"rounds[{ri}].deck differs at position {pos}: the seeds "
                    f"give {want}, the record says {got}",
                    ri,
                )
    return Verdict(True, "verified", len(rounds))
