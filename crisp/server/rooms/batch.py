"""Group commit: one store transaction per event-loop turn for every room that changed
in that turn, each room's messages sent only after that commit.

A room's pipeline (``Room._run``) validates and applies a change at once, as before, but instead
of writing it, it hands it to the hub's ``GroupCommit``: the room's first change of a batch takes
its snapshot (what a failure puts back) and opens the room's ``Pending`` record; every change of
the batch adds its log entries, its lobby state and its version to it, and everything the room
would send while it is pending (the change's messages, errors, states, closes) is queued on it.
The batch is flushed by ``loop.call_soon``: every pending room is written in ONE transaction
(``Store.write_many``), then each room's queue is sent, in order. The contract of the single
write stays: nothing goes out before it is stored, and a failed commit undoes every room of the
batch (each back to its state before its first change of the batch) and tells the senders the
same typed refusal as before: ``unavailable``, or ``moved`` for a room another node claimed
(``LeaseLost``; the rest of the batch is then written again without it, in a new transaction).

A store that writes off the loop (PostgreSQL's writer thread: ``writes_off_loop`` and
``write_many_off_loop``) keeps one batch in flight while the loop goes on. Its rooms' records are
sealed: a room that changes meanwhile opens a record in the next batch, flushed when the one in
flight has landed (so a room's batches commit in order). If the batch in flight fails, a room's
record in the next batch is undone with it (merged: the room goes back to its state before the
first of them, and every sender of either is refused).

Whoever needs the outcome (an HTTP route that creates or joins) awaits ``Room.settled()``: a
future resolved by the flush (a ``Refused`` on failure). The sender of a message handled at once
needs only a failure: ``Room.if_undone`` tells it the refusal, and a commit that lands costs it
nothing (no future, no callback).
Without a running event loop (loading at start-up, a command-line tool) or with group commit off
(``CRISP_GROUP_COMMIT=0``) there is no turn to wait for: the room's change is written at once,
in a batch of its own (``write_now``), by the same code, and a failure raises its refusal.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from crisp.server.observe.metrics import Metrics
from crisp.server.rooms.peer import Peer
from crisp.server.store.leases import LeaseLost
from crisp.server.store.outage import StoreUnavailable
from crisp.server.store.sqlite import Row, Storage

log = logging.getLogger("crisp.server")

#: What a pending room sends after its commit: a message for a connection, or an action (a close).
Queued = tuple[Peer, str] | Callable[[], None]
#: A store's ``write_many_off_loop`` (PostgreSQL's writer thread).
WriteOffLoop = Callable[[Sequence[Row]], Awaitable[None]]


class Batched(Protocol):
    """What the batcher needs of a room (``Room``)."""

    code: str

    def committed(self, pending: Pending) -> None:
        """Its batch is stored: send what it queued."""

    def undone(self, pending: Pending, lost: bool, err: BaseException) -> Exception:
        """Its batch failed: back to ``pending.before``; the refusal for its senders."""


@dataclass(eq=False)
class Pending:
    """One room's changes in the open batch, merged into one row of the transaction."""

    room: Batched
    before: Any  # the room's snapshot before its first change of the batch
    state: dict[str, Any] | None = None  # the latest lobby state of the batch, if any changed
    entries: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    updated: float = 0.0
    version: int = 0
    changes: int = 0
    touched: bool = False  # the match that was current before the batch was changed
    observed: bool = False  # the room's bots saw messages of the batch
    sends: list[Queued] = field(default_factory=list)
    # connections whose welcome or state is queued: told again (as restored) if the batch fails
    hellos: list[Peer] = field(default_factory=list)
    states: list[Peer] = field(default_factory=list)
    always: list[Callable[[], None]] = field(default_factory=list)  # done even if it fails
    presence: bool = False  # who is connected changed in the batch (a hello, a socket gone)
    future: asyncio.Future[None] | None = None
    undo_told: list[Callable[[Exception], None]] = field(default_factory=list)  # if it fails
    sealed: bool = False  # its row is being written: a new change of the room opens a new one
    merged: list[Pending] = field(default_factory=list)  # the next batch's records, undone too
    refusal: Exception | None = None  # its senders' refusal, once its commit failed
    error: BaseException | None = None  # why the commit failed

    def row(self) -> Row:
        return (self.room.code, self.state, self.entries, self.updated, self.version)

    def merge(self, later: Pending) -> None:
        """Take in the room's record of the next batch, to undo both as one (``undone``)."""
        self.merged.append(later)
        self.touched = self.touched or later.touched
        self.observed = self.observed or later.observed
        self.presence = self.presence or later.presence
        self.hellos += later.hellos
        self.states += later.states
        self.always += later.always
        self.undo_told += later.undo_told

    def futures(self) -> list[asyncio.Future[None]]:
        """Whoever waits for this record (and the ones merged into it)."""
        waits = [p.future for p in (self, *self.merged)]
        return [f for f in waits if f is not None and not f.done()]


def write_many(store: Storage, rows: Sequence[Row]) -> None:
    """Every row in one transaction (``write_many``); a store without it (a test's double) is
    written row by row."""
    many: Callable[[Sequence[Row]], None] | None = getattr(store, "write_many", None)
    if many is not None:
        many(rows)
        return
    for code, state, entries, updated, version in rows:
        store.write(code, state, entries, updated, version)


