"""One reusable JSON encoder for the wire and the store: compact (``,`` and ``:``), UTF-8 as is
(``ensure_ascii=False``), the same bytes as ``json.dumps(value, separators=(",", ":"),
ensure_ascii=False)``, which builds a new encoder on every call. This one is built once, from the
C encoder of the standard library when there is one (no check for circular references: the server
encodes trees it built itself)."""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import Any

__all__ = ["dumps"]


def _make() -> Callable[[Any], str]:
    plain = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    make: Any = getattr(json.encoder, "c_make_encoder", None)  # untyped in typeshed
    if make is None:  # pragma: no cover - CPython has the C encoder
        return plain.encode
    chunks = make(
        None, plain.default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )

    def dumps(value: Any) -> str:
        return "".join(chunks(value, 0))

    return dumps


#: ``dumps(value)``: the compact JSON text of ``value``.
dumps: Callable[[Any], str] = _make()
