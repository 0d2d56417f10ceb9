"""Text frames written straight to a WebSocket's transport (issue 22, "fewer, bigger writes").

Through the ASGI ``send`` every message took Starlette's ``send_text``, uvicorn's ``send`` (an
await on its writable flag, a dict per message), websockets' frame serializer and one
``transport.write`` each: about a third of the server's CPU at human pace. The server's frames
are the simplest there are (RFC 6455 §5.2: final, text, unmasked, no extension: the server never
negotiates per-message-deflate), so a socket's writer frames what it has in a few bytes of header
each and writes them in one call. ``guarded_ws`` (uvguard.py) offers this path to the app as the
ASGI scope extension ``EXTENSION`` (``{"socket": protocol}``); without it (another server,
Starlette's test client) the writer uses the ASGI ``send`` as before."""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Protocol

EXTENSION = "crisp.direct_send"
_FIN_TEXT = 0x81  # FIN + opcode 1 (text); the server's frames are never masked
_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def text_frame(payload: bytes) -> bytes:
    """One final, unmasked text frame of ``payload`` (UTF-8 already)."""
    n = len(payload)
    if n < 126:
        return _SHORT.pack(_FIN_TEXT, n) + payload
    if n < 65536:
        return _MEDIUM.pack(_FIN_TEXT, 126, n) + payload
    return _LONG.pack(_FIN_TEXT, 127, n) + payload


def text_frames(texts: Iterable[str]) -> bytes:
    """The frames of ``texts``, one each, in order, as one write."""
    return b"".join([text_frame(text.encode()) for text in texts])


class DirectSocket(Protocol):
    """What the writer needs of the socket's protocol (``guarded_ws``)."""

    def can_write(self) -> bool:
        """Whether the transport takes more now (False while its buffer is full: wait)."""
        ...

    async def drained(self) -> None:
        """Until the transport takes more (or the socket is gone)."""
        ...

    def write_frames(self, data: bytes) -> bool:
        """Write whole frames; False once the socket is closing or gone (nothing written)."""
        ...
