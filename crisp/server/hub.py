"""All the rooms of a server: creating them, loading them after a restart, expiry, and each
incoming message (parsed, then dispatched to its room under the room's lock)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from crisp.server import protocol as P
from crisp.server import room_limits
from crisp.server.clock import Clock
from crisp.server.closecodes import CloseCode
from crisp.server.handlers import dispatch
from crisp.server.lobby import Lobby
from crisp.server.members import new_code
from crisp.server.parse import Unreadable, parse
from crisp.server.peer import Peer
from crisp.server.refused import Refused
from crisp.server.registry import Registry
from crisp.server.room import Room
from crisp.server.seeds import draw_server_seed
from crisp.server.settings import Settings
from crisp.server.store import Storage

log = logging.getLogger("crisp.server")


class Hub:
    def __init__(
        self, settings: Settings, store: Storage, clock: Clock, games: Registry
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.games = games
        self.rooms: dict[str, Room] = {}
        self.sweeper: asyncio.Task[None] | None = None

    # -- life ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Every stored room, its game clock stopped until a seat is back."""
        for code, state, updated, entries in self.store.rooms():
            try:
                lobby = Lobby.from_state(state, self._max_seats(state), self.games.default)
                room = self._room(lobby)
                room.load(state, updated, entries)
            except Exception:
                log.exception("room %s could not be loaded; it is kept on disk, not served", code)
                continue
            self.rooms[code] = room
        if self.rooms:
            log.info("loaded %d rooms", len(self.rooms))

    def _max_seats(self, state: dict[str, object]) -> int:
        spec = self.games.get(str(state.get("game_type", self.games.default)))
        return spec.seats[1] if spec is not None else 0

    async def open(self) -> None:
        self.load()
        self.sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def close(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.sweeper
        for room in self.rooms.values():
            room.stop_timers()
            for conn in list(room.conns):
                conn.close(CloseCode.GOING_AWAY)
        self.store.close()

    # -- rooms --------------------------------------------------------------------------------

    def _room(self, lobby: Lobby) -> Room:
        return Room(lobby, self.games[lobby.game_type], self.store, self.clock, self.settings)

    def create_room(self, game_type: str | None = None) -> Room:
        name = game_type or self.games.default
        spec = self.games.get(name)
        if spec is None:
            raise Refused("not_found", f"no game is called {name!r} here")
        for _ in range(100):
            code = new_code()
            if code not in self.rooms and not self.store.exists(code):
                break
        else:  # pragma: no cover - hundreds of thousands of codes
            raise Refused("unavailable", "no free room code")
        lobby = Lobby(code, self.clock.wall(), name, spec.default_options(), spec.seats[1],
                      server_seed=draw_server_seed(self.settings.fixed_seed))  # fmt: skip
        room = self._room(lobby)
        self.rooms[code] = room
        log.info("room %s created", code)
        return room

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_every_s)
            self.expire(self.clock.wall())

    def expire(self, now: float) -> list[str]:
        """Remove the rooms with no one connected and no change for ``room_ttl_s``."""
        gone = [
            code
            for code, room in self.rooms.items()
            if not room.conns and now - room.updated >= self.settings.room_ttl_s
        ]
        for code in gone:
            room = self.rooms.pop(code)
            room.stop_timers()
            self.store.delete(code)
            log.info("room %s expired", code)
        return gone

    # -- messages -----------------------------------------------------------------------------

    async def receive(self, room: Room, conn: Peer, text: str) -> None:
        """Handle one text message; refusals answer with an ``error`` and change nothing."""
        about: str | None = None
        try:
            try:
                msg = parse(text, self.settings.max_message_bytes, self.settings.json_depth_max)
            except Unreadable as err:
                about = err.about
                raise
            about = msg.type
            if not conn.greeted and not isinstance(msg, P.Hello):
                raise Refused("unauthorized", "send hello (with your seat token) first")
            async with room.lock:
                if isinstance(msg, P.Hello):
                    self._hello(room, conn, msg)
                else:
                    dispatch(room, conn, msg)
        except Refused as err:
            room.error(conn, err, about)
        except Exception:  # a bug: say so, keep the room and the connection going
            log.exception("room %s: internal error on a %s message", room.code, about)
            room.error(conn, Refused("internal", "the server failed on this message"), about)

    def _hello(self, room: Room, conn: Peer, msg: P.Hello) -> None:
        if conn.greeted:
            raise Refused("bad_message", "hello was said already")
        member = None
        if msg.token is not None:
            member = room.lobby.member_of(msg.token)
            if member is None:
                room.error(
                    conn, Refused("unauthorized", "this seat token is not valid here"), "hello"
                )
                conn.close(CloseCode.UNAUTHORIZED)
                return
        if member is None:
            watchers = sum(1 for c in room.conns if c.greeted and c.member is None)
            full = room_limits.check_watcher(watchers, self.settings)
            if full is not None:
                room.error(conn, full, "hello")
                conn.close(CloseCode.ROOM_FULL)
                return
        room.hello(conn, member)
        if member is not None:
            log.info("room %s: member %d connected", room.code, member.id)

    async def disconnected(self, room: Room, conn: Peer) -> None:
        async with room.lock:
            room.gone(conn)
