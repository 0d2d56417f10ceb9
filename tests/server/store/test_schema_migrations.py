"""Schema versions and the upgrade path: a database records its schema
version, ordered migrations bring an older one up at start (idempotent, one transaction), a
database newer than this release is refused, and a database made by commit 60d8d72
(tests/fixtures/v60d8d72, made by that commit's own code) is opened, migrated and its rooms, a
Crisp and a Crisps! game in play and a lobby, play on to their ends."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sqlite3
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from paths import TESTS
from roomkit import FakePhone, Kit

from crisp.games.records import verify_main
from crisp.server.rooms.hub import Hub
from crisp.server.rooms.room import Room
from crisp.server.store.migrations import SCHEMA_VERSION, SchemaTooNew
from crisp.server.store.sqlite import Store

OLD = TESTS / "fixtures" / "v60d8d72"
ROOMS: dict[str, Any] = json.loads((OLD / "rooms.json").read_text())


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def old_data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shutil.copy(OLD / "crisp.sqlite3", data / "crisp.sqlite3")
    return data


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def no_errors(answer: list[dict[str, Any]]) -> None:
    assert not [m for m in answer if m["type"] == "error"], answer


async def play_on(kit: Kit, hub: Hub, tmp_path: Path) -> None:
    """Each old room: its host comes back with the old seat token; the two games in play finish
    (the host's turns time out, the bots play theirs) and their records verify; the lobby starts
    a game with a bot standing in for the absent member, which finishes too. The bots draw from
    Python's shared ``random``: seeded here, so the games are the same whatever ran before (some
    draws make a game between a timed-out host and bots last many thousand turns), and so is
    each room's own random (its bots' seeds and pace)."""
    random.seed(1)
    rooms: dict[str, Room] = {}
    for k, (name, old) in enumerate(ROOMS.items()):
        room = await hub.find(old["code"])
        assert room is not None, name
        assert room.lobby.phase == old["phase"], name
        room.bots.rng = random.Random(k)  # the seeds of the room's bots, and their pace
        rooms[name] = room
    for name in ("crisp_playing", "crisps_playing"):
        room = rooms[name]
        host = await FakePhone(kit, room, ROOMS[name]["tokens"][0], name).connect()
        no_errors(host.got)
        await kit.jump_until(lambda room=room: room.lobby.phase == "over")  # type: ignore[misc]
        assert room.last_record is not None
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(room.last_record))
        assert verify_main([str(path)]) == 0, name
    lobby = rooms["lobby"]
    fay = await FakePhone(kit, lobby, ROOMS["lobby"]["tokens"][0], "Fay").connect()
    no_errors(await fay.say({"type": "options", "limit": 50, "timer": 30, "take_discard": False}))
    no_errors(await fay.say({"type": "start"}))
    no_errors(await fay.say({"type": "bot", "seat": 1, "level": "hard"}))
    await kit.jump_until(lambda: lobby.lobby.phase == "over")
    assert lobby.last_record is not None


def test_a_60d8d72_sqlite_database_is_migrated_and_its_rooms_play_on(tmp_path: Path) -> None:
    """The old file (user_version 0) opens at this release's version; its three
    rooms load and play to their ends; opened again, nothing more is migrated."""
    data = old_data_dir(tmp_path)
    assert user_version(data / "crisp.sqlite3") == 0

    async def main() -> None:
        kit = Kit(data, between_rounds_s=2)
        assert user_version(data / "crisp.sqlite3") == SCHEMA_VERSION
        kit.hub.load()
        assert set(kit.hub.rooms) == {r["code"] for r in ROOMS.values()}
        await play_on(kit, kit.hub, tmp_path)
        kit.crash()
        again = kit.reopen()
        assert again.store.schema_found == SCHEMA_VERSION  # type: ignore[attr-defined]
        assert set(again.hub.rooms) == set(kit.hub.rooms)

    run(main())


def test_migrations_are_idempotent_and_a_new_database_starts_at_this_version(
    tmp_path: Path,
) -> None:
    """A new file is made at ``SCHEMA_VERSION``; opening it again migrates nothing."""
    first = Store(tmp_path / "crisp.sqlite3")
    assert first.schema_found == 0
    first.write("ABC", {"x": 1}, [(0, {"e": "one"})], 1.0, 1)
    first.close()
    second = Store(tmp_path / "crisp.sqlite3")
    assert second.schema_found == SCHEMA_VERSION
    assert [r[0] for r in second.rooms()] == ["ABC"]
    second.close()
    assert user_version(tmp_path / "crisp.sqlite3") == SCHEMA_VERSION


def test_a_database_newer_than_this_release_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    """A database of a newer Crisp (a higher version) is refused in one line; its
    version and its rows are as they were."""
    path = tmp_path / "crisp.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew) as refused:
        Store(path)
    assert "\n" not in str(refused.value)
    assert f"schema version {SCHEMA_VERSION + 1}" in str(refused.value)
    assert user_version(path) == SCHEMA_VERSION + 1


# -- PostgreSQL ------------------------------------------------------------------------------


def old_postgres(url: str) -> None:
    """A PostgreSQL database as 60d8d72 made it: its DDL, and the fixture's rooms (no owner)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db, sqlite3.connect(OLD / "crisp.sqlite3") as old:
        db.execute((OLD / "postgres-schema.sql").read_text())
        for code, state, version, updated in old.execute(
            "SELECT code, state, version, updated FROM rooms"
        ):
            db.execute(
                "INSERT INTO crisp_rooms (code, state, version, updated) VALUES (%s, %s, %s, %s)",
                (code, state, version, updated),
            )
        for code, seq, entry in old.execute("SELECT code, seq, entry FROM log"):
            db.execute(
                "INSERT INTO crisp_log (code, seq, epoch, entry) VALUES (%s, %s, 1, %s)",
                (code, seq, entry),
            )


def pg_version(url: str) -> list[int]:
    import psycopg

    with psycopg.connect(url) as db:
        return [v for (v,) in db.execute("SELECT version FROM crisp_schema")]


def test_a_60d8d72_postgres_database_is_migrated_and_its_rooms_play_on(
    tmp_path: Path, pg_server: Any
) -> None:
    """PostgreSQL: the old DDL's tables gain ``crisp_schema`` at this version (one
    row, however many nodes start); the rooms are claimed and play on to their ends."""
    from crisp.server.store.postgres import PgStore

    url = pg_server.new_database()
    old_postgres(url)

    async def main() -> None:
        store = PgStore(url, "node-a")
        assert store.schema_found == 0
        kit = Kit(tmp_path / "data", store=store, between_rounds_s=2)
        hub = kit.hub = Hub(kit.settings, store, kit.clock, kit.games, store)
        await play_on(kit, hub, tmp_path)
        for room in list(hub.rooms.values()):
            room.stop_timers()
        store.close()
        again = PgStore(url, "node-b")
        assert again.schema_found == SCHEMA_VERSION
        again.close()

    run(main())
    assert pg_version(url) == [SCHEMA_VERSION]


def test_a_postgres_database_newer_than_this_release_is_refused(pg_server: Any) -> None:
    """PostgreSQL: a higher ``crisp_schema`` version is refused, nothing changed."""
    import psycopg

    from crisp.server.store.postgres import PgStore

    url = pg_server.new_database()
    PgStore(url, "a").close()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("UPDATE crisp_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaTooNew):
        PgStore(url, "b")
    assert pg_version(url) == [SCHEMA_VERSION + 1]
