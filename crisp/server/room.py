"""A room: its members, host and options, its game, and who is connected.

Every change is made by one synchronous call under the room's lock (so actions apply one at a
time, in order), stored before anything is sent, then pushed to each connection's own queue:
each seat gets its own messages from the engine, spectators the public ones.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from crisp.engine import IllegalAction, Options, Out, actions
from crisp.server.connection import Connection
from crisp.server.lobby import MAX_SEATS, LobbyActions
from crisp.server.members import Member, clean_name, new_token, token_hash
from crisp.server.outbound import Outbound
from crisp.server.refused import Refused
from crisp.server.seatbots import SeatBots
from crisp.server.settings import Settings
from crisp.server.store import Store
from crisp.server.table import LogEntry, Table

log = logging.getLogger("crisp.server")



class Room(Outbound, LobbyActions):
    def __init__(self, code: str, settings: Settings, store: Store, created: float) -> None:
        self.code = code
        self.settings = settings
        self.store = store
        self.created = created
        self.updated = created
        self.members: dict[int, Member] = {}  # in join order
        self.next_member = 1
        self.host: int | None = None
        self.options = Options()
        self.phase = "lobby"  # lobby, playing, between, over
        self.game_no = 0
        self.seats: list[int] = []  # member ids in seat order, in the current game
        self.table: Table | None = None
        self.version = 0
        self.floors: list[int] = []  # per seat: an action with an older version is stale
        self.log_seq = 0
        self.last_record: dict[str, Any] | None = None  # the last finished game's record
        self.lock = asyncio.Lock()
        self.conns: set[Connection] = set()
        self.timer: asyncio.TimerHandle | None = None
        self.continued: set[int] = set()  # seats done with the reveal
        self.between_until = 0.0  # loop time of the next deal at the latest
        # With no seated player connected (everyone left, or the server just restarted), the
        # game clock stops at this game time; the first seat back resumes it (R-TIMER in full).
        self.paused_at: float | None = None
        self.on_change: Callable[[Room], None] | None = None  # the hub reschedules
        self.bots = SeatBots()
        self.stand_ins: dict[int, str] = {}  # seat -> level: a bot plays for an absent player

    # -- state and storage --------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "created": self.created,
            "members": [m.to_json() for m in self.members.values()],
            "next_member": self.next_member,
            "host": self.host,
            "options": self.options.to_record(),
            "phase": self.phase,
            "game_no": self.game_no,
            "seats": self.seats,
            "version": self.version,
            "stand_ins": {str(seat): level for seat, level in self.stand_ins.items()},
        }

    def commit(self, entries: list[LogEntry], state: bool = True) -> int:
        """Store a change (new log entries, the room state) and give it a new version."""
        self.version += 1
        self.updated = time.time()
        numbered = []
        for entry in entries:
            numbered.append((self.log_seq, entry))
            self.log_seq += 1
        self.store.write(
            self.code, self.state() if state else None, numbered, self.updated, self.version
        )
        return self.version

    # -- members ------------------------------------------------------------------------------

    def join(self, raw_name: str) -> tuple[Member, str]:
        """A new member (a seat in the lobby, or a spectator seated at the next game)."""
        name = clean_name(raw_name)
        if any(m.name.casefold() == name.casefold() for m in self.members.values()):
            raise Refused("bad_message", f"the name {name!r} is taken in this room")
        token = new_token()
        member = Member(self.next_member, name, token_hash(token), time.time())
        self.next_member += 1
        self.members[member.id] = member
        if self.host is None:
            self.host = member.id
        self.commit([])
        log.info("room %s: member %d joined", self.code, member.id)
        self.send_room()
        return member, token

    def member_of(self, token: str) -> Member | None:
        digest = token_hash(token)
        for member in self.members.values():
            if member.token_hash == digest:
                return member
        return None

    def seat_of(self, member_id: int | None) -> int | None:
        if member_id is None or self.phase == "lobby":
            return None
        try:
            return self.seats.index(member_id)
        except ValueError:
            return None

    def connected(self, member_id: int) -> bool:
        return any(c.member == member_id and not c.closed for c in self.conns)

    def lobby_seats(self) -> list[int]:
        """Who would be seated if the game started now: the first eight members."""
        return list(self.members)[:MAX_SEATS]

    # -- the game -----------------------------------------------------------------------------

    def loop_time(self) -> float:
        return asyncio.get_running_loop().time()

    def game_now(self) -> float:
        assert self.table is not None
        if self.paused_at is not None:
            return self.paused_at
        return self.table.now(self.loop_time())

    def seated_connected(self) -> bool:
        return any(self.connected(m) for m in self.seats)

    def pause(self) -> None:
        """Stop the game clock: no one seated is here to play (the downtime of a restart is the
        same). Deadlines due until now apply first."""
        if self.phase != "playing" or self.table is None or self.paused_at is not None:
            return
        t = self.game_now()
        outs, entry = self.table.advance(t)
        self.apply(outs, [entry] if entry else [])
        if self.phase == "playing":
            self.paused_at = t
            log.info("room %s: paused, no player connected", self.code)

    def resume(self) -> None:
        """A seat is back: the game clock runs again from where it stopped, and the current
        draw's time restarts in full (no one is timed out by a pause or a restart)."""
        if self.paused_at is None or self.table is None:
            return
        t, self.paused_at = self.paused_at, None
        self.table.set_clock(self.loop_time(), t, self.settings.clock_speed)
        outs, entry = self.table.restart_clock(t)
        if outs:
            v = self.commit([entry], state=False)
            self.broadcast(outs, v)

    def _seat_floors(self, outs: list[Out], v: int) -> None:
        for out in outs:
            if out.msg["type"] == "turn":
                self.floors[out.msg["seat"]] = v
            elif out.msg["type"] == "round":
                self.floors = [v] * len(self.floors)

    def apply(self, outs: list[Out], entries: list[LogEntry]) -> None:
        """Store a change of the game, then send it; then the round's end, if it ended."""
        if not entries:
            return
        v = self.commit(entries, state=False)
        self._seat_floors(outs, v)
        self.broadcast(outs, v)
        self._after_change()

    def _after_change(self) -> None:
        table = self.table
        if table is None or self.phase != "playing":
            return
        game = table.game
        if not game.rounds or not game.round.over:
            return
        if game.over:
            self.phase = "over"
            self.last_record = game.record()
            log.info("room %s: game %d over", self.code, self.game_no)
        else:
            self.phase = "between"
            self.continued = set()
            self.between_until = self.loop_time() + self.settings.between_rounds_s / table.speed
        self.commit([])
        self.send_room()

    def advance(self) -> None:
        """Apply the deadlines that are due (the room's timer calls this)."""
        if self.table is None:
            return
        if self.phase == "playing":
            outs, entry = self.table.advance(self.game_now())
            self.apply(outs, [entry] if entry else [])
            if self.phase == "playing" and self.paused_at is None:
                self.bots.due(self.game_now(), self.bot_act)
        elif self.phase == "between" and self.loop_time() >= self.between_until:
            self.deal()

    def plan_bots(self) -> None:
        """Let the bots choose their next actions (after every change)."""
        if self.phase == "playing" and self.table is not None and self.paused_at is None:
            self.bots.plan(self.game_now())

    def bot_act(self, seat: int, fields: dict[str, Any]) -> None:
        """A bot's action: the same checks as a phone's; a refusal is logged and dropped."""
        assert self.table is not None
        try:
            action = actions.from_record({**fields, "seat": seat})
        except ValueError as err:
            log.warning("room %s: a bot sent a malformed action: %s", self.code, err)
            return
        t = self.game_now()
        outs, entry = self.table.advance(t)
        self.apply(outs, [entry] if entry else [])
        if self.phase != "playing":
            return
        try:
            outs, entry = self.table.act(action, t)
        except IllegalAction as err:
            log.warning("room %s: seat %d's bot was refused %s (%s)", self.code, seat,
                        action.do, err.rule)  # fmt: skip
            return
        v = self.commit([entry], state=False)
        self.floors[seat] = v
        self._seat_floors(outs, v)
        self.broadcast(outs, v)
        self._after_change()

    def next_wakeup(self) -> float | None:
        """The loop time at which ``advance`` has something to do."""
        if self.table is None:
            return None
        if self.phase == "between":
            return self.between_until
        if self.phase != "playing" or self.paused_at is not None:
            return None
        times = [self.table.game.next_deadline(), self.bots.next_time()]
        due = [t for t in times if t is not None]
        return self.table.loop_time_of(min(due)) if due else None

    def start(self) -> None:
        seats = self.lobby_seats()
        if len(seats) < 2:
            raise Refused("bad_phase", "a game needs at least 2 players (R-PLAYERS)")
        self.game_no += 1
        self.seats = seats
        names = [self.members[m].name for m in seats]
        table, head = Table.new(names, self.options, self.game_no, self.settings.fixed_seed)
        self.table = table
        self.floors = [0] * len(seats)
        self.phase = "playing"
        self.stand_ins = {}
        self.bots.clear()
        for seat, member_id in enumerate(seats):
            level = self.members[member_id].bot
            if level is not None:
                self.bots.seat(seat, level, names, self.options.to_record(), None)
        for conn in self.conns:
            conn.seat = self.seat_of(conn.member)
        self.commit([head])
        log.info("room %s: game %d started with %d players", self.code, self.game_no, len(seats))
        self.deal(first=True)

    def deal(self, first: bool = False) -> None:
        table = self.table
        assert table is not None
        table.set_clock(self.loop_time(), 0.0, self.settings.clock_speed)
        outs, entry = table.deal()
        self.phase = "playing"
        v = self.commit([entry])
        self.floors = [v] * len(self.seats)
        self.paused_at = None if self.seated_connected() else 0.0
        self.send_room()
        self.broadcast(outs, v)
        if first:  # a state reflects every engine message of its version or before
            for conn in self.conns:
                if conn.greeted:
                    self.send_state(conn)

    def act(self, conn: Connection, msg: Any) -> None:
        seat = conn.seat
        if self.phase != "playing" or self.table is None:
            raise Refused("bad_phase", "no round is being played")
        if conn.member is None or seat is None:
            raise Refused("forbidden", "only a seated player can play")
        if msg.v > self.version:
            raise Refused("bad_version", f"version {msg.v} does not exist yet (now {self.version})")
        if msg.v < self.floors[seat]:
            raise Refused("stale", "the game moved on since that version: look again")
        fields = {"seat": seat, "do": msg.do}
        for name in ("slot", "target", "target_slot"):
            value = getattr(msg, name)
            if value is not None:
                fields[name] = value
        try:
            action = actions.from_record(fields)
        except ValueError as err:
            raise Refused("bad_message", str(err)) from err
        t = self.game_now()
        outs, entry = self.table.advance(t)  # deadlines first, as time passed anyway
        self.apply(outs, [entry] if entry else [])
        if self.phase != "playing":
            raise Refused("illegal", "the round is over", "R-FINAL-TURNS")
        try:
            outs, entry = self.table.act(action, t)
        except IllegalAction as err:
            raise Refused("illegal", err.message, err.rule) from err
        v = self.commit([entry], state=False)
        self.floors[seat] = v
        self._seat_floors(outs, v)
        self.broadcast(outs, v)
        self._after_change()

    def waiting(self) -> list[int]:
        """Connected seats that have not continued past the reveal."""
        return [
            s for s, m in enumerate(self.seats) if self.connected(m) and s not in self.continued
        ]

    def go_on(self, conn: Connection) -> None:
        if self.phase != "between":
            raise Refused("bad_phase", "there is no reveal to go on from")
        if conn.seat is None:
            raise Refused("forbidden", "only a seated player can go on")
        self.continued.add(conn.seat)
        self.check_between()

    def check_between(self) -> None:
        if self.phase == "between" and not self.waiting():
            self.deal()
        elif self.phase == "between":
            self.send_room()

    def set_absent(self, seat: int, until: float | None) -> None:
        assert self.table is not None
        t = self.game_now()
        outs, entry = self.table.advance(t)
        self.apply(outs, [entry] if entry else [])
        if self.table.game.over:
            return
        try:
            outs, entry = self.table.set_absent(seat, until, t)
        except ValueError as err:
            raise Refused("bad_phase", str(err)) from err
        v = self.commit([entry])
        self._seat_floors(outs, v)
        self.broadcast(outs, v)
        self.send_room()
        self._after_change()
