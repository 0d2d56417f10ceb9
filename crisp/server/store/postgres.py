"""Persistence in PostgreSQL (``CRISP_DATABASE_URL=postgresql://…``), for many server processes
sharing one database: the same contract as the SQLite ``Store`` (a change is committed before its
messages are sent), plus ownership with fencing (``leases.py``).

psycopg 3, synchronous. With group commit (``rooms/batch.py``) a loop turn's rooms are one
``write_many``: one statement alone, or, in a pipeline, ``BEGIN`` and one fenced statement a room
in one round trip, then ``COMMIT``. That batch's round trips run in a writer thread of its own, on
its own connection (``write_many_off_loop``, setting ``pg_writer_thread``): while a commit is in
flight the event loop goes on (other rooms apply their changes, which wait for the next batch;
timers, probes and HTTP are served). The statements are built, and the epochs kept, on the loop;
the thread only sends them. Everything else (claims, renewals, reads, a lone write) runs on the
loop's connection; of those, the ones that change rooms' rows wait for the batch in flight
(``_rows_locked``), so the node's two connections never deadlock on each other's row locks.
Lease times are the database's clock, so the nodes' clocks need not agree.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg

from crisp.server.store.leases import LeaseLost, Renewal, RoomBusy
from crisp.server.store.migrations import migrate_postgres
from crisp.server.store.outage import Outage, StoreUnavailable
from crisp.server.store.sqlite import Entries, Row, State, StoredRoom
from crisp.server.wire.encoder import dumps as wire_dumps

log = logging.getLogger("crisp.server")

# A write is one statement (one round trip, its own transaction): the room's row, fenced by the
# epoch (a new room: an insert that fails on a taken code), then its new log entries, inserted only
# if the row was written. The counts say which.
_ENTRIES = """
, entries AS (
    INSERT INTO crisp_log (code, seq, epoch, entry)
    SELECT room.code, e.seq, %(epoch)s, e.entry
    FROM room, unnest(%(seqs)s::bigint[], %(entries)s::text[]) AS e(seq, entry)
    RETURNING 1
)
SELECT (SELECT count(*) FROM room)
"""
CREATE = (
    """
WITH room AS (
    INSERT INTO crisp_rooms (code, state, version, updated, owner, epoch, lease_until)
    VALUES (%(code)s, %(state)s, %(version)s, %(updated)s, %(node)s, 1,
            now() + make_interval(secs => %(lease)s))
    ON CONFLICT (code) DO NOTHING
    RETURNING code
)"""
    + _ENTRIES
)
UPDATE = (
    """
WITH room AS (
    UPDATE crisp_rooms SET state = %(state)s, updated = %(updated)s, version = %(version)s
    WHERE code = %(code)s AND owner = %(node)s AND epoch = %(epoch)s
    RETURNING code
)"""
    + _ENTRIES
)
TOUCH = (
    """
WITH room AS (
    UPDATE crisp_rooms SET updated = %(updated)s, version = %(version)s
    WHERE code = %(code)s AND owner = %(node)s AND epoch = %(epoch)s
    RETURNING code
)"""
    + _ENTRIES
)
CLAIM = """
UPDATE crisp_rooms SET owner = %(node)s, epoch = epoch + 1, wanted = NULL,
    lease_until = now() + make_interval(secs => %(lease)s)
