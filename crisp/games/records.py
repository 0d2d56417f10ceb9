"""``crisp replay FILE`` and ``crisp verify FILE`` for any game's record: the record's game is the
one whose records declare its ``format`` (``"crisp-record/1"``, ``"crisps-record/1"``: each game's
``records``, reached through the games registry); anything else goes to the default game (the
first of ``DEFAULT_GAMES``), which reports its own errors.

``verify`` checks a finished game's shuffle against its seeds (docs/fairness.md). It prints
``verified``, or the first difference, and exits 0 (verified), 1 (a difference) or 2 (not a record
it can check: malformed, unfinished, or made before the scheme; one line on stderr). A file may
hold one record, or a list of them (``crisp simulate --records`` with several games).
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Sequence
from functools import cache
from typing import Any

from crisp.engine.common.recordfile import RecordFileError, read_record_file
from crisp.games import DEFAULT_GAMES
from crisp.games.common.records import RecordTools, Unverifiable, Verdict
from crisp.server.registry import Registry


@cache
def _records() -> tuple[RecordTools, ...]:
    """Each game's record tools (a spec's ``records``), the default game's first."""
    games = Registry.load(DEFAULT_GAMES)
    found = (getattr(games[name], "records", None) for name in games)
    return tuple(tools for tools in found if tools is not None)


def records_of(data: Any) -> RecordTools:
    """The tools of the game whose records declare ``data``'s ``format`` (else the default's)."""
    every = _records()
    if isinstance(data, dict):
        for tools in every:
            if data.get("format") == tools.format:
                return tools
    return every[0]


# Whatever a hostile record makes an engine raise beyond its own errors: still one line, exit 2.
_UNFORESEEN = (TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError)


def replay_file(path: str, seat: int | None, spectator: bool) -> int:
    """``crisp replay FILE [--seat N | --spectator]``: the exit code. A file of a list of records
    (``crisp simulate --records`` with several games) prints one result a line."""
    try:
        data = read_record_file(path)
    except RecordFileError as err:
        print(f"crisp replay: {err}", file=sys.stderr)
        return 2
    if not isinstance(data, list):
        return _replay_one(data, seat, spectator, "")
    if not data:
        print(f"crisp replay: {path}: an empty list of records", file=sys.stderr)
        return 2
    if seat is not None or spectator:
        print(
            f"crisp replay: {path} holds {len(data)} records: --seat and --spectator replay "
            "a file of one",
            file=sys.stderr,
        )
        return 2
    for k, record in enumerate(data):
        code = _replay_one(record, None, False, f"records[{k}]: ")
        if code:
            return code
    return 0


def _replay_one(record: Any, seat: int | None, spectator: bool, where: str) -> int:
    """One record's replay; its refusal line (if any) names ``where`` it is in the file."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            code = records_of(record).replay(record, seat, spectator)
    except _UNFORESEEN as err:
        code = 2
        said.write(f"crisp replay: malformed record: cannot replay it ({type(err).__name__})\n")
    line = said.getvalue()
    if line:
        sys.stderr.write(line.replace("crisp replay: ", f"crisp replay: {where}", 1))
    return code


def verify_record(data: Any) -> Verdict:
    """Check one record; raise ``Unverifiable`` if it cannot be."""
    try:
        return records_of(data).verify(data)
    except _UNFORESEEN as err:
        raise Unverifiable(f"malformed record ({type(err).__name__})") from err


def verify_file(path: str) -> Verdict:
    """A file of one record, or of a list of records: the first that differs, each named
    ``records[k]``; verified if every one is."""
    try:
        data = read_record_file(path)
    except RecordFileError as err:
        raise Unverifiable(str(err)) from err
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


def verify_main(argv: Sequence[str] | None = None) -> int:
    """``crisp verify FILE``: 0 verified, 1 a difference, 2 a record that cannot be checked."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        formats = " or ".join(tools.format for tools in _records())
        print(f"usage: crisp verify FILE (a finished game's {formats})", file=sys.stderr)
        return 2
    try:
        verdict = verify_file(args[0])
    except Unverifiable as err:
        print(f"crisp verify: cannot verify: {err}", file=sys.stderr)
        return 2
    print(verdict.message)
    return 0 if verdict.ok else 1
