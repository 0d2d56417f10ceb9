"""The WebSocket endpoint: origin check → room lookup → a ``Connection`` with its own send queue →
each frame rate-limited, then handed to the hub. Close codes are ``CloseCode``."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.websockets import WebSocket, WebSocketDisconnect

from crisp.server.limits import room_limits
from crisp.server.rooms.hub import Hub
from crisp.server.rooms.members import normalize_code
from crisp.server.rooms.refused import Refused
from crisp.server.rooms.room import Room
from crisp.server.settings import Settings
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.connection import Connection

log = logging.getLogger("crisp.server")
FLOOD_LIMIT = 200  # frames refused in a row by the rate limit before the connection is closed
FLOOD_REPORT_EVERY = 20  # after the first refusal, one error for every 20 refused in a row


def origin_allowed(ws: WebSocket, settings: Settings) -> bool:
    """Browsers send Origin: a page of another site may not play with a visitor's seat token.
    Clients without an Origin (scripts, bots) are allowed; the token still authorizes."""
    origin = ws.headers.get("origin")
    if origin is None or origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc.lower() == ws.headers.get("host", "").lower()


async def endpoint(ws: WebSocket, code: str, hub: Hub) -> None:
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
        ws, queue_max=settings.send_queue_max, rate=settings.rate_per_s, burst=settings.rate_burst
    )
    conn.start()
    room.conns.add(conn)
    deadline = room_limits.start_hello_deadline(lambda: conn.greeted, conn.close, settings)
    try:
        await _frames(ws, conn, room, hub)
    except WebSocketDisconnect:
        pass
    finally:
        deadline.cancel()  # the hello deadline (docs/limits.md)
        await hub.disconnected(room, conn)
        await conn.finish()  # flush the last error and close frame
        await conn.stop()


async def _frames(ws: WebSocket, conn: Connection, room: Room, hub: Hub) -> None:
    while not conn.closed:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not conn.bucket.take():
            _flooding(conn, room)
            continue
        conn.refused = 0
        text = message.get("text")
        if text is None:
            room.error(conn, Refused("bad_message", "send JSON in text frames"), None)
            continue
        await hub.receive(room, conn, text)


def _flooding(conn: Connection, room: Room) -> None:
    """A frame over the rate: dropped unread. The first of a run, and every 20th, is answered
    ``rate_limited``; 200 in a row close the connection (1008)."""
    conn.refused += 1
    if conn.refused >= FLOOD_LIMIT:
        conn.close(CloseCode.POLICY)
    elif conn.refused == 1 or conn.refused % FLOOD_REPORT_EVERY == 0:
        room.error(conn, Refused("rate_limited", "too many messages: slow down"), None)
