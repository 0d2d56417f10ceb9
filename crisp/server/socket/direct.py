"""The direct path between a WebSocket and the app, both ways, offered to the app as the ASGI
scope extension ``EXTENSION`` (``{"socket": <DirectSocket>}``).

Out: the app frames its text messages itself (``frames.py``) and writes a batch of them at once,
instead of one ASGI ``send`` each. In: the socket hands each text message to the app's receiver
as it is parsed, instead of queuing an ASGI event for the app's task to await. And once the app
has its receiver, its ASGI call may return with the socket left open (``detach``): a socket lives
as long as its phone, and no suspended call of the app need live with it. Without the extension
(another server, Starlette's test client) the app uses the ASGI ``send`` and ``receive``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

EXTENSION = "crisp.direct_send"

#: The app's handler of one text message, called by the socket as the message is parsed.
Receiver = Callable[[str], None]
#: A detached socket's handler of one binary message.
Binary = Callable[[bytes], None]
#: What a detached socket runs once, when it ends (the app's ``finally``).
Ending = Callable[[], Awaitable[None]]


class DirectSocket(Protocol):
    """What the app may ask of the socket that offers the extension."""

    def can_write(self) -> bool:
        """Whether the transport takes more now (False while its buffer is full: wait)."""
        ...

    async def drained(self) -> None:
        """Until the transport takes more (or the socket is gone)."""
        ...

    def write_frames(self, data: bytes) -> bool:
        """Write whole frames; False once the socket is closing or gone (nothing written)."""
        ...

    def send_close(self, code: int) -> None:
        """Close with ``code``, after what was written; nothing once the socket is closing or
        gone."""
        ...

    def deliver(self, receiver: Receiver | None) -> None:
        """From now on, hand each text message to ``receiver`` as it is parsed (once every
        message queued as an ASGI event before has been received), not to the ASGI ``receive``;
        None: queue them again. Binary messages and the disconnect still come as ASGI events."""
        ...

    def detach(self, binary: Binary, ending: Ending) -> bool:
        """Let the app's ASGI call return without closing the socket. From now on the receiver
        given to ``deliver`` takes the text messages, ``binary`` the binary ones, and the end of
        the socket (the peer's close, the app's own, a lost connection, the server's shutdown)
        starts ``ending`` once, in a task the server's graceful shutdown waits for; the
        transport is closed after it. Events queued before are handed over now, in order.
        False, and nothing changed, without a receiver or on a socket already closing."""
        ...
