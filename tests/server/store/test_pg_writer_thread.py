"""PostgreSQL's writer thread (crisp/server/store/postgres.py, setting
``pg_writer_thread``): group commit's transaction is sent from a thread on its own connection, so
a commit in flight no longer stops the event loop. A real PostgreSQL (tests/support/pgserver.py);
another connection holds the room's row locked, so the write waits in the database until the
test lets it go."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from crisp.server.store.outage import StoreUnavailable
from crisp.server.store.postgres import PgStore

STATE = {"phase": "lobby", "members": [1]}


def entry(seq: int) -> tuple[int, dict[str, Any]]:
    return (seq, {"e": "move", "i": seq})


def version_of(url: str, code: str) -> int:
    with psycopg.connect(url) as db:
        row = db.execute("SELECT version FROM crisp_rooms WHERE code = %s", (code,)).fetchone()
        assert row is not None
        return int(row[0])


@pytest.mark.parametrize("writer_thread", [True, False], ids=["writer-thread", "on-the-loop"])
def test_a_commit_in_flight_does_not_stop_the_loop(pg_server: Any, writer_thread: bool) -> None:
    """The room's row is locked by another transaction, so its write waits in the database.
    With the writer thread the loop goes on meanwhile (it turns, and the loop's own connection
    answers); once the lock goes, the write lands. On the loop, the first turn is held until
    the statement's timeout (5 s) and the write fails."""
    url = pg_server.new_database()
    store = PgStore(url, "a", writer_thread=writer_thread)
    store.write("ABC", STATE, [entry(0)], 1.0, 1)
    locker = psycopg.connect(url)
    locker.execute("BEGIN")
    locker.execute("SELECT 1 FROM crisp_rooms WHERE code = 'ABC' FOR UPDATE")

    async def main() -> None:
        write = asyncio.create_task(store.write_many_off_loop([("ABC", None, [entry(1)], 2.0, 2)]))
        for _ in range(20):
            await asyncio.sleep(0)
        if not writer_thread:
            assert write.done(), "the write on the loop should have held the loop until it ended"
            with pytest.raises(StoreUnavailable):
                write.result()
            return
        assert not write.done()  # waiting in the database, while the loop turned
        assert store.exists("ABC")  # the loop's own connection is free
        locker.rollback()
        await write

    try:
        asyncio.run(main())
    finally:
        locker.close()
    assert version_of(url, "ABC") == (2 if writer_thread else 1)
    if writer_thread:
        assert store.epochs == {"ABC": 1}
    store.close()


def test_the_writer_connection_is_opened_again_after_it_broke(pg_server: Any) -> None:
    """The database ends the writer thread's connection (a restart, a proxy's timeout): that
    batch fails as an outage, and the next one is sent on a new connection."""
    url = pg_server.new_database()
    store = PgStore(url, "a")
    store.write("ABC", STATE, [entry(0)], 1.0, 1)

    async def main() -> None:
        await store.write_many_off_loop([("ABC", None, [entry(1)], 2.0, 2)])
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND backend_type = 'client backend' AND state = 'idle'"
            )
        with pytest.raises(StoreUnavailable):
            await store.write_many_off_loop([("ABC", None, [entry(2)], 3.0, 3)])
        assert store.outage.down  # logged once, as any outage
        await store.write_many_off_loop([("ABC", None, [entry(2)], 3.0, 3)])  # a new connection
        assert not store.outage.down

    asyncio.run(main())
    assert version_of(url, "ABC") == 3
    store.close()
