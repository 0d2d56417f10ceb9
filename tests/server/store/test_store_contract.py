"""The store contract (crisp/server/store/sqlite.py's ``Storage``), run against the embedded SQLite
store and the PostgreSQL store alike (a real server: tests/support/pgserver.py); then the PostgreSQL
store's leases (crisp/server/store/leases.py): claims, handovers, expiry and fencing by epoch."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from crisp.server.store.leases import LeaseLost, RoomBusy
from crisp.server.store.postgres import PgStore
from crisp.server.store.sqlite import Storage, Store

Opener = Callable[[], Storage]


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens a store on one database (each call: another connection, as after a restart)."""
    opened: list[Storage] = []
    if request.param == "sqlite":

        def make() -> Storage:
            opened.append(Store(tmp_path / "crisp.sqlite3"))
            return opened[-1]
    else:
        url = request.getfixturevalue("pg_server").new_database()
        n = iter(range(1000))

        def make() -> Storage:
            opened.append(PgStore(url, f"node-{next(n)}"))
            return opened[-1]

    yield make
    for store in opened:
        store.close()


STATE = {"phase": "lobby", "name": "Zoë ♠ 10♥", "members": [1, 2]}


def entries(start: int, n: int) -> list[tuple[int, dict[str, Any]]]:
    return [(start + i, {"e": "move", "i": start + i, "text": "é"}) for i in range(n)]


def test_a_written_room_comes_back_with_its_state_version_and_log_in_order(opener: Opener) -> None:
    store = opener()
    store.write("ABC", STATE, entries(0, 3), 100.5, 1)
    store.write("ABC", None, entries(3, 2), 101.25, 2)
    [(code, state, updated, log)] = store.rooms()
    assert (code, updated) == ("ABC", 101.25)
    assert state == {**STATE, "version": 2}
    assert [e["i"] for e in log] == [0, 1, 2, 3, 4]


def test_a_new_state_replaces_the_old_one(opener: Opener) -> None:
    store = opener()
    store.write("ABC", STATE, [], 1.0, 1)
    store.write("ABC", {**STATE, "phase": "playing"}, entries(0, 1), 2.0, 2)
    [(_, state, _, log)] = store.rooms()
    assert state["phase"] == "playing" and state["version"] == 2 and len(log) == 1


def test_a_failed_write_changes_nothing(opener: Opener) -> None:
    """One transaction: an entry whose number is taken fails the write, state and all."""
    store = opener()
    store.write("ABC", STATE, entries(0, 2), 1.0, 1)
    with pytest.raises(Exception):  # noqa: B017 - each database has its own integrity error
        store.write("ABC", {**STATE, "phase": "over"}, [*entries(2, 1), *entries(1, 1)], 2.0, 2)
    [(_, state, updated, log)] = store.rooms()
    assert state == {**STATE, "version": 1} and updated == 1.0 and len(log) == 2
    store.write("ABC", None, entries(2, 1), 3.0, 2)  # and the store goes on
    assert len(store.rooms()[0][3]) == 3


def test_rooms_are_kept_apart_and_delete_removes_a_room_and_its_log(opener: Opener) -> None:
    store = opener()
    store.write("AAA", STATE, entries(0, 2), 1.0, 1)
    store.write("BBB", STATE, entries(0, 1), 1.0, 1)
    assert store.exists("AAA") and store.exists("BBB") and not store.exists("CCC")
    store.delete("AAA")
    assert not store.exists("AAA")
    assert [(c, len(log)) for c, _, _, log in store.rooms()] == [("BBB", 1)]
    store.write("AAA", STATE, [], 2.0, 1)  # the code is free again: no old log comes back
    assert {c: len(log) for c, _, _, log in store.rooms()} == {"AAA": 0, "BBB": 1}


def test_what_is_committed_is_there_for_the_next_process(opener: Opener) -> None:
    first = opener()
    first.write("ABC", STATE, entries(0, 4), 7.0, 3)
    second = opener()
    [(code, state, updated, log)] = second.rooms()
    assert (code, state["version"], updated, len(log)) == ("ABC", 3, 7.0, 4)


# -- PostgreSQL: leases and fencing -------------------------------------------------------------


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    url: str = pg_server.new_database()
    return url


def epochs_in_log(url: str, code: str) -> list[int]:
    import psycopg

    with psycopg.connect(url) as db:
        rows = db.execute("SELECT epoch FROM crisp_log WHERE code = %s ORDER BY seq", (code,))
        return [int(e) for (e,) in rows]


