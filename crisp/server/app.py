"""The web application: ``create_app(settings)``, the HTTP routes and the WebSocket."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketDisconnect

from crisp.server import logbudget, room_limits
from crisp.server.connection import CLOSE_FORBIDDEN_ORIGIN, CLOSE_NO_ROOM, CLOSE_POLICY, Connection
from crisp.server.http_guard import BodyLimit, SecurityHeaders
from crisp.server.hub import Hub
from crisp.server.members import normalize_code
from crisp.server.pages import mount_client
from crisp.server.ratelimit import Limiters, LimitRefused
from crisp.server.refused import Refused
from crisp.server.room import Room
from crisp.server.settings import Settings

log = logging.getLogger("crisp.server")
FLOOD_LIMIT = 200  # messages refused in a row by the rate limit before the connection is closed


class JoinRequest(BaseModel):
    name: str = Field(max_length=200, description="trimmed and capped at 20 characters")


class Joined(BaseModel):
    code: str
    link: str
    member: int
    token: str = Field(description="the secret seat token: keep it, send it in hello")
    seat: int | None = Field(description="the seat you would have if the game started now")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    hub = Hub(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.open()
        yield
        await hub.close()

    app = FastAPI(title="Crisp", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.add_middleware(GZipMiddleware, minimum_size=600)
    app.add_middleware(BodyLimit, max_bytes=settings.http_body_max_bytes)  # limits: 413
    app.add_middleware(SecurityHeaders)  # limits: CSP and co. on every response
    limits = Limiters(settings)  # limits: per-IP and total rates (429)
    limits.install(app)
    logbudget.install(settings.log_template_per_min)  # limits: bounded log output
    app.state.hub = hub
    app.state.settings = settings

    def find(code: str) -> Room:
        room = hub.rooms.get(normalize_code(code))
        if room is None:
            raise HTTPException(404, "no such room (it may have expired)")
        return room

    def exists(code: str) -> bool:
        return normalize_code(code) in hub.rooms

    lookup = [limits.depend_lookup(exists)]

    def joined(room: Room, name: str) -> Joined:
        if (full := room_limits.check_join(len(room.members), settings)) is not None:
            raise LimitRefused(409, full.code, full.message)  # limits: room_members_max
        try:
            member, token = room.join(name)
        except ValueError as err:
            raise HTTPException(422, str(err)) from err
        except Refused as err:
            raise HTTPException(409, err.message) from err
        seat = (
            room.lobby_seats().index(member.id)
            if room.phase == "lobby" and member.id in room.lobby_seats()
            else None
        )
        return Joined(
            code=room.code, link=f"/r/{room.code}", member=member.id, token=token, seat=seat
        )

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"ok": True, "rooms": len(hub.rooms)}

    @app.post("/api/rooms", status_code=201, dependencies=[limits.depend(limits.create)])
    async def create_room(body: JoinRequest) -> Joined:
        if (full := room_limits.check_room_count(len(hub.rooms), settings)) is not None:
            raise LimitRefused(503, full.code, full.message, retry_after=60)  # limits: rooms_max
        room = hub.create_room()
        async with room.lock:
            try:
                return joined(room, body.name)
            except HTTPException:
                hub.rooms.pop(room.code, None)
                raise

    @app.post("/api/rooms/{code}/join", status_code=201,
              dependencies=[limits.depend_lookup(exists, limits.join)])  # fmt: skip
    async def join_room(code: str, body: JoinRequest) -> Joined:
        room = find(code)
        async with room.lock:
            return joined(room, body.name)

    @app.get("/api/rooms/{code}", dependencies=lookup)
    async def room_summary(code: str) -> dict[str, Any]:
        room = find(code)
        msg = room.room_message()
        return {k: msg[k] for k in ("code", "phase", "options", "members", "game", "record")}

    @app.get("/api/rooms/{code}/record", dependencies=lookup)
    async def record(code: str) -> Response:
        room = find(code)
        if room.last_record is None:
            raise HTTPException(
                409, "the record is available once a game is over (it holds the deck order)"
            )
        body = json.dumps(room.last_record, ensure_ascii=False, indent=1)
        name = f"crisp-{room.code}-game{room.game_no}.json"
        disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
        return Response(body, media_type="application/json", headers=disposition)

    mount_client(app, exists, lookup)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @app.websocket("/ws/{code}")
    async def websocket(ws: WebSocket, code: str) -> None:
        if not origin_allowed(ws, settings):
            await ws.close(CLOSE_FORBIDDEN_ORIGIN)  # before accept: the handshake gets a 403
            log.info("refused a WebSocket from a foreign origin")
            return
        if not await limits.admit_websocket(ws, code, exists):  # limits: a 429 handshake
            return
        await ws.accept()
        room = hub.rooms.get(normalize_code(code))
        if room is None:
            await ws.send_text('{"type":"error","code":"not_found","message":"no such room"}')
            await ws.close(CLOSE_NO_ROOM)
            return
        conn = Connection(ws, queue_max=settings.send_queue_max, rate=settings.rate_per_s,
                          burst=settings.rate_burst)  # fmt: skip
        conn.start()
        room.conns.add(conn)
        deadline = room_limits.start_hello_deadline(lambda: conn.greeted, conn.close, settings)
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if not conn.bucket.take():
                    conn.refused += 1
                    if conn.refused >= FLOOD_LIMIT:
                        conn.close(CLOSE_POLICY)
                    elif conn.refused == 1 or conn.refused % 20 == 0:
                        room.error(
                            conn, Refused("rate_limited", "too many messages: slow down"), None
                        )
                    continue
                conn.refused = 0
                if text is None:
                    room.error(conn, Refused("bad_message", "send JSON in text frames"), None)
                    continue
                await hub.receive(room, conn, text)
        except WebSocketDisconnect:
            pass
        finally:
            deadline.cancel()  # limits: the hello deadline
            await hub.disconnected(room, conn)
            if conn.closed and conn.writer is not None:
                with contextlib.suppress(Exception):
                    await conn.writer  # flush the last error and close frame
            await conn.stop()

    return app


def origin_allowed(ws: WebSocket, settings: Settings) -> bool:
    """Browsers send Origin: a page of another site may not play with a visitor's seat token.
    Clients without an Origin (scripts, bots) are allowed; the token still authorizes."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc.lower() == ws.headers.get("host", "").lower()
