"""The web application: ``create_app(settings)``, the HTTP routes and the WebSocket."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request, WebSocket
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST

from crisp.server.clock import Clock, LoopClock
from crisp.server.gcpolicy import GcPolicy
from crisp.server.http import admin
from crisp.server.http.guard import BodyLimit, SecurityHeaders
from crisp.server.http.pages import mount_client
from crisp.server.limits import logbudget, room_limits
from crisp.server.limits.clientaddr import ClientAddress
from crisp.server.limits.ratelimit import SEAT_COOKIE, Limiters, LimitRefused
from crisp.server.observe.metrics import Metrics
from crisp.server.registry import Registry
from crisp.server.rooms.hub import Hub
from crisp.server.rooms.room import Room
from crisp.server.settings import Settings
from crisp.server.socket.endpoint import endpoint
from crisp.server.socket.flusher import Flusher
from crisp.server.socket.lane import WebSocketLane
from crisp.server.store.leases import Leases, RoomBusy
from crisp.server.store.outage import StoreUnavailable
from crisp.server.store.sqlite import Storage, Store
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.errors import Refused
from crisp.server.wire.protocol import CreateRequest, Joined, JoinRequest
from crisp.server.wire.roomcode import is_code, normalize_code
from crisp.version import crisp_version

log = logging.getLogger("crisp.server")
STORE_DOWN = "the server cannot reach its database now; nothing was changed: try again"


async def claimed(hub: Hub, code: str) -> Room | None:
    """The room of ``code``, claimed from a shared store if another node served it (503 while it
    is being handed over)."""
    try:
        return await hub.find(normalize_code(code))
    except RoomBusy as err:
        raise LimitRefused(
            503, "unavailable", "this room is moving between servers: try again", retry_after=1
        ) from err


async def claim_room(code: str, request: Request) -> None:
    """A dependency of every route naming a room code, after its rate limits: with a shared
    store, the room is served here from now on."""
    await claimed(request.app.state.hub, code)


async def find_room(code: str, request: Request) -> Room:
    """The room of a path's code: a dependency of every room route (404 if there is none)."""
    room = await claimed(request.app.state.hub, code)
    if room is None:
        raise HTTPException(404, "no such room (it may have expired)")
    return room


def open_store(settings: Settings) -> tuple[Storage, Leases | None]:
    """PostgreSQL if ``database_url`` is set (shared by several nodes: with leases), else the
    SQLite file of ``data_dir``."""
    if not settings.database_url:
        return Store(settings.db_path), None
    from crisp.server.store.postgres import PgStore

    node = settings.node_id or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
    store = PgStore(
        settings.database_url, node, settings.lease_s, writer_thread=settings.pg_writer_thread
    )
    return store, store


FoundRoom = Annotated[Room, Depends(find_room)]