def test_a_live_lease_is_not_taken_but_handed_over(pg_url: str) -> None:
    a, b = PgStore(pg_url, "a"), PgStore(pg_url, "b")
    a.write("ABC", STATE, entries(0, 1), 1.0, 1)
    assert b.claim("NOPE") is None  # no such room
    with pytest.raises(RoomBusy):
        b.claim("ABC")
    renewal = a.renew()  # a sees that b wants it, and releases it
    assert renewal.wanted == {"ABC"} and not renewal.lost
    a.release("ABC")
    stored = b.claim("ABC")
    assert stored is not None and stored[1]["version"] == 1 and len(stored[3]) == 1
    assert b.held() == {"ABC"} and a.held() == set()
    with pytest.raises(LeaseLost):
        a.write("ABC", None, entries(1, 1), 2.0, 2)
    b.write("ABC", None, entries(1, 1), 2.0, 2)
    assert epochs_in_log(pg_url, "ABC") == [1, 2]
    a.close()
    b.close()


def claim_when_expired(store: PgStore, code: str) -> Any:
    deadline = time.monotonic() + 10
    while True:
        try:
            return store.claim(code)
        except RoomBusy:
            assert time.monotonic() < deadline, "the lease never expired"
            time.sleep(0.05)


def test_an_expired_lease_is_claimed_and_the_old_owner_is_fenced(pg_url: str) -> None:
    """The old owner never renewed (paused): once its lease ran out another node claims the room
    with a higher epoch; the old owner's writes fail (state or not) and write nothing."""
    a, b = PgStore(pg_url, "a", lease_s=0.3), PgStore(pg_url, "b", lease_s=0.3)
    a.write("ABC", STATE, entries(0, 2), 1.0, 1)
    a.write("DEF", STATE, [], 1.0, 1)
    stored = claim_when_expired(b, "ABC")
    claim_when_expired(b, "DEF")
    assert stored is not None and len(stored[3]) == 2
    for state in (None, {**STATE, "phase": "stale"}):
        with pytest.raises(LeaseLost):
            a.write("ABC", state, entries(2, 1), 2.0, 2)
    assert a.renew().lost == {"DEF"} and a.held() == set()
    b.write("ABC", None, entries(2, 1), 2.0, 2)
    state = {code: state for code, state, _, _ in b.rooms()}["ABC"]
    assert state["phase"] == "lobby" and state["version"] == 2
    assert epochs_in_log(pg_url, "ABC") == [1, 1, 2]
    a.close()
    b.close()


def test_renewal_keeps_a_lease_running(pg_url: str) -> None:
    a, b = PgStore(pg_url, "a", lease_s=0.5), PgStore(pg_url, "b")
    a.write("ABC", STATE, [], 1.0, 1)
    end = time.monotonic() + 1.2
    while time.monotonic() < end:
        assert a.renew().lost == set()
        with pytest.raises(RoomBusy):
            b.claim("ABC")
        time.sleep(0.1)
    a.close()
    b.close()


def test_a_new_room_on_a_taken_code_is_refused(pg_url: str) -> None:
    a, b = PgStore(pg_url, "a"), PgStore(pg_url, "b")
    a.write("ABC", STATE, entries(0, 1), 1.0, 1)
    with pytest.raises(LeaseLost):
        b.write("ABC", {**STATE, "phase": "other"}, [], 2.0, 1)
    assert a.rooms()[0][1]["phase"] == "lobby"
    a.close()
    b.close()


def test_rooms_no_node_holds_expire(pg_url: str) -> None:
    """The sweeper's share of a shared store: an old room whose owner died (lease run out) or
    released it is removed with its log; a held one, or a recent one, is kept."""
    a = PgStore(pg_url, "a", lease_s=0.2)
    keeper = PgStore(pg_url, "k")
    a.write("OLD", STATE, entries(0, 2), 100.0, 1)  # a dies: its lease runs out
    a.write("NEW", STATE, [], 5000.0, 1)
    keeper.write("HELD", STATE, [], 100.0, 1)
    deadline = time.monotonic() + 10
    while a.expire_unheld(1000.0) == []:
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.05)
    assert {c for c, _, _, _ in keeper.rooms()} == {"NEW", "HELD"}
    assert epochs_in_log(pg_url, "OLD") == []
    keeper.release("HELD")
    assert keeper.expire_unheld(1000.0) == ["HELD"]
    a.close()
    keeper.close()


# -- group commit: several rooms in one transaction (rooms/batch.py) --------------------


