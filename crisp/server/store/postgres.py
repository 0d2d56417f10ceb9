"""Persistence in PostgreSQL (``CRISP_DATABASE_URL=postgresql://…``), for many server processes
sharing one database: the same contract as the SQLite ``Store`` (a change is committed before its
messages are sent), plus ownership with fencing (``leases.py``).

psycopg 3, used synchronously on the event loop like the SQLite store: a room's pipeline is one
synchronous step (validate → apply → write → send), so a write is one round trip to the database
(about 0.3 ms on one machine) during which the loop waits. With group commit
(``rooms/batch.py``) a loop turn's rooms are one ``write_many``: one statement alone, or, in a
pipeline, ``BEGIN`` and one fenced statement a room in one round trip, then ``COMMIT``. Lease
times are the database's clock, so the nodes' clocks need not agree.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator, Sequence
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


def _dumps(value: Any) -> str:
    return wire_dumps(value)  # the one reusable encoder of the wire and the store


class PgStore:
    """Rooms and their logs in PostgreSQL; ``node`` names this process in the lease rows."""

    def __init__(self, url: str, node: str, lease_s: float = 4.0) -> None:
        self.url = url
        self.node = node
        self.lease_s = lease_s
        self.epochs: dict[str, int] = {}  # the rooms owned here, and the epoch each was claimed at
        self.outage = Outage("database")
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
            raise StoreUnavailable(str(err).strip()) from err
        self.outage.ok()

    def ping(self) -> None:
        """``StoreUnavailable`` unless the database answers now (``GET /readyz``)."""
        with self._reach():
            self._conn().execute("SELECT 1")

    def close(self) -> None:
        """Close the connection; the leases held run out by themselves (``release`` first for a
        handover at once)."""
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
        for code, state, _entries, _updated, _version in rows:
            if self.epochs.get(code) is None and state is None:
                raise LeaseLost(code)  # a room not owned here (lost, or never claimed)
        done: list[tuple[str, int]] = []
        lost: str | None = None
        with self._reach():
            db = self._conn()
            if len(rows) == 1:  # one statement, its own transaction: one round trip
                done.append(self._row(db, rows[0]))
            else:
                try:
                    self._batch(db, rows, done)
                except LeaseLost as err:
                    lost = str(err.args[0])
        if lost is not None:
            self.epochs.pop(lost, None)
            raise LeaseLost(lost)
        for code, epoch in done:
            self.epochs[code] = epoch

    def _batch(
        self, db: psycopg.Connection[Any], rows: Sequence[Row], done: list[tuple[str, int]]
    ) -> None:
        """Every row's statement in one transaction, sent in a pipeline: ``BEGIN`` and the
        statements in one round trip, their counts checked, then ``COMMIT`` (or ``ROLLBACK``
        on the first room whose fenced write found it owned elsewhere)."""
        statements = [self._statement(row) for row in rows]
        with db.pipeline(), db.transaction():
            cursors = [
                (code, epoch, db.execute(sql, args, prepare=True))
                for code, epoch, sql, args in statements
            ]
            for code, epoch, cur in cursors:
                got = cur.fetchone()
                if got is None or got[0] != 1:
                    self.epochs.pop(code, None)
                    raise LeaseLost(code)
                done.append((code, epoch))

    def _statement(self, row: Row) -> tuple[str, int, str, dict[str, Any]]:
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

    def _row(self, db: psycopg.Connection[Any], row: Row) -> tuple[str, int]:
        """One row's fenced statement alone (its own transaction): (code, epoch) written."""
        code, epoch, sql, args = self._statement(row)
        got = db.execute(sql, args, prepare=True).fetchone()
        if got is None or got[0] != 1:
            self.epochs.pop(code, None)
            raise LeaseLost(code)
        return code, epoch

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
        with self._reach():
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
        with self._reach():
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
        with self._reach():
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
        with self._reach():
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
        with self._reach():
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