def create_app(
    settings: Settings | None = None,
    *,
    games: Registry | None = None,
    store: Storage | None = None,
    clock: Clock | None = None,
) -> FastAPI:
    """The application. Its games come from ``settings.games`` unless given; its store is the
    SQLite file of ``settings.data_dir`` unless given; its clock the event loop's."""
    settings = settings or Settings()
    games = games or Registry.load(settings.games)
    leases: Leases | None = None
    if store is None:
        store, leases = open_store(settings)
    hub = Hub(settings, store, clock or LoopClock(), games, leases)
    metrics = hub.metrics = Metrics(hub)
    flusher = Flusher()  # every socket's writes of a turn, from one callback at its end

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.open()
        admin.start(app, settings)  # DATA_DIR/admin.token: crisp rooms
        metrics.start()
        collector = GcPolicy.of(settings, lambda: len(hub.rooms))  # bounds the GC's pauses
        collector.start()
        yield
        await collector.stop()
        await metrics.stop()
        await hub.close()

    app = FastAPI(title="Crisp", lifespan=lifespan, docs_url=None, redoc_url=None)
    limits = Limiters(settings)  # limits: per-IP and total rates (429)
    limits.install(app)

    def counted(exc: LimitRefused) -> JSONResponse:
        """A limit's refusal, counted (GET /metrics), then as ``limits.install`` answers it."""
        metrics.limited.labels(exc.code).inc()
        return exc.response()

    async def limit_refused(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, LimitRefused)
        return counted(exc)

    async def store_unavailable(_: Request, exc: Exception) -> JSONResponse:
        """A store outage: a typed 503, not a bare 500 and a traceback."""
        refusal = LimitRefused(503, "unavailable", STORE_DOWN, retry_after=5)
        return refusal.response()

    app.add_exception_handler(LimitRefused, limit_refused)  # counted, then as limits.install
    app.add_exception_handler(StoreUnavailable, store_unavailable)
    logbudget.install(settings.log_template_per_min)  # limits: bounded log output
    app.state.hub = hub
    app.state.settings = settings

    def exists(code: str) -> bool:
        """Served here, or (a shared store) kept by any node: checked by the rate limits before
        a room is claimed, so guessing codes costs a lookup budget before a database claim."""
        code = normalize_code(code)
        if code in hub.rooms:
            return True
        return leases is not None and is_code(code) and hub.store.exists(code)

    def seated(code: str, token: str) -> bool:
        """A seat token of a room served here: its requests are not charged to the anonymous
        budgets (docs/limits.md)."""
        room = hub.rooms.get(code)
        return room is not None and room.lobby.member_of(token) is not None

    def seat_cookie(response: Response, request: Request, joined: Joined) -> None:
        """The seat token as an HttpOnly cookie of this site: the phone's later requests and
        WebSocket opens carry it (limits: a seated player reconnecting is not charged)."""
        response.set_cookie(
            SEAT_COOKIE + joined.code,
            joined.token,
            max_age=int(settings.room_ttl_s),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    claim = Depends(claim_room)
    lookup = [limits.code_limit(exists, seated=seated), claim]

    async def joined(room: Room, name: str) -> Joined:
        """Join ``room``, answered once the join is stored (group commit: at the end of the
        loop's turn, ``Room.settled``)."""
        if (full := room_limits.check_join(len(room.lobby.members), settings)) is not None:
            raise LimitRefused(409, full.code, full.message)  # limits: room_members_max
        try:
            member, token = room.join(name)
            seats = room.lobby.lobby_seats()
            in_lobby = room.lobby.phase == "lobby" and member.id in seats
            seat = seats.index(member.id) if in_lobby else None
            wait = room.settled()
            if wait is not None:
                await wait
        except ValueError as err:
            raise HTTPException(422, str(err)) from err
        except Refused as err:
            if err.code == "unavailable":
                raise LimitRefused(503, "unavailable", err.message, retry_after=5) from err
            raise HTTPException(409, err.message) from err
        return Joined(
            code=room.code, link=f"/r/{room.code}", member=member.id, token=token, seat=seat
        )

    version = crisp_version()

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {
            "ok": True,
            "rooms": len(hub.rooms),
            "node": leases.node if leases else None,
            "version": version,
        }

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        """503 while the store cannot be reached (``/healthz`` is liveness: it stays 200)."""
        ping = getattr(hub.store, "ping", None)
        try:
            if ping is not None:
                ping()
        except StoreUnavailable:
            body = {"ok": False, "error": STORE_DOWN, "code": "unavailable"}
            return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})
        return JSONResponse({"ok": True})

    @app.get("/metrics")
    async def prometheus() -> Response:
        return Response(metrics.text(), media_type=CONTENT_TYPE_LATEST)

    @app.post("/api/rooms", status_code=201, dependencies=[limits.depend(limits.create)])
    async def create_room(body: CreateRequest, request: Request, response: Response) -> Joined:
        if (full := room_limits.check_room_count(len(hub.rooms), settings)) is not None:
            raise LimitRefused(503, full.code, full.message, retry_after=60)  # limits: rooms_max
        try:
            room = hub.create_room(body.game)
        except Refused as err:
            raise HTTPException(404 if err.code == "not_found" else 503, err.message) from err
        async with room.lock:
            try:
                made = await joined(room, body.name)
            except (HTTPException, LimitRefused):  # nothing of the room was stored
                hub.rooms.pop(room.code, None)
                raise
        seat_cookie(response, request, made)
        return made

    @app.post(
        "/api/rooms/{code}/join",
        status_code=201,
        dependencies=[limits.code_limit(exists, limits.join), claim],
    )
    async def join_room(
        room: FoundRoom, body: JoinRequest, request: Request, response: Response
    ) -> Joined:
        async with room.lock:
            made = await joined(room, body.name)
        seat_cookie(response, request, made)
        return made

    @app.get("/api/rooms/{code}", dependencies=lookup)
    async def room_summary(room: FoundRoom) -> dict[str, Any]:
        msg = room.room_message()
        keys = ("code", "game_type", "phase", "options", "members", "game", "record", "commitment")
        return {k: msg[k] for k in keys}

    @app.get("/api/rooms/{code}/record", dependencies=lookup)
    async def record(room: FoundRoom) -> Response:
        if room.last_record is None:
            raise HTTPException(
                409, "the record is available once a game is over (it holds the deck order)"
            )
        body = json.dumps(room.last_record, ensure_ascii=False, indent=1)
        name = f"{room.lobby.game_type}-{room.code}-game{room.lobby.game_no}.json"
        disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
        return Response(body, media_type="application/json", headers=disposition)

    mount_client(app, exists, lookup, claim)
    admin.install(app, hub, settings)  # /admin/: loopback and the admin token only

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    async def websocket(ws: WebSocket, code: str) -> None:
        try:
            await hub.find(normalize_code(code))
        except RoomBusy:  # still being handed over: the phone reconnects at once
            await ws.accept()
            await ws.close(CloseCode.MOVED)
            return
        except StoreUnavailable:  # an outage: the phone reconnects (and retries) later
            await ws.accept()
            await ws.close(CloseCode.GOING_AWAY)
            return
        await endpoint(ws, code, hub, flusher)

    # Outermost last: the client's address behind a trusted proxy (every layer sees it), then the
    # WebSocket lane (/ws/CODE, its code limit's refusal the 429 as the handshake's denial).
    app.add_middleware(GZipMiddleware, minimum_size=600)
    app.add_middleware(BodyLimit, max_bytes=settings.http_body_max_bytes)  # limits: 413
    app.add_middleware(SecurityHeaders)  # limits: CSP and co. on every response
    ws_limit = limits.code_limit_of(exists, limits.ws, seated=seated)
    app.add_middleware(WebSocketLane, limit=ws_limit, handler=websocket, refusal=counted)
    app.add_middleware(ClientAddress, trusted=settings.forwarded_allow_ips)
    return app