def test_write_many_stores_several_rooms_in_one_transaction(opener: Opener) -> None:
    """Group commit: ``write_many`` writes every room's row (new rooms, a state, a version-only
    touch) and they come back as if each had been written alone."""
    store = opener()
    store.write("ABC", STATE, entries(0, 1), 1.0, 1)
    many = getattr(store, "write_many")  # noqa: B009 - both stores have it; Storage does not
    many(
        [
            ("ABC", None, entries(1, 2), 2.0, 3),
            ("DEF", {**STATE, "phase": "playing"}, entries(0, 1), 2.5, 1),
        ]
    )
    rooms = {code: (state, updated, log) for code, state, updated, log in store.rooms()}
    assert rooms["ABC"][0] == {**STATE, "version": 3} and rooms["ABC"][1] == 2.0
    assert [e["i"] for e in rooms["ABC"][2]] == [0, 1, 2]
    assert rooms["DEF"][0]["phase"] == "playing" and rooms["DEF"][0]["version"] == 1
    assert opener().rooms() and len(opener().rooms()) == 2  # committed for the next process


def test_a_failed_row_of_write_many_writes_no_room(opener: Opener) -> None:
    """Group commit's contract: one failing room (a taken log number) fails the whole batch;
    the other room of the batch is not written either, and the store goes on."""
    store = opener()
    store.write("ABC", STATE, entries(0, 2), 1.0, 1)
    store.write("DEF", STATE, [], 1.0, 1)
    many = getattr(store, "write_many")  # noqa: B009
    with pytest.raises(Exception):  # noqa: B017 - each database has its own integrity error
        many(
            [
                ("DEF", {**STATE, "phase": "playing"}, entries(0, 1), 2.0, 2),
                ("ABC", None, entries(1, 1), 2.0, 2),  # seq 1 is taken
            ]
        )
    rooms = {code: (state, log) for code, state, _, log in store.rooms()}
    assert rooms["DEF"] == ({**STATE, "version": 1}, [])
    assert rooms["ABC"][0]["version"] == 1 and len(rooms["ABC"][1]) == 2
    many([("DEF", None, entries(0, 1), 3.0, 2), ("ABC", None, entries(2, 1), 3.0, 2)])
    assert {code: len(log) for code, _, _, log in store.rooms()} == {"ABC": 3, "DEF": 1}


def write_many(store: PgStore, rows: list[Any], off_loop: bool) -> None:
    """``write_many`` on the caller's thread, or ``write_many_off_loop`` (the writer thread)."""
    if off_loop:
        asyncio.run(store.write_many_off_loop(rows))
    else:
        store.write_many(rows)


@pytest.mark.parametrize("off_loop", [False, True], ids=["on-the-loop", "writer-thread"])
def test_write_many_with_a_lost_room_names_it_and_writes_nothing(
    pg_url: str, off_loop: bool
) -> None:
    """PostgreSQL, group commit: a batch holding a room another node claimed since raises
    ``LeaseLost`` naming that room, and writes none of the batch (fenced in the same
    transaction); the rest written again alone is stored. The same from the writer thread."""
    a, b = PgStore(pg_url, "a", lease_s=0.3), PgStore(pg_url, "b", lease_s=0.3)
    a.write("ABC", STATE, entries(0, 1), 1.0, 1)
    a.write("DEF", STATE, entries(0, 1), 1.0, 1)
    claim_when_expired(b, "ABC")
    assert a.renew().lost == {"ABC"} and a.held() == {"DEF"}
    a.epochs["ABC"] = 1  # as if a had not noticed yet: its write is fenced by the database
    with pytest.raises(LeaseLost) as lost:
        rows = [("DEF", None, entries(1, 1), 2.0, 2), ("ABC", None, entries(1, 1), 2.0, 2)]
        write_many(a, rows, off_loop)
    assert lost.value.args == ("ABC",) and "ABC" not in a.held()
    rooms = {code: (state, log) for code, state, _, log in b.rooms()}
    assert rooms["DEF"][0]["version"] == 1 and len(rooms["DEF"][1]) == 1  # nothing of DEF
    write_many(a, [("DEF", None, entries(1, 1), 2.0, 2)], off_loop)
    rooms = {code: (state, log) for code, state, _, log in b.rooms()}
    assert rooms["DEF"][0]["version"] == 2 and len(rooms["DEF"][1]) == 2
    assert rooms["ABC"][0]["version"] == 1
    a.close()
    b.close()
