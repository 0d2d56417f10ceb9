"""A room's change as it is made, written and undone: the transaction a step fills
(``Txn``), what a failed write puts back (``Snapshot``), the room's part of group commit's batch
(numbered at once, its sends queued until the commit, ``batch.py``), and what a failed commit
undoes and tells again. ``Room`` (``room.py``) keeps the flow: validate → apply → write → send."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crisp.server.clock import Clock, GameClock
from crisp.server.observe.metrics import Metrics
from crisp.server.rooms.batch import GroupCommit, Pending, Queued
from crisp.server.rooms.lobby import IN_GAME, Lobby
from crisp.server.rooms.peer import Peer
from crisp.server.rooms.seatbots import SeatBots
from crisp.server.seam import GameSpec, LogEntry, Match, Outgoing
from crisp.server.settings import Settings
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.encoder import dumps as encode
from crisp.server.wire.errors import Refused

log = logging.getLogger("crisp.server")

UNAVAILABLE = "the server cannot save right now; nothing was changed"
MOVED = "this room is served by another server now: reconnect"

Send = tuple[str, Any]  # ("outs", [Outgoing]) | ("room", None) | ("do", callable(version))


@dataclass
class Txn:
    """One change being made: what to store, and what to send once it is stored."""

    entries: list[LogEntry] = field(default_factory=list)
    lobby: bool = False  # the lobby's state changed (stored with the entries)
    sends: list[Send] = field(default_factory=list)
    stale: set[int] | None = field(default_factory=set)  # None: every seat
    touched: bool = False  # the match that was current at the start was changed

    def __bool__(self) -> bool:
        return bool(self.entries) or self.lobby

    def room(self) -> None:
        self.sends.append(("room", None))

    def then(self, do: Callable[[int], None]) -> None:
        self.sends.append(("do", do))


@dataclass
class Snapshot:
    """What a failed write puts back: the room as it was before its change."""

    lobby: dict[str, Any]
    match: Match | None
    game_log: list[LogEntry]
    game_log_len: int
    clock: tuple[float, float | None]
    floors: list[int]
    continued: set[int]
    between_until: float
    last_record: dict[str, Any] | None
    bots: Any
    version: int
    log_seq: int
    updated: float


class Committing:
    """The write, the undo and the sends of a room (the base of ``Room``, which sets every
    attribute below in its ``__init__``)."""

    code: str
    lobby: Lobby
    spec: GameSpec
    clock: Clock
    settings: Settings
    version: int
    log_seq: int
    updated: float
    match: Match | None
    game_log: list[LogEntry]
    game_clock: GameClock
    floors: list[int]
    continued: set[int]
    between_until: float
    last_record: dict[str, Any] | None
    bots: SeatBots
    conns: set[Peer]
    metrics: Metrics | None
    batch: GroupCommit
    on_lost: Callable[[Any], None] | None
    retry_at: float
    _stored_lobby: dict[str, Any] | None
    _pending: Pending | None

    if TYPE_CHECKING:  # the room's own, which what a failed commit tells again calls

        def send_room(self, only: Peer | None = None) -> None: ...
        def send_state(self, conn: Peer) -> None: ...
        def error(self, conn: Peer, err: Refused, about: str | None) -> None: ...
        def stop_timers(self) -> None: ...
        def _welcome(self, conn: Peer) -> None: ...
        def _reseat(self, _v: int = 0) -> None: ...
        def _plan(self) -> None: ...
        def _seat_bot(self, seat: int, level: str, with_view: bool) -> None: ...
        def _probe_along(self, conns: list[Peer]) -> None: ...

    def _stored(self, txn: Txn) -> None:
        """A change is stored (or queued in the open batch): stale floors moved, counted."""
        self._mark_stale(txn)
        if self.metrics is not None:
            self.metrics.applied(self.lobby.game_type)

    def _apply_step(self, step: Callable[[Txn], None]) -> tuple[Snapshot, Txn, Refused | None]:
        """validate → apply, into a new transaction: what a failure puts back, the transaction,
        and the refusal of a step that changed only part (anything else puts all back)."""
        before = self._snapshot()
        txn = Txn()
        try:
            step(txn)
        except Refused as err:
            return before, txn, err
        except BaseException:
            self._restore(before, txn.touched)
            raise
        return before, txn, None

    def _enqueue(self, pending: Pending, txn: Txn) -> None:
        """The change's row, merged into the room's part of the batch; numbered at once."""
        version = self.version + 1
        updated = self.clock.wall()
        pending.entries += [(self.log_seq + i, entry) for i, entry in enumerate(txn.entries)]
        if txn.lobby:
            pending.state = self._stored_lobby = self.lobby.to_state()
        pending.updated, pending.version = updated, version
        pending.changes += 1
        pending.touched = pending.touched or txn.touched
        self.version, self.updated = version, updated
        self.log_seq += len(txn.entries)

    def settled(self) -> asyncio.Future[None] | None:
        """The commit of this room's pending changes (raises ``Refused`` if it failed), or None
        if nothing is pending."""
        pending = self._pending
        if pending is None:
            return None
        if pending.future is None:
            pending.future = self.batch.future()
        return pending.future

    def if_undone(self, tell: Callable[[Exception], None]) -> None:
        """``tell(refusal)`` if the commit of the pending changes fails (nothing if none is
        pending, or once it is stored)."""
        if self._pending is not None:
            self._pending.undo_told.append(tell)

    def _out(self, conn: Peer, text: str) -> None:
        """Send now, or after the commit of the pending changes (nothing goes out before)."""
        if self._pending is None:
            conn.send(text)
        else:
            self._pending.sends.append((conn, text))

    def refuse_and_close(
        self, conn: Peer, err: Refused, about: str | None, code: CloseCode
    ) -> None:
        """Tell ``conn`` why, then close it: after what is queued for it, and even if the
        batch it waits behind fails (then said again, at the restored version)."""

        def do() -> None:
            self.error(conn, err, about)
            conn.close(code)

        if self._pending is None:
            do()
        else:
            self._pending.sends.append(do)
            self._pending.always.append(do)

    def _later(self, do: Callable[[], None]) -> None:
        if self._pending is None:
            do()
        else:
            self._pending.sends.append(do)

    def committed(self, pending: Pending) -> None:
        """The batch is stored: what the room queued goes out, in order."""
        if self._pending is pending:
            self._pending = None
        queued: list[Queued] = pending.sends
        for item in queued:
            if isinstance(item, tuple):
                item[0].send(item[1])
            else:
                item()

    def undone(self, pending: Pending, lost: bool, err: BaseException) -> Exception:
        """The batch failed: the room back to its state before its first change of the batch;
        nothing it queued is sent (nor what the records merged into it queued). The refusal for
        its senders."""
        if self._pending is pending or any(self._pending is p for p in pending.merged):
            self._pending = None
        self._restore(pending.before, pending.touched)
        self._stored_lobby = pending.before.lobby
        self._reseat()
        if pending.observed:
            self._rebuild_bots()
        if lost:
            log.warning("room %s: another node owns it now; the change was dropped", self.code)
            self.stop_timers()
            if self.on_lost is not None:
                self.on_lost(self)
            return Refused("unavailable", MOVED)
        # What was queued is dropped; what was not a change is told again, as restored: the
        # welcome and state of a connection that said hello (or asked) in the batch, and the
        # room (presence) to everyone.
        for conn in pending.hellos:
            if not conn.closed:
                conn.seat = self.lobby.seat_of(conn.member)
                self._welcome(conn)
        if pending.presence:
            self.send_room()
        else:
            for conn in pending.hellos:  # a watcher's room message is its own
                self.send_room(only=conn)
        for conn in dict.fromkeys([*pending.hellos, *pending.states]):
            if conn.greeted and not conn.closed and conn in self.conns:
                self.send_state(conn)
        for do in pending.always:
            do()
        self._retry_later()
        self._plan()
        return Refused("unavailable", UNAVAILABLE)

    def _retry_later(self) -> None:
        """A write failed: what is due waits ``store_retry_s`` before it is tried again (an
        outage is not retried in a busy loop, nor logged a line a try)."""
        self.retry_at = self.clock.now() + self.settings.store_retry_s

    def _rebuild_bots(self) -> None:
        """The bots saw messages that were undone: each is made again from its seat's view."""
        match = self.match
        if match is None or self.lobby.phase not in IN_GAME:
            return
        for seat, member_id in enumerate(self.lobby.seats):
            member = self.lobby.members.get(member_id)
            level = (member.bot if member else None) or self.lobby.stand_ins.get(seat)
            if level is not None:
                self._seat_bot(seat, level, with_view=match.started())

    def _snapshot(self) -> Snapshot:
        """What a failed write puts back. The lobby's is its last stored state (every change of
        the lobby is stored with its state), so a move pays nothing to snapshot it."""
        if self._stored_lobby is None:
            self._stored_lobby = self.lobby.to_state()
        return Snapshot(
            self._stored_lobby,
            self.match,
            self.game_log,
            len(self.game_log),
            self.game_clock.snapshot(),
            list(self.floors),
            set(self.continued),
            self.between_until,
            self.last_record,
            self.bots.snapshot(),
            self.version,
            self.log_seq,
            self.updated,
        )

    def _restore(self, s: Snapshot, touched: bool) -> None:
        self.lobby = Lobby.from_state(s.lobby, self.lobby.max_seats, self.lobby.game_type)
        self.game_log = s.game_log
        del self.game_log[s.game_log_len :]
        self.match = s.match
        if touched and s.match is not None:
            self.match = self.spec.from_log(self.game_log)
        self.game_clock.restore(s.clock)
        self.floors, self.continued = s.floors, s.continued
        self.between_until, self.last_record = s.between_until, s.last_record
        self.bots.restore(s.bots)
        self.version, self.log_seq, self.updated = s.version, s.log_seq, s.updated

    def _mark_stale(self, txn: Txn) -> None:
        v = self.version
        if txn.stale is None:
            self.floors = [v] * len(self.floors)
        else:
            for seat in txn.stale:
                self.floors[seat] = v

    def _send(self, txn: Txn) -> None:
        """What a change sends, in order, at the version it was stored at (a change that stored
        nothing, such as a seat done with the reveal, sends at the current version)."""
        v = self.version
        last_room = max((i for i, (kind, _) in enumerate(txn.sends) if kind == "room"), default=-1)
        for i, (kind, item) in enumerate(txn.sends):
            if kind == "outs":
                self._broadcast(item, v)
            elif kind == "room" and i == last_room:
                self.send_room()
            elif kind == "do":
                item(v)

    def _broadcast(self, outs: list[Outgoing], v: int) -> None:
        """The game's messages, each encoded once, to every connection entitled to it."""
        conns = [c for c in self.conns if c.greeted]
        self._probe_along(conns)  # a probe that is due rides in the same frame, first
        queue = self._pending.sends if self._pending is not None else None
        for out in outs:
            text = encode({**out.msg, "v": v})
            to = _recipients(out, conns)
            if queue is None:
                for conn in to:
                    conn.send(text)
            else:
                queue += [(conn, text) for conn in to]
        self.bots.observe(outs)
        if self._pending is not None and outs:
            self._pending.observed = True


def _recipients(out: Outgoing, conns: list[Peer]) -> list[Peer]:
    """The connections ``out`` goes to: by its ``to`` as the seam defines it (everyone, or one
    seat: most messages), else as the game's ``for_seat`` answers for each."""
    to = out.to
    if to is None:
        return conns
    if to >= 0:
        return [conn for conn in conns if conn.seat == to]
    return [conn for conn in conns if out.for_seat(conn.seat)]
