"""Reading a record file, bounded: the one reader of ``crisp replay``, ``crisp verify`` and every
game's record ``load`` (``crisp-record/1``, ``crisps-record/1``). A record may come from anyone, so
whatever the file holds, reading it ends in a value or in one ``RecordFileError`` (a line to show,
exit 2): never a traceback, and never more memory than a small multiple of ``RECORD_BYTES_MAX``.

The caps, each far above what a real game writes (the longest game in tests/fixtures, 8 players
over many rounds, is 13 KB and nests 5 deep):
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from crisp.engine.common.jsondepth import depth

RECORD_BYTES_MAX = 16 * 1024 * 1024
"""The largest record file read (16 MiB: over a thousand long games, so a ``crisp simulate
--records`` file of many games too); beyond it the file is refused before it is read, so a 500 MB
list or ``/dev/zero`` costs nothing, and parsing is bounded (about 10 times the text at worst)."""

RECORD_DEPTH_MAX = 16
"""The deepest nesting of arrays and objects (a record nests 5 deep, a list of records 6); checked
on the text before parsing, so 100,000 nested brackets never reach the recursive parser."""

RECORD_INT_DIGITS_MAX = 40
"""The most digits of an integer (a seed is 64 bits: 20 digits); a 5,000-digit number is refused
instead of tripping Python's own limit of 4,300 digits."""

RECORD_NUMBER_MAX = 1e12
"""The largest magnitude of a number with a fraction or an exponent (a time in seconds: 1e12 is
31,000 years of game time); ``1e308`` is refused here, ``NaN`` and ``Infinity`` are not JSON."""


class RecordFileError(ValueError):
    """A record file that cannot be read as a record's JSON: the line says which file and why."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > RECORD_INT_DIGITS_MAX:
        raise RecordFileError(
            f"a number of {len(text.lstrip('-'))} digits (at most {RECORD_INT_DIGITS_MAX})"
        )
    return int(text)


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > RECORD_NUMBER_MAX:
        raise RecordFileError(
            f"the number {text[:40]} is too large (at most {RECORD_NUMBER_MAX:g})"
        )
    return value


def _constant(name: str) -> Any:
    raise RecordFileError(f"{name} is not a JSON number")


def _strict_strings(value: Any) -> None:
    """Refuse a string that is not Unicode text (a lone surrogate, written ``\\ud800``): it could
    not be printed (``crisp replay --seat``) nor sent."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as err:
                raise RecordFileError(
                    f"the text {item[:40]!r} holds a lone surrogate (U+{ord(item[err.start]):04X})"
                ) from None
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse_record_text(text: str, where: str = "the record") -> Any:
    """The JSON value of ``text`` within the caps above, or ``RecordFileError``."""
    if len(text) > RECORD_BYTES_MAX:
        raise RecordFileError(f"{where} is over {RECORD_BYTES_MAX // (1024 * 1024)} MiB")
    if depth(text) > RECORD_DEPTH_MAX:
        raise RecordFileError(f"{where}: nested deeper than {RECORD_DEPTH_MAX} (not a record)")
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_real, parse_constant=_constant)
    except RecordFileError as err:
        raise RecordFileError(f"{where}: {err}") from None
    except json.JSONDecodeError as err:
        raise RecordFileError(f"{where}: not JSON: {err.msg} at line {err.lineno}") from None
    except (ValueError, RecursionError) as err:  # cannot happen within the caps; one line anyway
        raise RecordFileError(f"{where}: not JSON: {err}") from None
    try:
        _strict_strings(value)
    except RecordFileError as err:
        raise RecordFileError(f"{where}: {err}") from None
    return value


def read_record_file(path: str | Path) -> Any:
    """The JSON value in the file ``path``, within the caps above, or ``RecordFileError``: a file
    that is not a regular file (a directory, ``/dev/zero``, a pipe), too large, not UTF-8, not JSON,
    too deep, with a number or a string out of bounds."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise RecordFileError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordFileError(f"{path} is not a regular file (a record is a JSON file)")
        if info.st_size > RECORD_BYTES_MAX:
            raise RecordFileError(
                f"{path} is {info.st_size:,} bytes: a record file is at most "
                f"{RECORD_BYTES_MAX // (1024 * 1024)} MiB"
            )
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(RECORD_BYTES_MAX + 1)  # a file still growing is cut here
    except OSError as err:
        raise RecordFileError(f"cannot read {path}: {err.strerror or err}") from None
    finally:
        os.close(fd)
    if len(raw) > RECORD_BYTES_MAX:
        raise RecordFileError(
            f"{path}: a record file is at most {RECORD_BYTES_MAX // (1024 * 1024)} MiB"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RecordFileError(
            f"{path} is not UTF-8 text (byte 0x{raw[err.start]:02x} at offset {err.start}): "
            "a record is a JSON file"
        ) from None
    del raw
    return parse_record_text(text, str(path))
