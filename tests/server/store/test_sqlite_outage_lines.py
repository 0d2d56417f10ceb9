"""A SQLite store that cannot write (a full disk, a read-only file) is an outage of two log lines:
one when it starts, one when it ends with how many changes were refused meanwhile; never a
traceback a write. Every change meanwhile is refused ``unavailable`` and changes nothing; the
game plays on once the store writes again. In process, with the fake clock."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from roomkit import Kit

from crisp.server.store.sqlite import Store
from crisp.server.wire.errors import Refused

SEED = 11
OUTAGE_S = 20.0


class FullDisk:
    """The store's connection on a disk with no room left: every statement that would write
    fails as SQLite fails on a full disk (``SQLITE_FULL``), while ``full`` is set."""

    WRITES = ("INSERT", "UPDATE", "DELETE")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.full = True

    def execute(self, sql: str, *args: Any) -> Any:
        self._check(sql)
        return self.db.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        self._check(sql)
        return self.db.executemany(sql, *args)

    def _check(self, sql: str) -> None:
        if self.full and sql.lstrip().upper().startswith(self.WRITES):
            err = sqlite3.OperationalError("database or disk is full")
            err.sqlite_errorcode = sqlite3.SQLITE_FULL
            err.sqlite_errorname = "SQLITE_FULL"
            raise err

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def full_disk(store: Store) -> Callable[[], None]:
    """The disk fills up now; the function returned frees it."""
    disk = FullDisk(store.db)
    store.db = disk  # type: ignore[assignment]

    def free() -> None:
        disk.full = False
        store.db = disk.db

    return free


def read_only(store: Store) -> Callable[[], None]:
    """The file becomes read-only now (SQLite's own refusal: ``SQLITE_READONLY``)."""
    store.db.execute("PRAGMA query_only = ON")
    return lambda: store.db.execute("PRAGMA query_only = OFF")


def warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    ("fail", "start", "end"),
    [
        (
            full_disk,
            "the database file cannot be written; changes are refused",
            " and requests that need it answer 503 unavailable until it is back: "
            "database or disk is full",
        ),
        (
            read_only,
            "the database file cannot be written; changes are refused",
            " and requests that need it answer 503 unavailable until it is back: "
            "attempt to write a readonly database",
        ),
    ],
    ids=["disk-full", "read-only"],
)
def test_an_outage_of_the_sqlite_store_is_two_log_lines(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    fail: Callable[[Store], Callable[[], None]],
    start: str,
    end: str,
) -> None:
    async def main() -> None:
        store = Store(tmp_path / "crisp.sqlite3")
        kit = Kit(tmp_path, store=store, fixed_seed=SEED)
        store.outage.clock = kit.clock.now
        room, phones = await kit.table(["Ana", "Ben", "Cleo"])
        caplog.clear()
        version = room.version
        back = fail(store)
        for phone in phones:
            answer = await phone.act("ready")
            assert [(m["type"], m["code"]) for m in answer] == [("error", "unavailable")]
        room.join("Dee")  # as the join route does: answered once its commit lands
        with pytest.raises(Refused, match="cannot save"):
            await asyncio.wait_for(asyncio.shield(room.settled() or asyncio.sleep(0)), 1)
        told = len(phones) + 1
        await kit.advance(OUTAGE_S)  # the look phase's deadline falls due, and is retried
        assert room.version == version
        during = warnings(caplog)
        assert [r.exc_info for r in during if r.exc_info] == []  # no traceback
        assert [r.getMessage() for r in during] == [start + end], [r.getMessage() for r in during]
        caplog.clear()
        back()
        await kit.advance(kit.settings.store_retry_s)  # the deadline applies at its retry
        assert room.version > version and room.match is not None
        assert room.match.view(None)["round"]["turn"] is not None  # the look phase ended
        after = [r.getMessage() for r in warnings(caplog)]
        assert len(after) == 1, after
        lasted = OUTAGE_S + kit.settings.store_retry_s  # from the first refusal to the retry
        head = f"the database file can be written again (after {lasted:.1f} s; "
        assert after[0].startswith(head) and after[0].endswith(" refused meanwhile)"), after
        refused = int(after[0].removeprefix(head).split()[0])
        tries = refused - told  # the deadline's, once a store_retry_s at most: no busy loop
        assert 1 <= tries <= OUTAGE_S / kit.settings.store_retry_s + 1, after

    asyncio.run(main())
