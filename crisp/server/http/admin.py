"""The operator's routes (``crisp rooms list``, ``crisp rooms close CODE``): ``GET /admin/rooms``
and ``POST /admin/rooms/{code}/close``, answered only to a request from this machine (a loopback
peer, with no forwarding header: nothing that came through a proxy) bearing the token the server
writes at start to ``DATA_DIR/admin.token`` (0600: whoever may read the data directory may act on
its rooms). Anything else is ``404``, as if the routes were not there.

Closing a room goes through the room's own lock, like every change: its rows are deleted first (a
failed delete changes nothing), then it is dropped from the hub, its timers stopped and every
connection closed with ``CloseCode.ROOM_CLOSED``. These routes spend no rate-limit budget: they
are not reachable from outside.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request

from crisp.server.rooms.hub import Hub
from crisp.server.rooms.room import Room
from crisp.server.settings import Settings
from crisp.server.store.leases import RoomBusy
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.roomcode import normalize_code

log = logging.getLogger("crisp.server")
TOKEN_FILE = "admin.token"
FORWARDING = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip")


def write_token(data_dir: Path) -> str:
    """The admin token of ``data_dir``: the one there if it is private (several worker processes
    of one data directory share it), else a new one, written 0600 whatever the umask."""
    path = data_dir / TOKEN_FILE
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        pass
    else:
        try:
            info = os.fstat(fd)
            text = os.read(fd, 256).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
        if info.st_mode & 0o077 == 0 and info.st_uid == os.geteuid() and len(text) >= 32:
            return text
        path.unlink()
    token = secrets.token_urlsafe(32)
    temp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (token + "\n").encode())
    finally:
        os.close(fd)
    try:
        os.link(temp, path)  # another worker's, if it wrote one first: that one is used
    except FileExistsError:
        temp.unlink()
        return write_token(data_dir)
    temp.unlink()
    return token


def _from_here(request: Request) -> bool:
    """A loopback peer, and not a proxied request (a proxy on this machine is a loopback peer)."""
    if any(name in request.headers for name in FORWARDING):
        return False
    host = request.client.host if request.client is not None else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def room_row(room: Room, now: float) -> dict[str, Any]:
    """One line of ``crisp rooms list``."""
    lobby = room.lobby
    return {
        "code": room.code,
        "game": lobby.game_type,
        "phase": str(lobby.phase),
        "seats": len(lobby.current_seats()),
        "seats_max": lobby.max_seats,
        "members": len(lobby.members),
        "connected": len(room.online()),
        "age_s": round(max(0.0, now - lobby.created), 1),
        "idle_s": round(max(0.0, now - room.updated), 1),
    }


def router(hub: Hub, settings: Settings) -> APIRouter:
    """The admin routes of ``hub``; the token is read from the app's state (set at start)."""
    routes = APIRouter(prefix="/admin", include_in_schema=False)

    def allowed(request: Request) -> None:
        token: str | None = getattr(request.app.state, "admin_token", None)
        given = request.headers.get("authorization", "")
        if (
            token is None
            or not _from_here(request)
            or not secrets.compare_digest(given.encode(), f"Bearer {token}".encode())
        ):
            raise HTTPException(404, "Not Found")

    @routes.get("/rooms")
    async def rooms(request: Request) -> dict[str, Any]:
        allowed(request)
        now = time.time()
        rows = [room_row(room, now) for room in list(hub.rooms.values())]
        return {"rooms": sorted(rows, key=lambda r: r["age_s"], reverse=True)}

    @routes.post("/rooms/{code}/close")
    async def close(request: Request, code: str) -> dict[str, Any]:
        allowed(request)
        try:
            room = await hub.find(normalize_code(code))
        except RoomBusy as err:
            raise HTTPException(503, "the room is moving between servers: try again") from err
        if room is None:
            raise HTTPException(404, f"no room {normalize_code(code)} here")
        async with room.lock:
            if hub.rooms.get(room.code) is not room:  # expired or moved while we waited
                raise HTTPException(404, f"no room {room.code} here")
            hub.store.delete(room.code)  # first: a failed delete changes nothing
            del hub.rooms[room.code]
            room.stop_timers()
            closed = [c for c in list(room.conns) if not c.closed]
            for conn in closed:
                conn.close(CloseCode.ROOM_CLOSED)
        log.info("room %s closed by the operator (%d connections)", room.code, len(closed))
        return {"closed": room.code, "connections": len(closed)}

    return routes


def install(app: FastAPI, hub: Hub, settings: Settings) -> None:
    """The admin routes; the token is written at start (``start``), not at import."""
    app.include_router(router(hub, settings))


def start(app: FastAPI, settings: Settings) -> None:
    """At the app's start: the admin token of the data directory (no admin routes if it
    cannot be written: one warning). With PostgreSQL the data directory holds nothing else: the
    token is written only if the directory exists (made by the operator)."""
    app.state.admin_token = None
    if settings.database_url and not settings.data_dir.is_dir():
        log.info("no admin routes: no data directory %s for admin.token", settings.data_dir)
        return
    try:
        app.state.admin_token = write_token(settings.data_dir)
    except OSError as err:
        app.state.admin_token = None
        log.warning("no admin routes: cannot write %s: %s", settings.data_dir / TOKEN_FILE, err)