class GroupCommit:
    """The open batch of one hub: the rooms changed in this loop turn, flushed at its end."""

    def __init__(self, store: Storage, defer: bool = True) -> None:
        self.store = store
        self.defer = defer  # False: every change written at once, in a batch of its own
        self.metrics: Metrics | None = None
        self.open: list[Pending] = []
        self._scheduled = False
        self.writing: asyncio.Task[None] | None = None  # the batch in flight, off the loop
        # the loop it runs in, kept (``get_running_loop`` makes a system call on Python 3.11)
        self._loop: asyncio.AbstractEventLoop | None = None
        # counted for ``docs/performance.md`` (transactions per action)
        self.transactions = 0
        self.rooms_written = 0
        self.changes_written = 0

    def deferring(self) -> bool:
        """Whether a change can wait for the end of the turn (group commit is on and an event
        loop is running); if not, the room has its batch written at once (``write_now``)."""
        if not self.defer:
            return False
        loop = self._loop
        if loop is not None and loop.is_running():
            return True
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    def future(self) -> asyncio.Future[None]:
        assert self._loop is not None
        return self._loop.create_future()

    def begin(self, room: Batched, before: Any, deferred: bool) -> Pending:
        """Open ``room``'s record in this batch (its first change); the flush is scheduled at
        the end of the turn if ``deferred``, else the room calls ``write_now``."""
        pending = Pending(room, before)
        self.open.append(pending)
        if deferred and not self._scheduled:
            self._scheduled = True
            assert self._loop is not None  # begin() follows deferring()
            self._loop.call_soon(self.flush)
        return pending

    def flush(self) -> None:
        """Write every pending room in one transaction, then send; or undo them all. With a
        store that writes off the loop, the write is started (unless one is in flight: this
        batch then waits for it)."""
        self._scheduled = False
        if self.writing is not None or not self.open:
            return
        batch, self.open = self.open, []
        for p in batch:
            p.sealed = True
        off_loop = self._off_loop()
        if off_loop is not None and self.deferring():
            assert self._loop is not None
            self.writing = self._loop.create_task(self._write_off_loop(off_loop, batch))
            return
        self._write_here(batch)

    def write_now(self) -> None:
        """Write the open batch in this call (no event loop runs, or group commit is off): the
        rooms' sends go out, or each is undone and its record's ``refusal`` set."""
        batch, self.open = self.open, []
        for p in batch:
            p.sealed = True
        self._write_here(batch)

    def _write_here(self, batch: list[Pending]) -> None:
        """Write ``batch`` on this thread, in one transaction (again without a lost room)."""
        while batch:
            start = time.perf_counter()
            self.transactions += 1
            err: Exception | None = None
            try:
                write_many(self.store, [p.row() for p in batch])
            except Exception as failed:
                err = failed
            batch = self._landed(batch, start, err)

    def _off_loop(self) -> WriteOffLoop | None:
        """The store's write off the loop, if it has one and it is on."""
        if not getattr(self.store, "writes_off_loop", False):
            return None
        write: WriteOffLoop = self.store.write_many_off_loop  # type: ignore[attr-defined]
        return write

    async def _write_off_loop(self, write: WriteOffLoop, batch: list[Pending]) -> None:
        try:
            while batch:
                start = time.perf_counter()
                self.transactions += 1
                err: Exception | None = None
                try:
                    await write([p.row() for p in batch])
                except Exception as failed:
                    err = failed
                batch = self._landed(batch, start, err)
        finally:
            self.writing = None
            if self.open and not self._scheduled:  # what changed meanwhile: the next batch
                self._scheduled = True
                assert self._loop is not None
                self._loop.call_soon(self.flush)

    async def drain(self) -> None:
        """Until nothing is pending or in flight (before the store closes)."""
        while self.open or self.writing is not None:
            if self.writing is None:
                self.flush()
            if self.writing is not None:
                await asyncio.shield(self.writing)

    def _landed(self, batch: list[Pending], start: float, err: Exception | None) -> list[Pending]:
        """A write of ``batch`` ended (``err`` None: committed). What is to be written again: the
        batch without a room another node claimed (the transaction wrote nothing); else none."""
        if err is None:
            self._committed(batch, time.perf_counter() - start)
            return []
        if not isinstance(err, LeaseLost):
            self._fail(batch, err, lost=False)
            return []
        code = str(err.args[0]) if err.args else None
        lost = [p for p in batch if p.room.code == code]
        if not lost:  # not a room of the batch: undo them all
            self._fail(batch, err, lost=True)
            return []
        self._fail(lost, err, lost=True)
        return [p for p in batch if p.room.code != code]

    def _committed(self, batch: list[Pending], seconds: float) -> None:
        if self.metrics is not None:
            self.metrics.wrote(seconds)
        self.rooms_written += len(batch)
        self.changes_written += sum(p.changes for p in batch)
        for p in batch:
            p.room.committed(p)
            if p.future is not None and not p.future.done():
                p.future.set_result(None)

    def _fail(self, batch: list[Pending], err: BaseException, lost: bool) -> None:
        if not lost and not isinstance(err, StoreUnavailable):  # an outage is logged by the store
            codes = ", ".join(p.room.code for p in batch)
            log.error("a write failed; the changes of rooms %s were undone", codes, exc_info=err)
        self._merge_later(batch)
        if isinstance(err, StoreUnavailable):  # counted in the outage's closing line
            err.refused(sum(p.changes + sum(m.changes for m in p.merged) for p in batch))
        for p in batch:
            refusal = p.refusal = p.room.undone(p, lost, err)
            p.error = err
            for future in p.futures():
                future.set_exception(refusal)
            for tell in p.undo_told:
                tell(refusal)

    def _merge_later(self, batch: list[Pending]) -> None:
        """The failed rooms' records in the next batch (changed while this one was in flight)
        leave it: each is undone with its room's failed record."""
        failed = {id(p.room): p for p in batch}
        later = [p for p in self.open if id(p.room) in failed]
        if later:
            self.open = [p for p in self.open if id(p.room) not in failed]
            for p in later:
                failed[id(p.room)].merge(p)
