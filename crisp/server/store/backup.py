"""``crisp backup`` and ``crisp restore``: a consistent copy of the SQLite database of a data
directory, taken while its server runs (SQLite's online backup API: the copy is one read
transaction, so it holds every room as of one commit, and the server's writes go on), and putting
such a copy back while no server has the data directory open (the store's shared lock on
``crisp.lock``: a restore takes it exclusively for its whole length, so a server started meanwhile
waits for it).

Every file written is 0600 (the database holds every running game's server seed), written under a
temporary name in its directory, checked (``PRAGMA integrity_check``, its schema version read
back), flushed to disk, then renamed into place. A problem is one line (``AdminError``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from crisp.server.store.migrations import (
    SCHEMA_VERSION,
    NotCrispDatabase,
    SchemaTooNew,
    check_sqlite,
)
from crisp.server.store.sqlite import LOCK_FILE, take_exclusive

DB_FILE = "crisp.sqlite3"
BEFORE_RESTORE = DB_FILE + ".before-restore"
SIDES = ("", "-wal", "-shm")  # a database in WAL mode is up to three files


class AdminError(Exception):
    """What an operator's command cannot do: one line to show (exit 2)."""


@dataclass(frozen=True)
class Copied:
    rooms: int
    entries: int
    version: int
    size: int


def _checked(db: sqlite3.Connection, where: str) -> Copied:
    """The copy's rooms, log entries and schema version, after ``integrity_check`` passes."""
    try:
        found = check_sqlite(db, where)
        result = db.execute("PRAGMA integrity_check").fetchall()
        if result != [("ok",)]:
            raise AdminError(f"{where} is damaged: {result[0][0]}")
        rooms = db.execute("SELECT count(*) FROM rooms").fetchone()[0]
        entries = db.execute("SELECT count(*) FROM log").fetchone()[0]
    except sqlite3.DatabaseError as err:
        raise AdminError(f"{where} is not a readable SQLite database: {err}") from err
    except (NotCrispDatabase, SchemaTooNew) as err:
        raise AdminError(str(err)) from err
    return Copied(int(rooms), int(entries), found, 0)


def _private_temp(folder: Path, name: str) -> Path:
    """A new empty file in ``folder``, 0600 whatever the umask."""
    for n in range(100):
        path = folder / f".{name}.tmp{os.getpid()}-{n}"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        os.fchmod(fd, 0o600)
        os.close(fd)
        return path
    raise AdminError(f"cannot make a temporary file in {folder}")  # pragma: no cover


def _copy(source: sqlite3.Connection, target: Path, where: str) -> Copied:
    """``source`` copied into the (new, empty) file ``target`` by the online backup API, made a
    single file (no WAL), checked and flushed to disk."""
    dest = sqlite3.connect(target, isolation_level=None)
    try:
        source.backup(dest)
        dest.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        copied = _checked(dest, where)
    finally:
        dest.close()
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return Copied(copied.rooms, copied.entries, copied.version, target.stat().st_size)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_existing(path: Path, what: str) -> sqlite3.Connection:
    if not path.is_file():
        raise AdminError(f"{what} {path} is not a file")
    if not os.access(path, os.R_OK):
        raise AdminError(f"{what} {path} cannot be read (permission denied)")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as err:
        raise AdminError(f"{what} {path} cannot be opened: {err}") from err


def backup(file: Path, data_dir: Path, force: bool = False) -> str:
    """Copy the database of ``data_dir`` (its server running or not) to ``file``; one line
    saying what was copied."""
    source_path = data_dir / DB_FILE
    if not data_dir.is_dir():
        raise AdminError(f"there is no data directory {data_dir}")
    if not source_path.is_file():
        raise AdminError(f"there is no database in {data_dir} (no {DB_FILE})")
    if file.is_dir():
        raise AdminError(f"{file} is a directory: name the backup file")
    if not file.parent.is_dir():
        raise AdminError(f"there is no directory {file.parent} to write {file.name} in")
    if file.exists() and not force:
        raise AdminError(f"{file} exists: name another file, or add --force to replace it")
    if not os.access(file.parent, os.W_OK):
        raise AdminError(f"cannot write in {file.parent} (permission denied)")
    try:  # read-write: a read-only connection cannot read a WAL without its -shm's help
        source = sqlite3.connect(source_path, isolation_level=None, timeout=10)
    except sqlite3.Error as err:
        raise AdminError(f"cannot open {source_path}: {err}") from err
    temp = _private_temp(file.parent, file.name)
    try:
        _checked(source, str(source_path))
        copied = _copy(source, temp, str(file))
        if force:
            os.replace(temp, file)
        else:
            try:
                os.link(temp, file)  # fails if the file appeared since: never overwritten
            except FileExistsError as err:
                raise AdminError(f"{file} exists: add --force to replace it") from err
            temp.unlink()
        _fsync_dir(file.parent)
    except sqlite3.Error as err:
        raise AdminError(f"the backup failed: {err}") from err
    finally:
        source.close()
        temp.unlink(missing_ok=True)
    return (
        f"backed up {copied.rooms} rooms ({copied.entries} log entries, schema version "
        f"{copied.version}, {copied.size} bytes) from {source_path} to {file}"
    )


@contextlib.contextmanager
def no_server(data_dir: Path) -> Iterator[None]:
    """Hold ``crisp.lock`` exclusively: no server has the database of ``data_dir`` open, and
    none opens it until the block ends (a store waits for its shared lock); else ``AdminError``."""
    lock = data_dir / LOCK_FILE
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
        if not take_exclusive(fd):
            raise AdminError(
                f"a Crisp server is running on {data_dir} (it holds {lock}): stop it first"
            )
        yield
    finally:
        os.close(fd)


def restore(file: Path, data_dir: Path) -> str:
    """Put the backup ``file`` back as the database of ``data_dir`` (no server running there);
    the database it replaces is kept as ``crisp.sqlite3.before-restore``. One line."""
    source = _open_existing(file, "the backup")
    try:
        copied = _checked(source, str(file))
        if not data_dir.exists():
            data_dir.mkdir(parents=True, mode=0o700)
            os.chmod(data_dir, 0o700)
        if not data_dir.is_dir():
            raise AdminError(f"{data_dir} is not a directory")
        if not os.access(data_dir, os.W_OK):
            raise AdminError(f"cannot write in {data_dir} (permission denied)")
        target = data_dir / DB_FILE
        with no_server(data_dir):
            temp = _private_temp(data_dir, DB_FILE)
            try:
                _copy(source, temp, str(file))
                kept = None
                if target.exists():  # its -wal and -shm with it: it stays a whole database
                    for side in SIDES:
                        old = data_dir / (DB_FILE + side)
                        if old.exists():
                            os.replace(old, data_dir / (BEFORE_RESTORE + side))
                        else:
                            (data_dir / (BEFORE_RESTORE + side)).unlink(missing_ok=True)
                    kept = data_dir / BEFORE_RESTORE
                os.replace(temp, target)
                _fsync_dir(data_dir)
            except sqlite3.Error as err:
                raise AdminError(f"the restore failed: {err}") from err
            finally:
                temp.unlink(missing_ok=True)
    finally:
        source.close()
    replaced = f"; the database it replaced is {kept}" if kept else ""
    migrate = (
        f" (schema version {copied.version}: the server migrates it to {SCHEMA_VERSION} at start)"
        if copied.version < SCHEMA_VERSION
        else ""
    )
    return f"restored {copied.rooms} rooms from {file} into {target}{migrate}{replaced}"
