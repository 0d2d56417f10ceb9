"""The WebSocket endpoint: origin check → room lookup → a ``Connection`` with its own send queue →
each frame rate-limited, then handed to the hub: straight from the protocol where the server
offers it (``inbox.py``), else as ASGI events. Where the server offers it, the endpoint's call
returns at once and the socket lives on without it (``DirectSocket.detach``): its ending runs
when the socket ends. Close codes are ``CloseCode``."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.websockets import WebSocket, WebSocketDisconnect

from crisp.server.limits import room_limits
from crisp.server.rooms.hub import Hub
from crisp.server.rooms.room import Room
from crisp.server.settings import Settings
from crisp.server.socket.connection import Connection
from crisp.server.socket.flusher import Flusher
from crisp.server.socket.inbox import Inbox, admitted, refuse_binary
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.roomcode import normalize_code

log = logging.getLogger("crisp.server")


def header(ws: WebSocket, name: bytes) -> str | None:
    """The handshake's first header ``name`` (lower case), read from the scope: Starlette's
    ``ws.headers`` would keep a copy of them all for the socket's life."""
    for key, value in ws.scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def origin_allowed(ws: WebSocket, settings: Settings) -> bool:
    """Browsers send Origin: a page of another site may not play with a visitor's seat token.
    Clients without an Origin (scripts, bots) are allowed; the token still authorizes."""
    origin = header(ws, b"origin")
    if origin is None or origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc.lower() == (header(ws, b"host") or "").lower()


async def endpoint(ws: WebSocket, code: str, hub: Hub, flusher: Flusher | None = None) -> None:
    settings = hub.settings
    if not origin_allowed(ws, settings):
        await ws.close(CloseCode.POLICY)  # before accept: the handshake gets HTTP 403
        log.info("refused a WebSocket from a foreign origin")
        return
    await ws.accept()
    room = hub.rooms.get(normalize_code(code))
    if room is None:
        await ws.send_text('{"type":"error","code":"not_found","message":"no such room"}')
        await ws.close(CloseCode.NO_ROOM)
        return
    conn = Connection(
        ws,
        queue_max=settings.send_queue_max,
        rate=settings.rate_per_s,
        burst=settings.rate_burst,
        flusher=flusher,
    )
    conn.start()
    room.conns.add(conn)
    # the hello deadline (docs/limits.md): the inbox cancels it at the hello or the end
    deadline = room_limits.start_hello_deadline(lambda: conn.greeted, conn.close, settings)
    inbox = Inbox(hub, room, conn, deadline)
    if conn.direct is not None:  # the server hands text messages over as they are parsed
        conn.direct.deliver(inbox)

    async def ending() -> None:
        if conn.direct is not None:
            conn.direct.deliver(None)
        await inbox.stop()
        await hub.disconnected(room, conn)
        await conn.finish()  # flush the last error and close frame
        await conn.stop()

    if conn.direct is not None and conn.direct.detach(inbox.binary, ending):
        # No suspended call kept for the socket's life, nor its scope (the connection sends
        # and closes through the direct path): docs/performance.md, "The detached socket".
        return
    try:
        await _frames(ws, conn, room, inbox)
    except WebSocketDisconnect:
        pass
    finally:
        await ending()


async def _frames(ws: WebSocket, conn: Connection, room: Room, inbox: Inbox) -> None:
    """The messages that come as ASGI events: all of them without the direct path; with it,
    those queued before the inbox was given, binary ones, and the disconnect."""
    while not conn.closed:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            refuse_binary(conn, room)
        elif admitted(conn, room):
            await inbox.hub.receive(room, conn, text)
            inbox.handled()
