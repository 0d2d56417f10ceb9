"""An incoming text frame, parsed into a client message, or refused with a typed error."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from crisp.server.wire import protocol as P
from crisp.server.wire.errors import ErrorCode, Refused
from crisp.server.wire.safejson import BadJSON, loads_bounded

TYPES: dict[str, type[Any]] = {
    m.model_fields["type"].annotation.__args__[0]: m  # type: ignore[union-attr]
    for m in P.CLIENT_TYPES
}


class Unreadable(Refused):
    """A refused frame, with the message type when it could be read (``about``)."""

    def __init__(self, code: ErrorCode, message: str, about: str | None = None) -> None:
        super().__init__(code, message)
        self.about = about


def parse(text: str, max_bytes: int, max_depth: int, seats: int | None = None) -> Any:
    """The client message in ``text``, its seat numbers below ``seats`` (the most seats a game of
    the server has; None: unbounded); raises ``Unreadable``."""
    if len(text.encode()) > max_bytes:
        raise Unreadable("too_large", f"messages are capped at {max_bytes} bytes")
    try:
        data = loads_bounded(text, max_depth)
    except BadJSON as err:
        raise Unreadable("bad_json", str(err)) from err
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise Unreadable("bad_message", 'a message is a JSON object with a "type"')
    kind = data["type"]
    if kind not in TYPES:
        raise Unreadable("unknown_type", f"unknown message type {kind[:40]!r}", kind[:40])
    try:
        return P.CLIENT.validate_python(data, context={P.SEATS: seats})
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise Unreadable("bad_message", f"{where}: {first['msg']}", kind) from err
