"""The schema version of a Crisp database, and the ordered migrations that bring an older one up
to this release's, run at start in one transaction (idempotent: a database at the current version
is left as it is).

SQLite keeps the version in ``PRAGMA user_version``; PostgreSQL in the one-row table
``crisp_schema``. Version 1 is the schema of every release before versions were kept (commit
60d8d72 and older: ``user_version`` 0, no ``crisp_schema``): its tables are created if missing,
so migrating an unversioned database only records its version. A new migration is appended to
``SQLITE`` and ``POSTGRES`` (never edited once released): version N is the N-th entry.

A database newer than this release knows is refused (``SchemaTooNew``): nothing is changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

#: Each migration: its statements, in order (each one statement: no ``executescript``, which
#: would commit the transaction half-way).
Migration = Sequence[str]

SQLITE: list[Migration] = [
    # 1: the schema of commit 60d8d72 (rooms and their logs)
    [
        "CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, state TEXT NOT NULL, "
        "version INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL)",
        "CREATE TABLE IF NOT EXISTS log (code TEXT NOT NULL, seq INTEGER NOT NULL, "
        "entry TEXT NOT NULL, PRIMARY KEY (code, seq)) WITHOUT ROWID",
    ],
]

POSTGRES: list[Migration] = [
    # 1: the schema of commit 60d8d72 (rooms with their leases, and their logs)
    [
        "CREATE TABLE IF NOT EXISTS crisp_rooms (code TEXT PRIMARY KEY, state TEXT NOT NULL, "
        "version BIGINT NOT NULL DEFAULT 0, updated DOUBLE PRECISION NOT NULL, owner TEXT, "
        "epoch BIGINT NOT NULL DEFAULT 0, lease_until TIMESTAMPTZ NOT NULL DEFAULT now(), "
        "wanted TEXT)",
        "CREATE TABLE IF NOT EXISTS crisp_log (code TEXT NOT NULL, seq BIGINT NOT NULL, "
        "epoch BIGINT NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (code, seq))",
        "CREATE INDEX IF NOT EXISTS crisp_rooms_owner ON crisp_rooms (owner)",
    ],
]

#: This release's schema version (the same number for both stores).
SCHEMA_VERSION = len(SQLITE)
assert len(POSTGRES) == SCHEMA_VERSION


class SchemaTooNew(Exception):
    """The database was written by a newer Crisp: one line to show, nothing changed."""

    def __init__(self, where: str, found: int) -> None:
        super().__init__(
            f"the database {where} has schema version {found}, newer than this release's "
            f"{SCHEMA_VERSION}: run the newer Crisp, or restore a backup made by this one"
        )
        self.found = found


class NotCrispDatabase(Exception):
    """A file that is not a Crisp database (``crisp restore``, ``crisp backup``)."""


def sqlite_version(db: sqlite3.Connection) -> int:
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def sqlite_tables(db: sqlite3.Connection) -> set[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows}


def migrate_sqlite(db: sqlite3.Connection, where: str) -> int:
    """Bring the database of ``db`` (autocommit: ``isolation_level=None``) to ``SCHEMA_VERSION``
    in one transaction; the version it had. ``SchemaTooNew`` if it is newer (nothing changed)."""
    db.execute("BEGIN IMMEDIATE")  # no other process migrates between the read and the writes
    try:
        found = sqlite_version(db)
        if found > SCHEMA_VERSION:
            raise SchemaTooNew(where, found)
        for migration in SQLITE[found:]:
            for statement in migration:
                db.execute(statement)
        if found != SCHEMA_VERSION:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return found


def check_sqlite(db: sqlite3.Connection, where: str) -> int:
    """The schema version of a Crisp SQLite database this release can open (migrating it if
    older); ``NotCrispDatabase`` or ``SchemaTooNew`` otherwise. Reads only."""
    try:
        found = sqlite_version(db)
        tables = sqlite_tables(db)
    except sqlite3.DatabaseError as err:
        raise NotCrispDatabase(f"{where} is not an SQLite database ({err})") from err
    if not {"rooms", "log"} <= tables:
        raise NotCrispDatabase(f"{where} is an SQLite database, but not Crisp's (no rooms, log)")
    if found > SCHEMA_VERSION:
        raise SchemaTooNew(where, found)
    return found


def migrate_postgres(db: Any, where: str = "in PostgreSQL") -> int:
    """Bring a PostgreSQL database to ``SCHEMA_VERSION`` (``db``: a psycopg connection in
    autocommit mode), in one transaction under the nodes' start lock; the version it had."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(7261)")  # nodes starting at once
        db.execute("CREATE TABLE IF NOT EXISTS crisp_schema (version INTEGER NOT NULL)")
        row = db.execute("SELECT max(version) FROM crisp_schema").fetchone()
        found = int(row[0]) if row and row[0] is not None else 0
        if found > SCHEMA_VERSION:
            raise SchemaTooNew(where, found)
        for migration in POSTGRES[found:]:
            for statement in migration:
                db.execute(statement)
        if found != SCHEMA_VERSION:
            db.execute("DELETE FROM crisp_schema")
            db.execute("INSERT INTO crisp_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
    return found
