"""Persistence: one SQLite file. A room is a row (its lobby state) and a log of entries (the
inputs of its games, from which the engine rebuilds them and their records).

Every change is written (committed) before the messages it produced are sent, so a server killed
with SIGKILL comes back exactly where its players last saw it. WAL with ``synchronous=NORMAL``:
a commit survives the process being killed (not a power cut), at a few tens of microseconds.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from crisp.server.store.migrations import migrate_sqlite
from crisp.server.store.outage import Outage, StoreUnavailable
from crisp.server.wire.encoder import dumps as wire_dumps

log = logging.getLogger("crisp.server")
StoredRoom = tuple[str, dict[str, Any], float, list[dict[str, Any]]]
#: A room's lasting state (``Lobby.to_state``), and new log entries as ``(seq, entry)``.
State = dict[str, Any]
Entries = Iterable[tuple[int, dict[str, Any]]]
#: One room's part of a group commit: ``(code, state, entries, updated, version)`` as ``write``.
Row = tuple[str, State | None, Entries, float, int]


class Storage(Protocol):
    """Where rooms are kept: a room's state row and its append-only log (see ``Store``). Both
    stores also have ``write_many(rows)``, several rooms' writes in one transaction (group
    commit, ``rooms/batch.py``); a store without it is written a row at a time."""

    def write(
        self, code: str, state: State | None, entries: Entries, updated: float, version: int
    ) -> None:
        """In one transaction, or not at all (raise)."""

    def rooms(self) -> list[StoredRoom]: ...
    def delete(self, code: str) -> None: ...
    def exists(self, code: str) -> bool: ...
    def close(self) -> None: ...


LOCK_FILE = "crisp.lock"
#: SQLite's primary result codes that say the file cannot be written now (a full or read-only disk,
#: an I/O error, another process's lock): an outage, logged once, not a traceback a write.
OUTAGE_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_NOMEM,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PERM,
    }
)


def private(path: Path) -> None:
    """Create ``path`` if missing, readable and writable by its owner only (0600, whatever the
    umask): the database holds every running game's server seed, hence its deck."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def hold_shared(path: Path) -> int:
    """A shared lock on ``path`` (made 0600), held while the store is open: the file descriptor.
    ``crisp restore`` takes it exclusively to know that no server has the database open (the
    kernel drops it when the process ends, even by SIGKILL)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def in_use(data_dir: Path) -> bool:
    """Whether a server (a ``Store``) has the database of ``data_dir`` open now."""
    lock = data_dir / LOCK_FILE
    if not lock.exists():
        return False
    fd = os.open(lock, os.O_RDONLY)
    try:
        return not take_exclusive(fd)
    finally:
        os.close(fd)  # drops the lock, if it was taken


def take_exclusive(fd: int) -> bool:
    """The lock of ``fd`` taken exclusively now, or False if a store holds it (no waiting)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        if err.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
            return False
        raise
    return True


def _dumps(value: Any) -> str:
    return wire_dumps(value)  # the one reusable encoder of the wire and the store


class Store:
    def __init__(self, path: Path) -> None:
        if not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(path.parent, 0o700)
        self.path = path
        # A write that fails for want of the disk: one line when it starts, one when it ends.
        self.outage = Outage("database file", down="cannot be written", up="can be written again")
        self._lock = hold_shared(path.parent / LOCK_FILE)
        private(path)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        # Checkpoints (which fsync the database file) run in a thread of their own, so that a
        # commit on the event loop never waits for one.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        try:
            self.schema_found = migrate_sqlite(self.db, str(path))
        except BaseException:
            self.db.close()
            os.close(self._lock)
            raise
        for suffix in ("-wal", "-shm"):  # SQLite gives them the database's mode; made sure
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.chmod(side, 0o600)
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoints, name="crisp-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _checkpoints(self, every: float = 1.0) -> None:
        """Checkpoint the WAL every ``every`` s; an error (a full disk) is reported once until
        a checkpoint succeeds again, and the loop goes on."""
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        failing = False
        try:
            while not self._stop.wait(every):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as err:
                    if not failing:
                        log.error("WAL checkpoint failed (will retry every %.0f s): %s", every, err)
                    failing = True
                    continue
                if failing:
                    log.info("WAL checkpoints work again")
                failing = False
        finally:
            db.close()

    def ping(self) -> None:
        """``StoreUnavailable`` unless the database answers now (``GET /readyz``)."""
        try:
            self.db.execute("SELECT 1 FROM rooms LIMIT 1").fetchall()
        except sqlite3.Error as err:
            raise StoreUnavailable(str(err)) from err

    def close(self) -> None:
        self._stop.set()
        self._checkpointer.join(5)
        self.db.close()
        os.close(self._lock)

    def write(
        self, code: str, state: State | None, entries: Entries, updated: float, version: int
    ) -> None:
        """In one transaction: the room's version, its state (if given) and new log entries
        ``(seq, entry)``."""
        self.write_many([(code, state, entries, updated, version)])

    def write_many(self, rows: Sequence[Row]) -> None:
        """Several rooms' writes (each as ``write``) in one transaction (group commit,
        ``rooms/batch.py``): all of them, or none (raise; ``StoreUnavailable`` when the file
        cannot be written now)."""
        with self._writing() as db:
            for row in rows:
                self._write(db, *row)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed, or rolled back and raised. A failure of the disk
        (``OUTAGE_CODES``) is ``StoreUnavailable``, counted in the store's ``Outage``."""
        db = self.db
        try:
            db.execute("BEGIN")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as err:
            if err.sqlite_errorcode & 0xFF not in OUTAGE_CODES:
                raise
            self.outage.failed(err)
            raise StoreUnavailable(str(err), self.outage) from err
        self.outage.ok()

    def _write(
        self,
        db: sqlite3.Connection,
        code: str,
        state: State | None,
        entries: Entries,
        updated: float,
        version: int,
    ) -> None:
        if state is not None:
            db.execute(
                "INSERT INTO rooms (code, state, version, updated) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(code) DO UPDATE SET state = excluded.state, "
                "version = excluded.version, updated = excluded.updated",
                (code, _dumps(state), version, updated),
            )
        else:
            db.execute(
                "UPDATE rooms SET updated = ?, version = ? WHERE code = ?",
                (updated, version, code),
            )
        db.executemany(
            "INSERT INTO log (code, seq, entry) VALUES (?, ?, ?)",
            [(code, seq, _dumps(entry)) for seq, entry in entries],
        )

    def rooms(self) -> list[StoredRoom]:
        """Every room: code, state (with its latest version), last update (epoch seconds) and its
        log in order."""
        logs: dict[str, list[dict[str, Any]]] = {}
        for code, entry in self.db.execute("SELECT code, entry FROM log ORDER BY code, seq"):
            logs.setdefault(code, []).append(json.loads(entry))
        rows = self.db.execute("SELECT code, state, version, updated FROM rooms")
        return [
            (code, {**json.loads(state), "version": version}, updated, logs.get(code, []))
            for code, state, version, updated in rows
        ]

    def delete(self, code: str) -> None:
        with self._writing() as db:
            db.execute("DELETE FROM rooms WHERE code = ?", (code,))
            db.execute("DELETE FROM log WHERE code = ?", (code,))

    def exists(self, code: str) -> bool:
        row = self.db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone()
        return row is not None
