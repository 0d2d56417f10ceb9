"""``crisp verify FILE``: check a finished game's shuffle against its seeds (docs/fairness.md).

The record's ``fairness`` gives the commitment the server published before the start, the server
seed it revealed at the end and the client seeds of the seats. ``verify`` checks, in this order,
that the commitment is the SHA-256 of the server seed, that the first dealer and every round's
deck follow from the seeds (hmac-sha256/1), and that each later dealer is the previous one's next
seat (R-DEALER). It prints ``verified``, or the first difference, and exits 0 (verified), 1 (a
difference) or 2 (not a record it can check: malformed, unfinished, or made before the scheme;
one line on stderr). ``crisp/static/games/crisp/fairness.js`` does the same in a browser, with the
same sentences.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
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


def _crisps_format(source: Any) -> bool:
    """Whether ``source`` (a dict or a path) is a Crisps! record (``crisps-record/1``)."""
    if isinstance(source, dict):
        return source.get("format") == "crisps-record/1"
    try:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == "crisps-record/1"


def _verify_crisps(source: Any) -> Verdict:
    from crisp.engine.crisps.verify import CrispsUnverifiable, verify_crisps

    try:
        ok, message, rounds = verify_crisps(source)
    except (CrispsUnverifiable, ValueError) as err:
        raise Unverifiable(str(err)) from err
    return Verdict(ok, message, rounds)


def verify_record(source: Any) -> Verdict:
    """Check ``source`` (a path or a record dict); raise ``Unverifiable`` if it cannot be."""
    if not isinstance(source, dict | str | Path):
        raise Unverifiable("a record is a JSON object")
    if _crisps_format(source):
        return _verify_crisps(source)
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


def verify_file(path: str) -> Verdict:
    """A file of one record, or of a list of records (``crisp simulate --records`` with several
    games): the first that differs, each named ``records[k]``; verified if every one is."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as err:
        raise Unverifiable(f"cannot read {path}: {err.strerror or err}") from err
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise Unverifiable(f"{path}: not JSON: {err}") from err
    if not isinstance(data, list):
        return verify_record(data)
    if not data:
        raise Unverifiable(f"{path}: an empty list of records")
    checked = 0
    for k, record in enumerate(data):
        try:
            verdict = verify_record(record)
        except Unverifiable as err:
            raise Unverifiable(f"records[{k}]: {err}") from err
        if not verdict.ok:
            return Verdict(False, f"records[{k}]: {verdict.message}", checked + verdict.rounds)
        checked += verdict.rounds
    return Verdict(True, "verified", checked)


def main(argv: Sequence[str] | None = None) -> int:
    """``crisp verify FILE``: 0 verified, 1 a difference, 2 a record that cannot be checked."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(
            "usage: crisp verify FILE (a finished game's crisp-record/1 or crisps-record/1)",
            file=sys.stderr,
        )
        return 2
    try:
        verdict = verify_file(args[0])
    except Unverifiable as err:
        print(f"crisp verify: cannot verify: {err}", file=sys.stderr)
        return 2
    print(verdict.message)
    return 0 if verdict.ok else 1
