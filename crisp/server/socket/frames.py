"""The server's text frames, framed by the writer itself (RFC 6455 §5.2).

The server's frames are the simplest there are: final, text, unmasked, no extension (the server
never negotiates per-message-deflate). A few bytes of header each, and a batch of them joined
into one ``transport.write``: cheaper per message than a frame object serialized each."""

from __future__ import annotations

import struct
from collections.abc import Iterable

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
