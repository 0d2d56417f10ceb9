"""All the rooms of a server: creating them, loading them after a restart, expiry, and each
incoming message (parsed, then dispatched to its room under the room's lock).

With a shared store (PostgreSQL, ``leases.py``) a node serves only the rooms it owns: a room is
claimed (and rebuilt from its log) on the first request naming its code, the leases are renewed
every ``lease_renew_s``, and a room lost to another node, or handed over to it, is dropped here and
its sockets closed with ``CloseCode.MOVED`` (the phones reconnect through the balancer at once)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

from crisp.server.clock import Clock
from crisp.server.limits import room_limits
from crisp.server.observe.metrics import Metrics
from crisp.server.registry import Registry
from crisp.server.rooms.batch import GroupCommit
from crisp.server.rooms.handlers import dispatch
from crisp.server.rooms.latency import Strays
from crisp.server.rooms.lobby import Lobby
from crisp.server.rooms.peer import Peer
from crisp.server.rooms.probebudget import ProbeBudget
from crisp.server.rooms.room import Room
from crisp.server.rooms.seeds import draw_server_seed
from crisp.server.settings import Settings
from crisp.server.store.leases import Leases, Renewal, RoomBusy
from crisp.server.store.outage import StoreUnavailable
from crisp.server.store.sqlite import Storage, StoredRoom
from crisp.server.wire import protocol as P
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.errors import Refused
from crisp.server.wire.parse import Unreadable, parse
from crisp.server.wire.roomcode import new_code

log = logging.getLogger("crisp.server")


class Hub:
    def __init__(
        self,
        settings: Settings,
        store: Storage,
        clock: Clock,
        games: Registry,
        leases: Leases | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.games = games
        self.leases = leases  # None: this process is the only one using the store
        self.rooms: dict[str, Room] = {}
        self.sweeper: asyncio.Task[None] | None = None
        self.renewer: asyncio.Task[None] | None = None
        self.metrics: Metrics | None = None  # set by the app (GET /metrics)
        # group commit (batch.py): one transaction a loop turn for every room changed in it
        self.batch = GroupCommit(store, defer=settings.group_commit)
        # one generator for every room's bots and probe jitter (no secret: 2.9 KB a room less)
        self.rng = random.Random()
        # every room's settled answers: strays of a common cause are not counted (latency.py)
        self.strays = Strays()
        # every room's probes at its ticks, as the server can spare (probebudget.py)
        self.probe_budget = ProbeBudget(settings.probe_budget_per_s)

    # -- life ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Every stored room, its game clock stopped until a seat is back (a shared store: none;
        each is claimed when asked for)."""
        if self.leases is not None:
            return
        for stored in self.store.rooms():
            room = self._loaded(stored)
            if room is not None:
                self.rooms[room.code] = room
        if self.rooms:
            log.info("loaded %d rooms", len(self.rooms))

    def _loaded(self, stored: StoredRoom) -> Room | None:
        code, state, updated, entries = stored
        try:
            lobby = Lobby.from_state(state, self._max_seats(state), self.games.default)
            room = self._room(lobby)
            room.load(state, updated, entries)
        except Exception:
            log.exception("room %s could not be loaded; it is kept on disk, not served", code)
            return None
        return room

    def _max_seats(self, state: dict[str, object]) -> int:
        spec = self.games.get(str(state.get("game_type", self.games.default)))
        return spec.seats[1] if spec is not None else 0

    async def open(self) -> None:
        self.load()
        loop = asyncio.get_running_loop()
        self.sweeper = loop.create_task(self._sweep())
        if self.leases is not None:
            self.renewer = loop.create_task(self._renew())

    async def close(self) -> None:
        for task in (self.sweeper, self.renewer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in self.rooms.values():
            room.stop_timers()
            if self.leases is not None:  # another node may claim it at once
                with contextlib.suppress(Exception):
                    self.leases.release(room.code)
            for conn in list(room.conns):
                conn.close(CloseCode.GOING_AWAY)
        await self.batch.drain()  # what the last turn changed, before the store closes
        self.store.close()

    # -- ownership (a shared store) -------------------------------------------------------------

    async def find(self, code: str) -> Room | None:
        """The room of ``code``: served here, or claimed now from the shared store (waiting up
        to ``claim_wait_s`` for its holder to hand it over or its lease to run out: ``RoomBusy``
        after that). None: there is no such room."""
        room = self.rooms.get(code)
        if room is not None or self.leases is None or len(code) > 64:
            return room
        leases = self.leases
        deadline = self.clock.now() + self.settings.claim_wait_s
        while True:
            # A claim is synchronous: no other request for the code runs between the look and it.
            if (room := self.rooms.get(code)) is not None:
                return room
            try:
                stored = leases.claim(code)
                break
            except RoomBusy:
                if self.clock.now() >= deadline:
                    raise
            await asyncio.sleep(0.05)
        if stored is None:
            return None
        room = self._loaded(stored)
        if room is None:
            leases.release(code)
            return None
        room.on_lost = self._lost
        self.rooms[code] = room
        log.info("room %s claimed (node %s)", code, leases.node)
        return room

    async def _renew(self) -> None:
        """Renew the leases every ``lease_renew_s``; between renewals, every
        ``handover_check_s``, hand over the rooms another node asked for."""
        assert self.leases is not None
        leases, every = self.leases, self.settings.handover_check_s
        next_renewal = self.clock.now()
        while True:
            await asyncio.sleep(every)
            try:
                if self.clock.now() >= next_renewal:
                    next_renewal = self.clock.now() + self.settings.lease_renew_s
                    renewal = leases.renew()
                else:
                    renewal = Renewal(wanted=leases.wanted())
            except StoreUnavailable:  # an outage: logged once by the store; retried
                continue
            except Exception:
                log.exception("the leases could not be renewed (retrying)")
                continue
            for code in renewal.lost:
                if (room := self.rooms.get(code)) is not None:
                    log.warning("room %s: its lease was lost to another node", code)
                    self._lost(room)
            for code in renewal.wanted:
                if (room := self.rooms.get(code)) is not None:
                    async with room.lock:
                        leases.release(code)
                        self._drop(room)
                    log.info("room %s handed over", code)

    def _lost(self, room: Room) -> None:
        """Another node owns the room now: nothing of it runs here again."""
        self._drop(room)

    def _drop(self, room: Room) -> None:
        room.stop_timers()
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        for conn in list(room.conns):
            conn.close(CloseCode.MOVED)

    # -- rooms --------------------------------------------------------------------------------

    def _room(self, lobby: Lobby) -> Room:
        spec = self.games[lobby.game_type]
        room = Room(lobby, spec, self.store, self.clock, self.settings, self.batch, self.rng)
        room.check_move = self.games.check_move(spec.name)
        room.probes.strays = self.strays
        room.probes.budget = self.probe_budget
        room.metrics = self.metrics
        self.batch.metrics = self.metrics
        return room

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
        lobby = Lobby(
            code,
            self.clock.wall(),
            name,
            spec.default_options(),
            spec.seats[1],
            server_seed=draw_server_seed(self.settings.fixed_seed),
        )
        room = self._room(lobby)
        room.on_lost = self._lost
        self.rooms[code] = room
        log.info("room %s created", code)
        return room

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_every_s)
            with contextlib.suppress(StoreUnavailable):  # an outage: the next sweep
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
        if self.leases is not None:  # the rooms of nodes that died, which no one asked for since
            try:
                unheld = self.leases.expire_unheld(now - self.settings.room_ttl_s)
            except StoreUnavailable:
                unheld = []
            except Exception:
                log.exception("the rooms no node holds could not be expired (next sweep)")
                unheld = []
            if unheld:
                log.info("%d rooms no node held expired", len(unheld))
            gone += unheld
        return gone

    # -- messages -----------------------------------------------------------------------------

    async def receive(self, room: Room, conn: Peer, text: str) -> None:
        """Handle one text message; refusals answer with an ``error`` and change nothing."""
        async with room.lock:
            about = self._handle(room, conn, text)
        # Group commit: the change is stored at the end of the turn; a failure is the sender's
        # ``unavailable`` as a failed write was (the room is back as it was).
        commit = room.settled()
        if commit is None:
            return
        try:
            await commit
        except Refused as err:
            room.error(conn, err, about)

    def receive_now(self, room: Room, conn: Peer, text: str) -> bool:
        """``receive`` without waiting, for the direct path (``socket/inbox.py``): the message is
        handled at once if no one holds the room's lock (nothing can come between, as under it),
        and a failed commit is told to the sender when it lands. False, and nothing done, if the
        room is held: the caller awaits ``receive`` instead, in order."""
        if room.lock.locked():
            return False
        about = self._handle(room, conn, text)
        room.if_undone(lambda refusal: _tell_refused(room, conn, about, refusal))
        return True

    def _handle(self, room: Room, conn: Peer, text: str) -> str | None:
        """Parse, check and apply one message (the room held); a refusal is answered. Returns
        what the message was about (its type), for the answer to a failed commit."""
        about: str | None = None
        try:
            try:
                msg = parse(
                    text,
                    self.settings.max_message_bytes,
                    self.settings.json_depth_max,
                    self.games.most_seats,
                )
            except Unreadable as err:
                about = err.about
                raise
            about = msg.type
            if not conn.greeted and not isinstance(msg, P.Hello):
                raise Refused("unauthorized", "send hello (with your seat token) first")
            if isinstance(msg, P.Hello):
                self._hello(room, conn, msg)
            else:
                dispatch(room, conn, msg)
        except Refused as err:
            room.error(conn, err, about)
        except Exception:  # a bug: say so, keep the room and the connection going
            log.exception("room %s: internal error on a %s message", room.code, about)
            room.error(conn, Refused("internal", "the server failed on this message"), about)
        return about

    def _hello(self, room: Room, conn: Peer, msg: P.Hello) -> None:
        if conn.greeted:
            raise Refused("bad_message", "hello was said already")
        member = None
        if msg.token is not None:
            member = room.lobby.member_of(msg.token)
            if member is None:
                refusal = Refused("unauthorized", "this seat token is not valid here")
                room.refuse_and_close(conn, refusal, "hello", CloseCode.UNAUTHORIZED)
                return
        if member is None:
            watchers = sum(1 for c in room.conns if c.greeted and c.member is None)
            full = room_limits.check_watcher(watchers, self.settings)
            if full is not None:
                room.refuse_and_close(conn, full, "hello", CloseCode.ROOM_FULL)
                return
        conn.arrays = msg.frames == "array"
        room.hello(conn, member)
        if member is not None:
            log.info("room %s: member %d connected", room.code, member.id)

    async def disconnected(self, room: Room, conn: Peer) -> None:
        async with room.lock:
            room.gone(conn)
        await room.quietly_settled()


def _tell_refused(room: Room, conn: Peer, about: str | None, refusal: Exception) -> None:
    """A commit that failed is the sender's refusal (``unavailable``, ``moved``), as awaited."""
    if isinstance(refusal, Refused):
        room.error(conn, refusal, about)
    else:
        log.error("room %s: a commit failed with %r", room.code, refusal)
