"""JSON from a client, with a bounded nesting depth: ``[`` × 2000 is refused as ``bad_json``
before the parser recurses (no ``RecursionError``, no traceback in the log)."""

from __future__ import annotations

import json
from typing import Any

from crisp.engine.common.jsondepth import depth

__all__ = ["BadJSON", "depth", "loads_bounded"]


class BadJSON(ValueError):
    """Not JSON, or JSON nested deeper than allowed. The message is safe to send back."""


def _no_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not JSON")


# One decoder for every message (json.loads with an argument builds a new one each call: 1 % of
# the server's time at human pace, py-spy); it holds no state between texts.
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def loads_bounded(text: str | bytes, max_depth: int) -> Any:
    """``json.loads`` for a client's message: ``BadJSON`` for text that is not strict JSON
    (``NaN`` and ``Infinity`` included), nested deeper than ``max_depth``, or not UTF-8."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise BadJSON("not UTF-8") from err
    # a text nests at most as deep as it has opening brackets (counted in C): most need no scan
    opening = text.count("[") + text.count("{")
    if opening > max_depth and (found := depth(text)) > max_depth:
        raise BadJSON(f"nested {found} deep (at most {max_depth})")
    try:
        return _DECODER.decode(text)
    except BadJSON:
        raise
    except (ValueError, RecursionError) as err:  # RecursionError: cannot happen after the scan
        raise BadJSON("not JSON") from err