WHERE code = %(code)s AND (owner = %(node)s OR owner IS NULL OR lease_until < now())
RETURNING epoch, state, version, updated
"""
RENEW = """
UPDATE crisp_rooms AS r SET lease_until = now() + make_interval(secs => %(lease)s)
FROM unnest(%(codes)s::text[], %(epochs)s::bigint[]) AS h(code, epoch)
WHERE r.code = h.code AND r.epoch = h.epoch AND r.owner = %(node)s
RETURNING r.code, r.wanted
"""


#: A room's fenced statement, built on the loop: (code, epoch, sql, args).
Statement = tuple[str, int, str, dict[str, Any]]


def _dumps(value: Any) -> str:
    return wire_dumps(value)  # the one reusable encoder of the wire and the store


class PgStore:
    """Rooms and their logs in PostgreSQL; ``node`` names this process in the lease rows."""

    def __init__(
        self, url: str, node: str, lease_s: float = 4.0, *, writer_thread: bool = True
    ) -> None:
        self.url = url
        self.node = node
        self.lease_s = lease_s
        self.epochs: dict[str, int] = {}  # the rooms owned here, and the epoch each was claimed at
        self.outage = Outage("database")
        # group commit's batches: sent by one thread (started at its first batch) on its own
        # connection; None: on the loop, like every other statement
        self._writer = (
            ThreadPoolExecutor(1, thread_name_prefix="crisp-pg-writer") if writer_thread else None
        )
        self._writer_db: psycopg.Connection[Any] | None = None  # the writer thread's only
        # Held by every statement that changes rooms' rows, on either connection: two of this
        # node's transactions never hold row locks at once (a renewal of every held room beside a
        # batch of some of them would deadlock, and PostgreSQL would end one after a second).
        # Reads take no row locks and need not wait.
        self._rows_locked = threading.Lock()
        self.db = self._connect()
        try:
            self.schema_found = migrate_postgres(self.db)
        except BaseException:
            self.db.close()
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        return psycopg.connect(
            self.url, autocommit=True, connect_timeout=5, options="-c statement_timeout=5000"
        )

    def _conn(self) -> psycopg.Connection[Any]:
        """The connection, opened again if it broke (the failed call raised; this one retries)."""
        if self.db.closed or self.db.broken:
            log.debug("reconnecting to the database")
            self.db = self._connect()
        return self.db

    @contextlib.contextmanager
    def _reach(self) -> Iterator[None]:
        """Around every use of the database: a lost or refused connection (or a statement over
        its timeout) raises ``StoreUnavailable`` and is logged once an outage (``Outage``)."""
        try:
            yield
        except psycopg.OperationalError as err:
            self.outage.failed(err)
            raise StoreUnavailable(str(err).strip(), self.outage) from err
        self.outage.ok()

    def ping(self) -> None:
        """``StoreUnavailable`` unless the database answers now (``GET /readyz``)."""
        with self._reach():
            self._conn().execute("SELECT 1")

    def close(self) -> None:
        """Close the connections (after the batch in flight); the leases held run out by
        themselves (``release`` first for a handover at once)."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
        if self._writer_db is not None:
            self._writer_db.close()
        self.db.close()

    # -- Storage ---------------------------------------------------------------------------------

    def write(
        self, code: str, state: State | None, entries: Entries, updated: float, version: int
    ) -> None:
        """In one transaction, fenced by the epoch this node claimed the room at: the version,
        the state (if given) and the new log entries; ``LeaseLost`` if the room was claimed by
        another node since (nothing is written)."""
        self.write_many([(code, state, entries, updated, version)])

    def write_many(self, rows: Sequence[Row]) -> None:
        """Several rooms' writes (each as ``write``, fenced) in one transaction (group commit,
        ``rooms/batch.py``): all or none. ``LeaseLost`` names the first room another node
        claimed (the transaction is rolled back: nothing of any room is written)."""
        statements = self._prepare(rows)
        with self._fenced(statements), self._reach(), self._rows_locked:
            _send(self._conn(), statements)

    @property
    def writes_off_loop(self) -> bool:
        """Whether group commit should call ``write_many_off_loop`` (there is a writer thread)."""
        return self._writer is not None

    async def write_many_off_loop(self, rows: Sequence[Row]) -> None:
        """``write_many``, its round trips in the writer thread: the loop goes on meanwhile."""
        if self._writer is None:
            self.write_many(rows)
            return
        statements = self._prepare(rows)
        loop = asyncio.get_running_loop()
        with self._fenced(statements), self._reach():
            await loop.run_in_executor(self._writer, self._send_from_writer, statements)

    def _send_from_writer(self, statements: list[Statement]) -> None:
        """In the writer thread: its own connection, opened again if it broke."""
        with self._rows_locked:
            db = self._writer_db
            if db is None or db.closed or db.broken:
                db = self._writer_db = self._connect()
            _send(db, statements)

    def _prepare(self, rows: Sequence[Row]) -> list[Statement]:
        """The rows' fenced statements; ``LeaseLost`` at once for a room not owned here (lost,
        or never claimed) that is not being created."""
        for code, state, _entries, _updated, _version in rows:
            if self.epochs.get(code) is None and state is None:
                raise LeaseLost(code)
        return [self._statement(row) for row in rows]

    @contextlib.contextmanager
    def _fenced(self, statements: list[Statement]) -> Iterator[None]:
        """Around a write, on the loop: written, each room's epoch is kept; a lost room's is
        dropped."""
        try:
            yield
        except LeaseLost as err:
            self.epochs.pop(str(err.args[0]), None)
            raise
        for code, epoch, _sql, _args in statements:
            self.epochs[code] = epoch

    def _statement(self, row: Row) -> Statement:
        """A row's fenced statement: (code, epoch, sql, args)."""
        code, state, entries, updated, version = row
        held = self.epochs.get(code)
        epoch = held or 1
        seqs, texts = [], []
        for seq, entry in entries:
            seqs.append(seq)
            texts.append(_dumps(entry))
        sql = CREATE if held is None else TOUCH if state is None else UPDATE
        args = {
            "code": code,
            "updated": updated,
            "version": version,
            "node": self.node,
            "epoch": epoch,
            "lease": self.lease_s,
            "state": None if state is None else _dumps(state),
            "seqs": seqs,
            "entries": texts,
        }
        return code, epoch, sql, args

    def rooms(self) -> list[StoredRoom]:
        """Every room of the database (whoever owns it): code, state, last update, log."""
        with self._reach():
            logs: dict[str, list[dict[str, Any]]] = {}
            db = self._conn()
            for code, entry in db.execute("SELECT code, entry FROM crisp_log ORDER BY code, seq"):
                logs.setdefault(code, []).append(json.loads(entry))
            rows = db.execute("SELECT code, state, version, updated FROM crisp_rooms")
            return [
                (code, {**json.loads(state), "version": version}, updated, logs.get(code, []))
                for code, state, version, updated in rows
            ]

    def delete(self, code: str) -> None:
        """Remove the room and its log (only if it is still owned here)."""
        with self._reach(), self._rows_locked:
            epoch = self.epochs.pop(code, None)
            db = self._conn()
            with db.transaction():
                cur = db.execute(
                    "DELETE FROM crisp_rooms WHERE code = %s AND (epoch = %s OR owner IS NULL)",
                    (code, epoch),
                )
                if cur.rowcount == 1:
                    db.execute("DELETE FROM crisp_log WHERE code = %s", (code,))

    def exists(self, code: str) -> bool:
        with self._reach():
            cur = self._conn().execute("SELECT 1 FROM crisp_rooms WHERE code = %s", (code,))
            return cur.fetchone() is not None

    # -- Leases ----------------------------------------------------------------------------------

    def claim(self, code: str) -> StoredRoom | None:
        with self._reach(), self._rows_locked:
            args = {"code": code, "node": self.node, "lease": self.lease_s}
            db = self._conn()
            busy = False
            with db.transaction():
                row = db.execute(CLAIM, args).fetchone()
                if row is None:
                    cur = db.execute(
                        "UPDATE crisp_rooms SET wanted = %(node)s WHERE code = %(code)s", args
                    )
                    busy = cur.rowcount == 1
            if row is None:
                if busy:
                    raise RoomBusy(code)  # after the commit: the holder sees the room is wanted
                return None
            # Owned now: no other node can write the log, so it is read after the claim's commit.
            epoch, state, version, updated = row
            log_rows = db.execute(
                "SELECT entry FROM crisp_log WHERE code = %s ORDER BY seq", (code,)
            )
            entries = [json.loads(entry) for (entry,) in log_rows]
            self.epochs[code] = int(epoch)
            return code, {**json.loads(state), "version": version}, updated, entries

    def renew(self) -> Renewal:
        with self._reach(), self._rows_locked:
            codes = list(self.epochs)
            if not codes:
                return Renewal()
            args = {
                "codes": codes,
                "epochs": [self.epochs[c] for c in codes],
                "node": self.node,
                "lease": self.lease_s,
            }
            rows = self._conn().execute(RENEW, args).fetchall()
            kept = {code for code, _ in rows}
            lost = set(codes) - kept
            for code in lost:
                self.epochs.pop(code, None)
            wanted = {code for code, by in rows if by is not None and by != self.node}
            return Renewal(lost=lost, wanted=wanted)

    def wanted(self) -> set[str]:
        with self._reach():
            if not self.epochs:
                return set()
            rows = self._conn().execute(
                "SELECT code FROM crisp_rooms WHERE owner = %s AND wanted IS NOT NULL "
                "AND wanted <> %s",
                (self.node, self.node),
            )
            return {code for (code,) in rows if code in self.epochs}

    def release(self, code: str) -> None:
        with self._reach(), self._rows_locked:
            epoch = self.epochs.pop(code, None)
            if epoch is None:
                return
            self._conn().execute(
                "UPDATE crisp_rooms SET owner = NULL, wanted = NULL, lease_until = now() "
                "WHERE code = %s AND epoch = %s",
                (code, epoch),
            )

    def expire_unheld(self, before: float) -> list[str]:
        """Remove the rooms no node holds (no owner, or its lease ran out) not changed since
        ``before`` (epoch seconds), and their logs: what no node's sweeper sees."""
        with self._reach(), self._rows_locked:
            db = self._conn()
            with db.transaction():
                rows = db.execute(
                    "DELETE FROM crisp_rooms WHERE updated < %s AND (owner IS NULL OR "
                    "lease_until < now()) RETURNING code",
                    (before,),
                ).fetchall()
                codes = [code for (code,) in rows]
                if codes:
                    db.execute("DELETE FROM crisp_log WHERE code = ANY(%s)", (codes,))
            return codes

    def held(self) -> set[str]:
        return set(self.epochs)


def _send(db: psycopg.Connection[Any], statements: list[Statement]) -> None:
    """The statements in one transaction: one alone is its own (one round trip); several go in
    a pipeline, ``BEGIN`` and the statements in one round trip, their counts checked, then
    ``COMMIT``, or ``ROLLBACK`` and ``LeaseLost`` for the first room whose fenced write found it
    owned elsewhere. Touches nothing but ``db`` (it runs in the writer thread)."""
    if len(statements) == 1:
        code, _epoch, sql, args = statements[0]
        _check(code, db.execute(sql, args, prepare=True))
        return
    with db.pipeline(), db.transaction():
        cursors = [(code, db.execute(sql, args, prepare=True)) for code, _, sql, args in statements]
        for code, cur in cursors:
            _check(code, cur)


def _check(code: str, cur: psycopg.Cursor[Any]) -> None:
    got = cur.fetchone()
    if got is None or got[0] != 1:
        raise LeaseLost(code)
