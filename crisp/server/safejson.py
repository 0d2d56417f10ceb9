"""JSON from a client, with a bounded nesting depth: ``[`` × 2000 is refused as ``bad_json``
before the parser recurses (no ``RecursionError``, no traceback in the log)."""

from __future__ import annotations

import json
import re
from typing import Any

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


class BadJSON(ValueError):
    """Not JSON, or JSON nested deeper than allowed. The message is safe to send back."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped; an unclosed string
    counts its brackets, which only makes the answer larger)."""
    deepest = level = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        if bracket in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not JSON")


def loads_bounded(text: str | bytes, max_depth: int) -> Any:
    """``json.loads`` for a client's message: ``BadJSON`` for text that is not strict JSON
    (``NaN`` and ``Infinity`` included), nested deeper than ``max_depth``, or not UTF-8."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise BadJSON("not UTF-8") from err
    found = depth(text)
    if found > max_depth:
        raise BadJSON(f"nested {found} deep (at most {max_depth})")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except BadJSON:
        raise
    except (ValueError, RecursionError) as err:  # RecursionError: cannot happen after the scan
        raise BadJSON("not JSON") from err
