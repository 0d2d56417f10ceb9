"""A room: its lobby, its match, who is connected, and the one pipeline every input goes through.

Every input (a phone's move, a bot's move, a deadline, a lobby change, a seat coming or going) is
one ``_run(step)``: the step validates and applies its change to the lobby and the match,
collecting the log entries and the messages; then the change is written to the store in one
transaction; only then are the messages sent. If the write fails, the room is put back exactly as
it was (the lobby from its state, the match rebuilt from its stored log), the sender is told
``unavailable`` and no one else sees anything. Versions and log numbers move only on a write.

The write is group commit's (``batch.py``), the only write path: it waits for the end of the
event loop's turn, in one transaction with every other room changed in it. The room's version and
log numbers move at once (a second change in the same turn numbers after the first), and all it
sends is queued until the commit; a failed commit puts it back as it was before its first change
of the batch. Whoever needs the outcome awaits ``settled()``. Where no loop runs (loading at
start-up) or group commit is off (``CRISP_GROUP_COMMIT=0``), the batch is the room's change alone,
written before ``_run`` returns, and a failure raises the refusal.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import random
from collections.abc import Callable, Coroutine
from typing import Any

from crisp.server.clock import Alarm, Clock, GameClock
from crisp.server.observe.metrics import Metrics
from crisp.server.rooms import messages
from crisp.server.rooms.batch import GroupCommit, Pending
from crisp.server.rooms.commit import Committing, Txn
from crisp.server.rooms.latency import Probes
from crisp.server.rooms.lobby import IN_GAME, Lobby, Phase
from crisp.server.rooms.members import Member, new_token, token_hash
from crisp.server.rooms.peer import Peer
from crisp.server.rooms.seatbots import SeatBots
from crisp.server.rooms.seeds import draw_server_seed
from crisp.server.seam import (
    BadFields,
    Change,
    Fields,
    GameSpec,
    LogEntry,
    Match,
    MoveRefused,
    Seeds,
)
from crisp.server.seam import Status as MatchStatus
from crisp.server.settings import Settings
from crisp.server.store.sqlite import Storage
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.encoder import dumps as encode
from crisp.server.wire.errors import Refused

log = logging.getLogger("crisp.server")


def on_the_ms_grid(due: float) -> float:
    """The first game time in whole ms (the game clock's) at which ``due`` has come: a deadline
    a float's error past a ms (280.81100000000004) has come at 280.812, not 280.811 (else the
    room wakes, finds it not due, and wakes again at the same instant: a spin)."""
    at = math.ceil(due * 1000 - 1e-6) / 1000
    return at if at >= due else round(at + 0.001, 3)


class Room(Committing):
    def __init__(
        self,
        lobby: Lobby,
        spec: GameSpec,
        store: Storage,
        clock: Clock,
        settings: Settings,
        batch: GroupCommit | None = None,  # None: a batch of its own, written at once
        rng: random.Random | None = None,
    ) -> None:
        self.lobby = lobby
        self.spec = spec
        # the game's check of a move's fields (the hub gives the one its rooms share, which
        # remembers its answers: movememo.py)
        self.check_move: Callable[[Fields], Fields] = spec.check_move
        self.store = store
        self.clock = clock
        self.settings = settings
        self.code = lobby.code
        self.updated = lobby.created
        self.version = 0
        self.log_seq = 0
        self.match: Match | None = None
        self.game_log: list[LogEntry] = []  # the current game's stored entries, head first
        self.game_clock = GameClock(settings.clock_speed)
        self.floors: list[int] = []  # per seat: a move decided on an older version is stale
        self.continued: set[int] = set()  # seats done with the reveal
        self.between_until = 0.0  # clock time of the next deal at the latest
        self.last_record: dict[str, Any] | None = None  # the last finished game's record
        rng = rng or random.Random()  # bots' seeds, reaction times, probes' jitter: no secret
        self.bots = SeatBots(rng)
        self.conns: set[Peer] = set()
        self.lock = asyncio.Lock()
        self.timer = Alarm(clock, self._wake)  # the next deadline or bot's move
        self._stored_lobby: dict[str, Any] | None = None  # the lobby as last stored (or None)
        # R-WINDOW-LAG: each connection's round trips, probed while a game runs
        self.probes = Probes(
            clock,
            settings.rtt_samples,
            settings.window_lag_cap_ms,
            settings.probe_settled_every_s,
            rng,
            settings.rtt_settle_samples,
        )
        self.probe_timer = Alarm(clock, self._probe_wake)  # the next probe tick
        # called when a write finds that another node owns the room now (a shared store)
        self.on_lost: Callable[[Room], None] | None = None
        self.metrics: Metrics | None = None  # GET /metrics: counters only on this path
        self.batch = batch or GroupCommit(store, defer=False)  # group commit (batch.py)
        self._pending: Pending | None = None  # this room's part of the open batch
        self.retry_at = 0.0  # after a failed write: nothing due is tried again before this

    # -- the pipeline -------------------------------------------------------------------------

    def _run(self, step: Callable[[Txn], None]) -> None:
        """validate → apply → write → send. The write and the sends wait for the end of the
        event loop's turn (group commit, ``batch.py``), or, where no loop runs or group commit
        is off, are done before this returns: a failed write then raises its refusal. A refusal
        after a partial change (deadlines that were due) stores and sends that part, then
        refuses."""
        before, txn, refused = self._apply_step(step)
        deferred = self.batch.deferring()
        pending = None
        if txn:
            pending = self._pending
            if pending is None or pending.sealed:  # sealed: in flight, the next batch's then
                pending = self._pending = self.batch.begin(self, before, deferred)
            self._enqueue(pending, txn)
            self._stored(txn)
        self._send(txn)
        self._plan()
        if pending is not None and not deferred:
            self.batch.write_now()
            if pending.refusal is not None:
                raise pending.refusal from pending.error
        if refused is not None:
            raise refused

    # -- applying to the match ----------------------------------------------------------------

    def _apply(self, txn: Txn, change: Change) -> None:
        """A change of the current match, into the transaction; then the phase that follows."""
        if not change:
            return
        txn.touched = True
        txn.entries += change.entries
        self.game_log += change.entries
        txn.sends.append(("outs", change.outs))
        if change.stale is None or txn.stale is None:
            txn.stale = None
        else:
            txn.stale |= change.stale
        self._after_match(txn)

    def _after_match(self, txn: Txn) -> None:
        match = self.match
        if match is None or self.lobby.phase != Phase.PLAYING:
            return
        status = match.status()
        if status == MatchStatus.OVER:
            self.lobby.phase = Phase.OVER
            self.last_record = match.record()
            log.info("room %s: game %d over", self.code, self.lobby.game_no)
        elif status == MatchStatus.BETWEEN:
            self.lobby.phase = Phase.BETWEEN
            self.continued = set()
            self.between_until = self.clock.now() + self._real(self.settings.between_rounds_s)
        else:
            return
        txn.lobby = True
        txn.room()

    def _real(self, game_seconds: float) -> float:
        return game_seconds / self.game_clock.speed

    def game_now(self) -> float:
        assert self.match is not None
        return self.game_clock.at(self.clock.now(), self.match.last_time())

    def _advance(self, txn: Txn) -> None:
        assert self.match is not None
        self._apply(txn, self.match.advance(self.game_now()))

    # -- members ------------------------------------------------------------------------------

    def join(self, name: str) -> tuple[Member, str]:
        """A new member (a seat in the lobby, or a spectator seated at the next game)."""
        token = new_token()
        joined: list[Member] = []

        def step(txn: Txn) -> None:
            joined.append(self.lobby.join(name, token_hash(token), self.clock.wall()))
            txn.lobby = True
            txn.room()

        self._run(step)
        log.info("room %s: member %d joined", self.code, joined[0].id)
        return joined[0], token

    def online(self) -> set[int]:
        return {c.member for c in self.conns if c.member is not None and not c.closed}

    def connected(self, member_id: int) -> bool:
        return any(c.member == member_id and not c.closed for c in self.conns)

    def seated_connected(self) -> bool:
        online = self.online()
        return any(m in online for m in self.lobby.seats)

    def waiting(self) -> list[int]:
        """Connected seats that have not continued past the reveal."""
        online = self.online()
        seats = enumerate(self.lobby.seats)
        return [s for s, m in seats if m in online and s not in self.continued]

    # -- what the room sends ------------------------------------------------------------------

    def room_message(self) -> dict[str, Any]:
        between = None
        if self.lobby.phase == Phase.BETWEEN:
            deal_in = max(0.0, self.between_until - self.clock.now())
            between = {"waiting": self.waiting(), "deal_in": round(deal_in, 3)}
        return messages.room_message(
            self.lobby,
            self.version,
            self.online(),
            self.match,
            between,
            self.last_record is not None,
        )

    def send_room(self, only: Peer | None = None) -> None:
        text = encode(self.room_message())
        for conn in [only] if only is not None else self.conns:
            if conn.greeted:
                self._out(conn, text)

    def state_message(self, conn: Peer) -> dict[str, Any]:
        view = now = None
        if self.match is not None and self.lobby.phase != Phase.LOBBY and self.match.started():
            view = self.match.view(conn.seat)
            now = self.game_now()
        return {
            "type": "state",
            "v": self.version,
            "now": now,
            "view": view,
            "you": messages.you(self.lobby, conn),
        }

    def send_state(self, conn: Peer) -> None:
        self._out(conn, encode(self.state_message(conn)))
        if self._pending is not None:
            self._pending.states.append(conn)

    def send_states(self, _v: int = 0) -> None:
        for conn in self.conns:
            if conn.greeted:
                self.send_state(conn)

    def error(self, conn: Peer, err: Refused, about: str | None) -> None:
        if self.metrics is not None:
            self.metrics.refused(err.code)
        self._out(conn, encode(messages.error_message(err, about, self.version)))

    def _reseat(self, _v: int = 0) -> None:
        for conn in self.conns:
            conn.seat = self.lobby.seat_of(conn.member)

    # -- connections --------------------------------------------------------------------------

    def hello(self, conn: Peer, member: Member | None) -> None:
        """A connection said hello (as ``member``, or as a watcher)."""
        conn.member = member.id if member else None
        conn.seat = self.lobby.seat_of(conn.member)
        conn.greeted = True
        self._welcome(conn)
        if self._pending is not None:
            self._pending.hellos.append(conn)
            self._pending.presence = self._pending.presence or member is not None
        self.send_room(only=None if member is not None else conn)  # presence changed
        self.send_state(conn)
        if self.lobby.phase in IN_GAME:
            self._later(functools.partial(self._probe, conn))  # after the welcome
            self._plan_probes()
            self._probe_soon()
        seat = conn.seat
        if seat is not None and self.match is not None and self.lobby.phase in IN_GAME:
            self._run(lambda txn: self._seat_back(txn, seat))

    def _welcome(self, conn: Peer) -> None:
        welcome = {
            "type": "welcome",
            "you": messages.you(self.lobby, conn),
            "clock_speed": self.settings.clock_speed,
        }
        self._out(conn, encode(welcome))

    def _seat_back(self, txn: Txn, seat: int) -> None:
        """A seat's player is back: the bot leaves, the clock runs, no more timeouts."""
        if self.lobby.stand_ins.pop(seat, None) is not None:
            self.bots.release(seat)
            txn.lobby = True
            txn.room()
        self._resume(txn)
        absence = self.match.absence if self.match is not None else None
        if absence is not None and absence.is_absent(seat) and self.lobby.phase in IN_GAME:
            self._set_absent(txn, seat, None)

    def gone(self, conn: Peer) -> None:
        """A connection closed."""
        self.conns.discard(conn)
        self.probes.forget(conn)
        if conn.member is None or conn.member not in self.lobby.members:
            return
        if self._pending is not None:
            self._pending.presence = True  # told again if the batch fails
        if self.lobby.phase == Phase.BETWEEN:
            self._run(self._check_between)
        else:
            self.send_room()
        if not self.seated_connected():
            self._run(self._pause)

    # -- the game clock -----------------------------------------------------------------------

    def _pause(self, txn: Txn) -> None:
        """Stop the game clock: no one seated is here to play (the downtime of a restart is the
        same). Deadlines due until now apply first."""
        if self.lobby.phase != Phase.PLAYING or self.match is None:
            return
        if self.game_clock.paused_at is not None:
            return
        t = self.game_now()
        self._apply(txn, self.match.advance(t))
        if self.lobby.phase == Phase.PLAYING:
            self.game_clock.paused_at = t
            log.info("room %s: paused, no player connected", self.code)

    def _resume(self, txn: Txn) -> None:
        """A seat is back: the game clock runs again from where it stopped, and the current
        turn's time restarts in full (no one is timed out by a pause or a restart)."""
        t = self.game_clock.paused_at
        if t is None or self.match is None:
            return
        self.game_clock.paused_at = None
        self.game_clock.set(self.clock.now(), t)
        self._apply(txn, self.match.restart_clock(t))

    def tick(self) -> None:
        """The room's timer: apply what is due (deadlines, the next deal, a bot's move)."""
        phase = self.lobby.phase
        if phase == Phase.PLAYING and self.match is not None:
            self._run(self._advance)
            if self.lobby.phase == Phase.PLAYING and self.game_clock.paused_at is None:
                self.bots.due(self.game_now(), self.bot_move)
        elif phase == Phase.BETWEEN and self.clock.now() >= self.between_until:
            self._run(self._deal)

    def next_wakeup(self) -> float | None:
        """The clock time at which ``tick`` has something to do."""
        if self.match is None:
            return None
        if self.lobby.phase == Phase.BETWEEN:
            return self.between_until
        if self.lobby.phase != Phase.PLAYING or self.game_clock.paused_at is not None:
            return None
        due = [t for t in (self.match.next_deadline(), self.bots.next_time()) if t is not None]
        if not due:
            return None
        return self.game_clock.real_time_of(on_the_ms_grid(min(due)))

    def _plan(self) -> None:
        """After every change: the bots choose, and the timer is set for the next thing due
        (kept as it is when that has not moved: most moves leave the deadlines alone)."""
        playing = self.lobby.phase == Phase.PLAYING and self.match is not None
        if playing and self.bots.bots and self.game_clock.paused_at is None:
            try:
                self.bots.plan(self.game_now())
            except Exception:
                log.exception("room %s: a bot failed to plan", self.code)
        when = self.next_wakeup()
        if when is not None:
            when = max(when, self.retry_at)
        self.timer.set(when)
        self._plan_probes()

    def _wake(self) -> Coroutine[Any, Any, None] | None:
        """The room's timer: what is due."""
        self.timer.fired()
        return self._now_or_when_free(self._due_now)

    def _now_or_when_free(self, work: Callable[[], None]) -> Coroutine[Any, Any, None] | None:
        """A timer's ``work``, at once if no one holds the room (as a message is handled,
        hub.py), else as the coroutine returned, once the holder is done (which then waits for
        the commit, as a task). A failed commit of what it changed is logged where it failed
        (``batch.py``, the store's outage)."""
        if self.lock.locked():
            return self._when_free(work)
        work()
        return None

    async def _when_free(self, work: Callable[[], None]) -> None:
        async with self.lock:
            work()
        await self.quietly_settled()

    def _due_now(self) -> None:
        """Apply what is due (the room held), then plan the next wake-up."""
        try:
            self.tick()
        except Refused as err:
            if err.code != "unavailable":  # a failed write is logged where it failed
                log.warning("room %s: a deadline was not applied: %s", self.code, err.message)
        except Exception:
            log.exception("room %s: a deadline failed", self.code)
        finally:
            self._plan()

    async def quietly_settled(self) -> None:
        """Wait for the commit of what is pending. A failure has no one to tell, and is logged
        where it failed (the store's outage, a room another node took, a failed write): not
        again here, a line a try."""
        wait = self.settled()
        if wait is None:
            return
        try:
            await wait
        except Refused as err:
            log.debug("room %s: a change was not stored: %s", self.code, err.message)

    # -- round trips (R-WINDOW-LAG, latency.py) -------------------------------------------------

    def stop_timers(self) -> None:
        """The room is closed or dropped: nothing of it runs again."""
        self.timer.cancel()
        self.probe_timer.cancel()

    def _probing(self) -> bool:
        return self.lobby.phase in IN_GAME and any(c.greeted for c in self.conns)

    def _plan_probes(self) -> None:
        """While a game runs and someone is connected: probe everyone now, then at the ticks
        ``_probe_all`` sets."""
        if not self.probe_timer.is_set() and self._probing():
            self._probe_all()

    def _probe_all(self) -> None:
        """Probe every greeted connection that is due (latency.py: a settled one less often).
        The next tick is in ``probe_every_s``, or, when every connection is settled, when the
        first of them is due (latency.py, ``Probes.next_tick``). A server that is behind sends
        none at this tick (``Probes.shed``), nor more than its budget (``Probes.afford``)."""
        greeted = [conn for conn in self.conns if conn.greeted]
        probes = self.probes
        if not probes.shed():
            for conn in probes.in_turn(greeted):
                if probes.due(conn) and probes.afford():
                    self._later(functools.partial(self._probe, conn))
        soonest = self.clock.now() + self.settings.probe_every_s
        self.probe_timer.set(probes.next_tick(greeted, soonest))

    def _probe_soon(self) -> None:
        """A connection needs probes every ``probe_every_s`` (it is new, or its answer strayed):
        a later tick comes sooner."""
        soonest = self.clock.now() + self.settings.probe_every_s
        timer = self.probe_timer
        if timer.is_set() and timer.when > soonest:
            timer.set(soonest)

    def _probe_along(self, conns: list[Peer]) -> None:
        """A settled connection whose probe is due gets it now, ahead of the messages going to
        it in the same frame (latency.py)."""
        if self.probes.trips:
            for conn in self.probes.along(conns, self.clock.now()):
                self._later(functools.partial(self._probe, conn))

    def _probe(self, conn: Peer) -> None:
        if conn in self.conns and not conn.closed:
            self.probes.probe(conn)

    def _probe_wake(self) -> Coroutine[Any, Any, None] | None:
        """The probes' timer (if the room is held, a change meanwhile may set it again first)."""
        self.probe_timer.fired()
        return self._now_or_when_free(self._plan_probes)

    def probe_ack(self, conn: Peer, n: int) -> None:
        """A phone's answer to probe ``n`` (one that strays brings the next tick near)."""
        if self.probes.answered(conn, n):
            self._probe_soon()

    def lag_of(self, conn: Peer) -> int:
        """The allowance of a move sent over ``conn``: half its round trip in game ms, capped."""
        return self.probes.allowance_ms(conn, self.game_clock.speed)

    # -- moves ---------------------------------------------------------------------------------

    def move(self, conn: Peer, v: int, move: Fields) -> None:
        """A phone's move for its own seat (its shape checked), decided on version ``v``."""
        seat = conn.seat
        if self.lobby.phase != Phase.PLAYING or self.match is None:
            raise Refused("bad_phase", "no round is being played")
        if conn.member is None or seat is None:
            raise Refused("forbidden", "only a seated player can play")
        if v > self.version:
            raise Refused("bad_version", f"version {v} does not exist yet (now {self.version})")
        if v < self.floors[seat]:
            raise Refused("stale", "the game moved on since that version: look again")
        lag = self.lag_of(conn)
        self._run(lambda txn: self._move(txn, seat, move, lag))

    def bot_move(self, seat: int, fields: Fields) -> None:
        """A bot's move: the same checks as a phone's; a refusal is logged and dropped."""
        try:
            move = self.check_move(fields)
            self._run(lambda txn: self._move(txn, seat, move, 0))
        except (BadFields, Refused) as err:
            log.warning("room %s: seat %d's bot was refused: %s", self.code, seat, err)

    def _move(self, txn: Txn, seat: int, move: Fields, lag_ms: int) -> None:
        assert self.match is not None
        try:
            change = self.match.apply(seat, move, self.game_now(), lag_ms)
        except MoveRefused as err:
            self._apply(txn, err.before)
            raise Refused("illegal", err.message, err.rule) from err
        except BadFields as err:
            raise Refused("bad_message", str(err)) from err
        if txn.stale is not None:
            txn.stale.add(seat)
        self._apply(txn, change)

    # -- the lobby ----------------------------------------------------------------------------

    def _lobby_change(self, txn: Txn, change: Callable[[], object]) -> None:
        change()
        txn.lobby = True
        txn.room()

    def set_options(self, options: Fields) -> None:
        """The host's options (checked by the game)."""

        def step(txn: Txn) -> None:
            self.lobby.options = options
            self._lobby_change(txn, lambda: None)

        self._run(step)

    def client_seed(self, member_id: int, seed: str) -> None:
        """A member's client seed for the next game (in the lobby; the room message says who has
        sent one, never the seed)."""
        self._run(
            lambda txn: self._lobby_change(txn, lambda: self.lobby.set_client_seed(member_id, seed))
        )

    def pass_host(self, member_id: int) -> None:
        self._run(lambda txn: self._lobby_change(txn, lambda: self.lobby.pass_host(member_id)))

    def add_bot(self, level: str) -> None:
        self._check_level(level)
        now = self.clock.wall()
        self._run(lambda txn: self._lobby_change(txn, lambda: self.lobby.add_bot(level, now)))

    def _check_level(self, level: str) -> None:
        if level not in self.spec.bot_levels:
            levels = ", ".join(self.spec.bot_levels)
            raise Refused("bad_message", f"level: a bot's level is one of {levels}")

    def remove(self, member_id: int, kicked: bool = True) -> None:
        if member_id not in self.lobby.members:
            raise Refused("not_found", f"there is no member {member_id}")

        def step(txn: Txn) -> None:
            self.lobby.remove(member_id)
            txn.lobby = True
            txn.then(lambda _v: self._close_member(member_id, kicked))
            txn.room()

        self._run(step)
        log.info("room %s: member %d removed", self.code, member_id)

    def _close_member(self, member_id: int, kicked: bool) -> None:
        for conn in list(self.conns):
            if conn.member == member_id:
                if kicked:
                    self.error(conn, Refused("unauthorized", "the host removed you"), None)
                else:
                    self._out(conn, encode({"type": "left", "code": self.code}))
                self._later(functools.partial(self._closed, conn))

    def _closed(self, conn: Peer) -> None:
        conn.close(CloseCode.REMOVED)
        self.conns.discard(conn)
        self.probes.forget(conn)

    def start(self) -> None:
        self._run(self._start)
        log.info(
            "room %s: game %d started with %d players",
            self.code,
            self.lobby.game_no,
            len(self.lobby.seats),
        )

    def _start(self, txn: Txn) -> None:
        low, _high = self.spec.seats
        seats = self.lobby.start(low)
        names = [self.lobby.members[m].name for m in seats]
        match, head = self.spec.new_match(
            names, dict(self.lobby.options), self.lobby.game_no, self._seeds(seats)
        )
        self.match = match
        self.game_log = [head]
        txn.entries.append(head)
        self.floors = [0] * len(seats)
        self.bots.clear()
        for seat, member_id in enumerate(seats):
            level = self.lobby.members[member_id].bot
            if level is not None:
                self._seat_bot(seat, level, with_view=False)
        txn.lobby = True
        txn.then(self._reseat)
        self._deal(txn)
        txn.then(self.send_states)  # a state reflects every message of its version or before

    def _seeds(self, seats: list[int]) -> Seeds:
        """The seeds fixed at the start: the committed server seed and the seated members'
        client seeds in seat order (all empty with the ``fixed_seed`` test setting)."""
        if self.lobby.server_seed is None:  # pragma: no cover - every lobby draws one
            raise Refused("internal", "this lobby has no server seed")
        fixed = self.settings.fixed_seed is not None
        client = ("",) * len(seats) if fixed else self.lobby.seeds_of(seats)
        return Seeds(bytes.fromhex(self.lobby.server_seed), client)

    def _seat_bot(self, seat: int, level: str, with_view: bool) -> None:
        assert self.match is not None
        view = self.match.view(seat) if with_view else None
        bot = self.spec.make_bot(
            level, seat, list(self.match.players), dict(self.lobby.options), view, self.bots.seed()
        )
        self.bots.seat(seat, bot)

    def _deal(self, txn: Txn) -> None:
        assert self.match is not None
        self.lobby.phase = Phase.PLAYING
        self.game_clock.set(self.clock.now(), 0.0)
        self.game_clock.paused_at = None if self.seated_connected() else 0.0
        txn.lobby = True
        txn.room()
        self._apply(txn, self.match.start_round())
        txn.stale = None

    def go_on(self, conn: Peer) -> None:
        if self.lobby.phase != Phase.BETWEEN:
            raise Refused("bad_phase", "there is no reveal to go on from")
        if conn.seat is None:
            raise Refused("forbidden", "only a seated player can go on")
        seat = conn.seat

        def step(txn: Txn) -> None:
            self.continued.add(seat)
            self._check_between(txn)

        self._run(step)

    def _check_between(self, txn: Txn) -> None:
        if self.lobby.phase != Phase.BETWEEN:
            return
        if self.waiting():
            txn.room()
        else:
            self._deal(txn)

    def rematch(self) -> None:
        def step(txn: Txn) -> None:
            self.bots.clear()
            self.lobby.back_to_lobby(draw_server_seed(self.settings.fixed_seed))
            self.match = None
            self.game_log = []
            self.floors = []
            txn.lobby = True
            txn.then(self._reseat)
            txn.room()
            txn.then(self.send_states)

        self._run(step)

    # -- absent seats and stand-ins -----------------------------------------------------------

    def grace(self, seat: int, seconds: float | None) -> None:
        match = self._game_in_progress()
        absence = match.absence
        refusal = "this game has no grace for absent seats" if absence is None else None
        refusal = refusal or (absence.grace_refusal() if absence is not None else None)
        if refusal is not None:
            raise Refused("bad_phase", refusal)
        self._disconnected_seat(seat)
        length = seconds if seconds is not None else self.settings.grace_s
        self._run(lambda txn: self._set_absent(txn, seat, round(self.game_now() + length, 3)))

    def _set_absent(self, txn: Txn, seat: int, until: float | None) -> None:
        assert self.match is not None and self.match.absence is not None
        self._advance(txn)
        if self.lobby.phase not in IN_GAME:
            return
        try:
            change = self.match.absence.set_absent(seat, until, self.game_now())
        except ValueError as err:
            raise Refused("bad_phase", str(err)) from err
        txn.lobby = True  # the seat's absence shows in the room message
        txn.room()
        self._apply(txn, change)

    def stand_in(self, seat: int, level: str) -> None:
        """Host, mid-game: a bot plays a disconnected player's seat until they come back."""
        self._game_in_progress()
        self._check_level(level)
        if seat < len(self.lobby.seats) and self.lobby.is_bot_seat(seat):
            raise Refused("bad_phase", f"a bot plays seat {seat} already")
        self._disconnected_seat(seat)

        def step(txn: Txn) -> None:
            assert self.match is not None
            self.lobby.stand_ins[seat] = level
            self._seat_bot(seat, level, with_view=True)
            absence = self.match.absence
            if absence is not None and absence.is_absent(seat):
                self._set_absent(txn, seat, None)  # the bot plays: no more timeouts
            txn.lobby = True
            txn.room()

        self._run(step)

    def _game_in_progress(self) -> Match:
        if self.lobby.phase not in IN_GAME or self.match is None:
            raise Refused("bad_phase", "there is no game in progress")
        return self.match

    def _disconnected_seat(self, seat: int) -> None:
        if seat >= len(self.lobby.seats):
            raise Refused("not_found", f"there is no seat {seat}")
        if self.connected(self.lobby.seats[seat]):
            raise Refused("bad_phase", f"seat {seat} is connected")

    # -- loading ------------------------------------------------------------------------------

    def _commit_on_load(self) -> None:
        """A lobby stored before the commit–reveal shuffle: draw its server seed, stored at once
        (its commitment must not change at the next restart)."""

        def step(txn: Txn) -> None:
            self.lobby.server_seed = draw_server_seed(self.settings.fixed_seed)
            txn.lobby = True

        self._run(step)

    def load(self, state: dict[str, Any], updated: float, entries: list[LogEntry]) -> None:
        """Come back as stored: the lobby, the last finished game's record, the current game
        (its clock stopped until a seat is back), and its bots from their seats' views."""
        self.version = int(state["version"])
        self.updated = updated
        self.log_seq = len(entries)
        games: list[list[LogEntry]] = []
        for entry in entries:
            if entry.get("e") == "game":
                games.append([])
            if games:
                games[-1].append(entry)
        if self.lobby.server_seed is None and self.lobby.phase == Phase.LOBBY:
            self._commit_on_load()
        for group in reversed(games):
            match = self.spec.from_log(group)
            if match.status() == MatchStatus.OVER:
                self.last_record = match.record()
                break
        if not games or self.lobby.phase == Phase.LOBBY:
            return
        self.game_log = games[-1]
        self.match = match = self.spec.from_log(self.game_log)
        self.floors = [self.version] * len(self.lobby.seats)
        last = match.last_time()
        self.game_clock.set(self.clock.now(), last)
        for seat, member_id in enumerate(self.lobby.seats):
            level = self.lobby.members[member_id].bot or self.lobby.stand_ins.get(seat)
            if level is not None:
                self._seat_bot(seat, level, with_view=match.started())
        if self.lobby.phase == Phase.PLAYING:
            self.game_clock.paused_at = last  # until a seat is back
        elif self.lobby.phase == Phase.BETWEEN:
            self.between_until = self.clock.now() + self._real(self.settings.between_rounds_s)
        self._plan()
