"""All the rooms of a server: creating, loading after a restart, timers, expiry, and the handling
of each incoming WebSocket message."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from pydantic import ValidationError

from crisp.engine import Options
from crisp.engine.messages import encode
from crisp.server import protocol as P
from crisp.server.connection import CLOSE_GOING_AWAY, CLOSE_UNAUTHORIZED, Connection
from crisp.server.members import new_code
from crisp.server.refused import Refused
from crisp.server.room import Room
from crisp.server.settings import Settings
from crisp.server.store import Store
from crisp.server.table import Table

log = logging.getLogger("crisp.server")

TYPES = {m.model_fields["type"].annotation.__args__[0]: m for m in P.CLIENT_TYPES}  # type: ignore[union-attr]


class Hub:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings.db_path)
        self.rooms: dict[str, Room] = {}
        self.sweeper: asyncio.Task[None] | None = None

    # -- life ---------------------------------------------------------------------------------

    async def open(self) -> None:
        """Load every stored room, restart the draw clocks in full, start the timers."""
        loop = asyncio.get_running_loop()
        for code, state, updated, entries in self.store.rooms():
            try:
                room = self._load(code, state, updated, entries, loop.time())
            except Exception:
                log.exception("room %s could not be loaded; it is kept on disk, not served", code)
                continue
            self.rooms[code] = room
            self.schedule(room)
        if self.rooms:
            log.info("loaded %d rooms", len(self.rooms))
        self.sweeper = loop.create_task(self._sweep())

    async def close(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.sweeper
        for room in self.rooms.values():
            if room.timer is not None:
                room.timer.cancel()
            for conn in list(room.conns):
                conn.close(CLOSE_GOING_AWAY)
        self.store.close()

    def _load(
        self, code: str, state: dict[str, Any], updated: float, entries: list[dict[str, Any]],
        loop_time: float,
    ) -> Room:  # fmt: skip
        from crisp.server.members import Member

        room = Room(code, self.settings, self.store, float(state["created"]))
        room.updated = updated
        room.members = {m["id"]: Member.from_json(m) for m in state["members"]}
        room.next_member = int(state["next_member"])
        room.host = state["host"]
        room.options = Options.from_record(state["options"])
        room.phase = state["phase"]
        room.game_no = int(state["game_no"])
        room.seats = list(state["seats"])
        room.version = int(state["version"])
        room.stand_ins = {int(seat): level for seat, level in state.get("stand_ins", {}).items()}
        room.log_seq = len(entries)
        games: list[list[dict[str, Any]]] = []
        for entry in entries:
            if entry["e"] == "game":
                games.append([])
            games[-1].append(entry)
        current = games[-1] if games and room.phase != "lobby" else None
        for group in reversed(games):
            table = Table.rebuild(group)
            if table.game.over:
                room.last_record = table.game.record()
                break
        if current is not None:
            table = Table.rebuild(current)
            room.table = table
            room.floors = [room.version] * len(room.seats)
            table.set_clock(loop_time, table.last_time(), self.settings.clock_speed)
            game = table.game
            for seat, member_id in enumerate(room.seats):  # bots start again from their views
                level = room.members[member_id].bot or room.stand_ins.get(seat)
                if level is not None and game.rounds:
                    view = game.view(seat)
                    room.bots.seat(seat, level, list(game.players), game.options.to_record(), view)
            if room.phase == "playing":
                room.paused_at = table.last_time()  # until a seat is back: Room.resume
            elif room.phase == "between":
                room.between_until = loop_time + self.settings.between_rounds_s / table.speed
        room.on_change = self.schedule
        return room

    # -- rooms --------------------------------------------------------------------------------

    def create_room(self) -> Room:
        for _ in range(100):
            code = new_code()
            if code not in self.rooms and not self.store.exists(code):
                break
        else:  # pragma: no cover - 371,293 codes
            raise RuntimeError("no free room code")
        room = Room(code, self.settings, self.store, time.time())
        room.on_change = self.schedule
        self.rooms[code] = room
        log.info("room %s created", code)
        return room

    def schedule(self, room: Room) -> None:
        """Wake the room at its next deadline (look, window, draw clock, next deal)."""
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        try:
            room.plan_bots()
        except Exception:
            log.exception("room %s: a bot failed to plan", room.code)
        when = room.next_wakeup()
        if when is None:
            return
        loop = asyncio.get_running_loop()
        room.timer = loop.call_at(when, lambda: loop.create_task(self._tick(room)))

    async def _tick(self, room: Room) -> None:
        async with room.lock:
            try:
                room.advance()
            except Exception:
                log.exception("room %s: a deadline failed", room.code)
            self.schedule(room)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_every_s)
            self.expire(time.time())

    def expire(self, now: float) -> list[str]:
        """Remove the rooms with no one connected and no change for ``room_ttl_s``."""
        gone = [
            code
            for code, room in self.rooms.items()
            if not room.conns and now - room.updated >= self.settings.room_ttl_s
        ]
        for code in gone:
            room = self.rooms.pop(code)
            if room.timer is not None:
                room.timer.cancel()
            self.store.delete(code)
            log.info("room %s expired", code)
        return gone

    # -- messages -----------------------------------------------------------------------------

    async def receive(self, room: Room, conn: Connection, text: str) -> None:
        """Handle one text message; refusals answer with an ``error`` and change nothing."""
        about: str | None = None
        try:
            msg = self._parse(conn, text)
            about = msg.type
            async with room.lock:
                self._dispatch(room, conn, msg)
                self.schedule(room)
        except Refused as err:
            room.error(conn, err, about)
        except Exception:  # a bug: say so, keep the room and the connection going
            log.exception("room %s: internal error on a %s message", room.code, about)
            room.error(conn, Refused("internal", "the server failed on this message"), about)

    def _parse(self, conn: Connection, text: str) -> Any:
        if len(text.encode()) > self.settings.max_message_bytes:
            raise Refused(
                "too_large", f"messages are capped at {self.settings.max_message_bytes} bytes"
            )
        try:
            data = json.loads(text)
        except ValueError as err:
            raise Refused("bad_json", "not JSON") from err
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise Refused("bad_message", 'a message is a JSON object with a "type"')
        if data["type"] not in TYPES:
            raise Refused("unknown_type", f"unknown message type {data['type'][:40]!r}")
        try:
            msg = P.CLIENT.validate_python(data)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "message"
            raise Refused("bad_message", f"{where}: {first['msg']}") from err
        if not conn.greeted and msg.type != "hello":
            raise Refused("unauthorized", "send hello (with your seat token) first")
        return msg

    def _dispatch(self, room: Room, conn: Connection, msg: Any) -> None:
        kind = msg.type
        if kind == "hello":
            self._hello(room, conn, msg)
        elif kind == "ping":
            conn.send(encode({"type": "pong", "n": msg.n}))
        elif kind == "sync":
            room.send_state(conn)
        elif kind == "act":
            room.act(conn, msg)
        elif kind == "continue":
            room.go_on(conn)
        elif kind == "leave":
            self._need_member(conn)
            if room.phase != "lobby":
                raise Refused(
                    "bad_phase", "you can leave in the lobby only; your seat waits for you"
                )
            assert conn.member is not None
            room.remove(conn.member, kicked=False)
        else:
            self._host_only(room, conn, msg)

    def _need_member(self, conn: Connection) -> None:
        if conn.member is None:
            raise Refused("forbidden", "watchers cannot do that; join the room first")

    def _host_only(self, room: Room, conn: Connection, msg: Any) -> None:
        self._need_member(conn)
        if conn.member != room.host:
            raise Refused("forbidden", "only the host can do that")
        kind = msg.type
        if kind == "host":
            if msg.member not in room.members:
                raise Refused("not_found", f"there is no member {msg.member}")
            room.pass_host(msg.member)
        elif kind == "options":
            if room.phase != "lobby":
                raise Refused("bad_phase", "options are set in the lobby, before the game")
            room.set_options(Options(msg.limit, msg.timer, msg.take_discard))
        elif kind == "start":
            if room.phase != "lobby":
                raise Refused("bad_phase", "the game has started already")
            room.start()
        elif kind == "kick":
            if room.phase != "lobby":
                raise Refused("bad_phase", "players can be removed in the lobby only")
            if msg.member not in room.members:
                raise Refused("not_found", f"there is no member {msg.member}")
            if msg.member == conn.member:
                raise Refused("bad_message", "to leave, send leave")
            room.remove(msg.member)
        elif kind == "rematch":
            if room.phase != "over":
                raise Refused("bad_phase", "a rematch comes after the game is over")
            room.rematch()
        elif kind == "grace":
            self._grace(room, msg)
        elif kind == "add_bot":
            if room.phase != "lobby":
                raise Refused("bad_phase", "bots join in the lobby; mid-game, a bot can stand in")
            room.add_bot(msg.level)
        elif kind == "bot":
            self._stand_in(room, msg)

    def _grace(self, room: Room, msg: Any) -> None:
        if room.phase not in ("playing", "between") or room.table is None:
            raise Refused("bad_phase", "there is no game in progress")
        if room.options.timer is not None:
            raise Refused(
                "bad_phase", "with a per-draw time the clock already plays for absent seats"
            )
        if msg.seat >= len(room.seats):
            raise Refused("not_found", f"there is no seat {msg.seat}")
        if room.connected(room.seats[msg.seat]):
            raise Refused("bad_phase", f"seat {msg.seat} is connected")
        seconds = msg.seconds if msg.seconds is not None else self.settings.grace_s
        t = room.game_now()
        room.set_absent(msg.seat, round(t + seconds, 3))

    def _stand_in(self, room: Room, msg: Any) -> None:
        if room.phase not in ("playing", "between") or room.table is None:
            raise Refused("bad_phase", "there is no game in progress")
        if msg.seat >= len(room.seats):
            raise Refused("not_found", f"there is no seat {msg.seat}")
        member = room.members[room.seats[msg.seat]]
        if member.bot is not None or msg.seat in room.stand_ins:
            raise Refused("bad_phase", f"a bot plays seat {msg.seat} already")
        if room.connected(member.id):
            raise Refused("bad_phase", f"seat {msg.seat} is connected")
        room.stand_in(msg.seat, msg.level)

    def _hello(self, room: Room, conn: Connection, msg: P.Hello) -> None:
        if conn.greeted:
            raise Refused("bad_message", "hello was said already")
        member = None
        if msg.token is not None:
            member = room.member_of(msg.token)
            if member is None:
                room.error(
                    conn, Refused("unauthorized", "this seat token is not valid here"), "hello"
                )
                conn.close(CLOSE_UNAUTHORIZED)
                return
        conn.member = member.id if member else None
        conn.seat = room.seat_of(conn.member)
        conn.greeted = True
        welcome = {
            "type": "welcome",
            "you": room.you(conn),
            "clock_speed": self.settings.clock_speed,
        }
        conn.send(encode(welcome))
        room.send_room()
        room.send_state(conn)
        if member is not None:
            log.info("room %s: member %d connected", room.code, member.id)
        seat = conn.seat
        if seat is not None and room.table is not None:
            room.release_stand_in(seat)  # the player takes the seat back from a bot
            room.resume()
            if room.table.game.absent[seat] and not room.table.game.over:
                room.set_absent(seat, None)  # back: its draws no longer time out

    async def disconnected(self, room: Room, conn: Connection) -> None:
        async with room.lock:
            room.conns.discard(conn)
            if conn.member is not None and room.members.get(conn.member) is not None:
                if room.phase == "between":
                    room.check_between()
                else:
                    room.send_room()
                if not room.seated_connected():
                    room.pause()
                self.schedule(room)
