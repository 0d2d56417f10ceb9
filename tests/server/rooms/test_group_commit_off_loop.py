"""Group commit with a store that writes off the loop (PostgreSQL's writer thread,
crisp/server/rooms/batch.py): one batch is in flight while the loop goes on. Rooms keep applying
their changes, which wait for the next batch, and nothing of them goes out before it is stored. A
room changed again while its batch is in flight is written in the next one, after it. A failed
batch in flight undoes the room's next record with it. Closing the hub waits for the batch in
flight. In-process: the store double's write waits on a gate the test opens; no sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from roomkit import Kit
from test_group_commit import SEED, CountingStore, state_of, stored, table, told

from crisp.server.store.sqlite import Row, Store


class GatedStore(CountingStore):
    """A counting store whose batches are written off the loop, each once ``gate`` is open;
    ``fail_next`` fails the next one (a full disk)."""

    writes_off_loop = True

    def __init__(self, inner: Store, events: list[tuple[str, Any]]) -> None:
        super().__init__(inner, events)
        self.gate = asyncio.Event()
        self.started: list[list[str]] = []  # the codes of each batch sent off the loop
        self.fail_next = False

    async def write_many_off_loop(self, rows: Sequence[Row]) -> None:
        self.started.append([row[0] for row in rows])
        await self.gate.wait()
        self.failing, self.fail_next = self.fail_next, False
        try:
            self.write_many(rows)
        finally:
            self.failing = False


def make_kit(tmp_path: Path) -> tuple[Kit, GatedStore]:
    store = GatedStore(Store(tmp_path / "crisp.sqlite3"), [])
    store.gate.set()  # open while the tables are set up
    return Kit(tmp_path, store=store, fixed_seed=SEED, group_commit=True), store


async def turns(n: int = 20) -> None:
    """Let the loop run ``n`` turns (the tasks started go as far as they can)."""
    for _ in range(n):
        await asyncio.sleep(0)


def test_while_a_batch_is_in_flight_rooms_go_on_and_wait_for_the_next_batch(
    tmp_path: Path,
) -> None:
    """Room A's batch is in flight. Meanwhile A's second move and B's move apply at once; both
    wait, unsent and unwritten, for the next batch. When A's write lands its messages go out,
    then the next batch (A again, and B) is written, then its messages."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room_a, (ana, ben) = await table(kit, ["Ana", "Ben"])
        room_b, (cleo, _dan) = await table(kit, ["Cleo", "Dan"])
        v_a, v_b = room_a.version, room_b.version
        store.gate.clear()
        store.started.clear()
        store.events.clear()
        first = asyncio.create_task(ana.act("ready"))
        await turns()
        assert store.started == [[room_a.code]]
        later = [asyncio.create_task(ben.act("ready")), asyncio.create_task(cleo.act("ready"))]
        await turns()
        assert room_a.version == v_a + 2 and room_b.version == v_b + 1  # the loop went on
        assert store.started == [[room_a.code]] and told(store) == []  # nothing written or sent
        assert not first.done()
        store.gate.set()
        answers = await asyncio.gather(first, *later)
        assert not [m for a in answers for m in a if m["type"] == "error"], answers
        assert store.started == [[room_a.code], [room_a.code, room_b.code]]
        events = told(store)
        second = events.index(("write", [room_a.code, room_b.code]))
        assert events[0] == ("write", [room_a.code])
        assert {code for _, (code, _kind) in events[1:second]} == {room_a.code}, events
        assert [m["v"] for m in ana.got if m["type"] == "ready"] == [v_a + 1, v_a + 2]
        assert stored(store)[room_a.code][0] == v_a + 2
        assert stored(store)[room_b.code][0] == v_b + 1

    asyncio.run(main())


def test_a_failed_batch_in_flight_undoes_the_rooms_next_record_with_it(tmp_path: Path) -> None:
    """A's batch in flight fails (a full disk) while A's next move waits for the next batch: A
    goes back to its state before the first, both its senders are told ``unavailable``, none of
    its messages go out; B, in the next batch only, is stored and told."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room_a, (ana, ben) = await table(kit, ["Ana", "Ben"])
        room_b, (cleo, dan) = await table(kit, ["Cleo", "Dan"])
        before, on_disk, v_b = state_of(room_a), stored(store)[room_a.code], room_b.version
        store.gate.clear()
        store.fail_next = True
        marks = {p: len(p.got) for p in (ana, ben, dan)}
        first = asyncio.create_task(ana.act("ready"))
        await turns()
        later = [asyncio.create_task(ben.act("ready")), asyncio.create_task(cleo.act("ready"))]
        await turns()
        store.gate.set()
        a, b, c = await asyncio.gather(first, *later)
        assert [m.get("code") for m in a] == ["unavailable"]
        assert [m.get("code") for m in b] == ["unavailable"]
        assert not [m for m in c if m["type"] == "error"] and room_b.version == v_b + 1
        assert state_of(room_a) == before and stored(store)[room_a.code] == on_disk
        assert [m["type"] for m in ana.got[marks[ana] :]] == ["error"]
        assert not [m for m in ben.got[marks[ben] :] if m["type"] != "error"]
        assert dan.of("ready", marks[dan]) and stored(store)[room_b.code][0] == v_b + 1
        for phone in (ana, ben):  # the disk has room again: the same moves apply
            again = await phone.act("ready")
            assert not [m for m in again if m["type"] == "error"], again
        assert room_a.version == before["version"] + 2

    asyncio.run(main())


def test_closing_the_hub_waits_for_the_batch_in_flight(tmp_path: Path) -> None:
    """The server stops while a batch is in flight: the hub's close waits for it (and writes
    what is still open) before the store closes; the move is on disk."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room, (ana, _ben) = await table(kit, ["Ana", "Ben"])
        v = room.version
        store.gate.clear()
        move = asyncio.create_task(ana.act("ready"))
        await turns()
        closing = asyncio.create_task(kit.hub.close())
        await turns()
        assert not closing.done() and stored(store)[room.code][0] == v
        store.gate.set()
        await closing
        assert not [m for m in await move if m["type"] == "error"]
        assert Store(tmp_path / "crisp.sqlite3").rooms()[0][1]["version"] == v + 1

    asyncio.run(main())
