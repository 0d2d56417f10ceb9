"""Group commit (issue 22): one store transaction per event-loop turn for every room that changed
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

Whoever needs the outcome (an HTTP route that creates or joins, the hub for the sender of a
message) awaits ``Room.settled()``: a future resolved by the flush (a ``Refused`` on failure).
Without a running event loop (loading at start-up) there is no turn to wait for: the change is
written at once, in a batch of its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
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


class Batched(Protocol):
    """What the batcher needs of a room (``Room``)."""

    code: str

    def committed(self, pending: Pending) -> None:
        """Its batch is stored: send what it queued."""

    def undone(self, pending: Pending, lost: bool, err: BaseException) -> Exception:
        """Its batch failed: back to ``pending.before``; the refusal for its senders."""


@dataclass
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

    def row(self) -> Row:
        return (self.room.code, self.state, self.entries, self.updated, self.version)


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

    def __init__(self, store: Storage) -> None:
        self.store = store
        self.metrics: Metrics | None = None
        self.open: list[Pending] = []
        self._scheduled = False
        # the loop it runs in, kept (``get_running_loop`` makes a system call on Python 3.11)
        self._loop: asyncio.AbstractEventLoop | None = None
        # counted for ``docs/performance.md`` (transactions per action)
        self.transactions = 0
        self.rooms_written = 0
        self.changes_written = 0

    def deferring(self) -> bool:
        """Whether a change can wait for the end of the turn (an event loop is running)."""
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

    def begin(self, room: Batched, before: Any) -> Pending:
        """Open ``room``'s record in this batch (its first change); the flush is scheduled."""
        pending = Pending(room, before)
        self.open.append(pending)
        if not self._scheduled:
            self._scheduled = True
            assert self._loop is not None  # begin() follows deferring()
            self._loop.call_soon(self.flush)
        return pending

    def flush(self) -> None:
        """Write every pending room in one transaction, then send; or undo them all."""
        self._scheduled = False
        batch, self.open = self.open, []
        while batch:
            start = time.perf_counter()
            try:
                self.transactions += 1
                write_many(self.store, [p.row() for p in batch])
            except LeaseLost as err:
                # The transaction wrote nothing: the lost room is dropped, the rest written again.
                code = str(err.args[0]) if err.args else None
                lost = [p for p in batch if p.room.code == code]
                if not lost:  # not a room of the batch: undo them all
                    self._fail(batch, err, lost=True)
                    return
                self._fail(lost, err, lost=True)
                batch = [p for p in batch if p.room.code != code]
                continue
            except Exception as err:
                self._fail(batch, err, lost=False)
                return
            if self.metrics is not None:
                self.metrics.wrote(time.perf_counter() - start)
            self.rooms_written += len(batch)
            self.changes_written += sum(p.changes for p in batch)
            for p in batch:
                p.room.committed(p)
                if p.future is not None and not p.future.done():
                    p.future.set_result(None)
            return

    def _fail(self, batch: list[Pending], err: BaseException, lost: bool) -> None:
        if not lost and not isinstance(err, StoreUnavailable):  # an outage is logged by the store
            codes = ", ".join(p.room.code for p in batch)
            log.error("a write failed; the changes of rooms %s were undone", codes, exc_info=err)
        for p in batch:
            refusal = p.room.undone(p, lost, err)
            if p.future is not None and not p.future.done():
                p.future.set_exception(refusal)
