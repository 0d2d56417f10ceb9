"""JSON from a client, with a bounded nesting depth: ``[`` × 2000 is refused as ``bad_json``
before the parser recurses (no ``RecursionError``, no traceback in the log)."""

from __future__ import annotations

import json
import re
from typing import Any

# A string (to its closing quote, or to the end if it has none) or a bracket. Possessive, and it
# always matches where it starts: linear in the text (no retry from each quote of an unclosed one).
_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]', re.DOTALL)


class BadJSON(ValueError):
    """Not JSON, or JSON nested deeper than allowed. The message is safe to send back."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped; an unclosed string
    counts its brackets, which only makes the answer larger)."""
    deepest = level = 0
    for bracket in _TOKEN.findall(text):
        if bracket[0] == '"':
            continue
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
