"""Text frames written straight to a WebSocket's transport (issue 22, "fewer, bigger writes"), and
text messages handed straight to the app.

Through the ASGI ``send`` every message took Starlette's ``send_text``, uvicorn's ``send`` (an
await on its writable flag, a dict per message), websockets' frame serializer and one
``transport.write`` each: about a third of the server's CPU at human pace. The server's frames
are the simplest there are (RFC 6455 §5.2: final, text, unmasked, no extension: the server never
negotiates per-message-deflate), so a socket's writer frames what it has in a few bytes of header
each and writes them in one call. ``guarded_ws`` (uvguard.py) offers this path to the app as the
ASGI scope extension ``EXTENSION`` (``{"socket": protocol}``); without it (another server,
Starlette's test client) the writer uses the ASGI ``send`` as before.

The other way, every message a phone sent was queued by uvicorn as an ASGI event (a dict), the
socket's reads paused, the app's task woken through a future to take it (Starlette's ``receive``,
the queue's ``get``), and the reads resumed: two system calls and a new suspended await chain a
message, which the collector then walked while the socket waited for its next one. Through
``deliver`` the app gives the socket a receiver, called with each text message as it is parsed
(``wire/inbox.py``)."""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable, Iterable
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


#: The app's handler of one text message, called by the protocol as the message is parsed.
Receiver = Callable[[str], None]
#: A detached socket's handler of one binary message.
Binary = Callable[[bytes], None]
#: What a detached socket runs once, when it ends (the app's ``finally``).
Ending = Callable[[], Awaitable[None]]


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

    def deliver(self, receiver: Receiver | None) -> None:
        """From now on, hand each text message to ``receiver`` as it is parsed (once every
        message queued as an ASGI event before has been received), not to the ASGI ``receive``;
        None: queue them again. Binary messages, the disconnect and the close still come as ASGI
        events."""
        ...

    def detach(self, binary: Binary, ending: Ending) -> bool:
        """Let the app's ASGI call return without closing the socket (a socket lives as long as
        its phone, and so did every frame of that call: about 3 KB a socket). From now on the
        receiver given to ``deliver`` takes the text messages, ``binary`` the binary ones, and
        the disconnect (or the app's own close) starts ``ending`` once, in a task of the
        server's (a graceful shutdown waits for it); the transport is closed after it, as
        after an app's call. Events queued before are handed over now, in order. False, and
        nothing changed, without a receiver or on a socket already closing."""
        ...
