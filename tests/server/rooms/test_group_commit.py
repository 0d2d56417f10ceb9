"""Group commit (crisp/server/rooms/batch.py): the rooms changed in one event-loop turn
are written in ONE store transaction, and each room's messages go out only after it. A failed
commit undoes every room of the batch and each sender is told ``unavailable``; a room another
node claimed (``LeaseLost``) is dropped with ``moved`` and the rest of the batch is stored.
In-process (roomkit: a real hub, a hand-moved clock, phones that are lists), with stores that
count and fail on demand; ``group_commit=False`` is the old path, one transaction a change. Each
test runs with the messages awaited (the ASGI path) and handed over at once (the direct path)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from roomkit import FakePhone, Kit

from crisp.server.rooms.commit import UNAVAILABLE
from crisp.server.rooms.room import Room
from crisp.server.store.leases import LeaseLost
from crisp.server.store.sqlite import Row, Store

SEED = 11


class CountingStore:
    """A SQLite store that counts its transactions, records the order of writes among the
    phones' messages (``events``), fails while ``failing``, and loses ``lost`` (``LeaseLost``)."""

    def __init__(self, inner: Store, events: list[tuple[str, Any]]) -> None:
        self.inner = inner
        self.events = events
        self.failing = False
        self.lost: str | None = None
        self.batches: list[list[str]] = []  # the codes of each transaction tried

    def write(self, code: str, state: Any, entries: Any, updated: float, version: int) -> None:
        self.write_many([(code, state, entries, updated, version)])

    def write_many(self, rows: Sequence[Row]) -> None:
        rows = [(c, s, list(e), u, v) for c, s, e, u, v in rows]
        codes = [row[0] for row in rows]
        self.batches.append(codes)
        if self.failing:
            raise OSError(28, "No space left on device")
        if self.lost in codes:
            raise LeaseLost(self.lost)
        self.inner.write_many(rows)
        self.events.append(("write", codes))

    def rooms(self) -> Any:
        return self.inner.rooms()

    def delete(self, code: str) -> None:
        self.inner.delete(code)

    def exists(self, code: str) -> bool:
        return self.inner.exists(code)

    def close(self) -> None:
        self.inner.close()


class Phone(FakePhone):
    """A fake phone that also records, in the store's ``events``, when it is sent something."""

    def send(self, text: str) -> None:
        if not self.closed:
            self.kit.store.events.append(("send", (self.room.code, json.loads(text)["type"])))  # type: ignore[attr-defined]
        super().send(text)


@pytest.fixture(autouse=True, params=["awaited", "direct"])
def receiving(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test twice: the phones' messages awaited one by one (the ASGI path), and handed
    over as they are parsed (the direct path, ``Hub.receive_now``): the same contract."""
    monkeypatch.setattr(Kit, "direct", request.param == "direct")


def make_kit(tmp_path: Path, **settings: Any) -> tuple[Kit, CountingStore]:
    store = CountingStore(Store(tmp_path / "crisp.sqlite3"), [])
    settings.setdefault("group_commit", True)  # whatever CRISP_GROUP_COMMIT says
    return Kit(tmp_path, store=store, fixed_seed=SEED, **settings), store


async def table(kit: Kit, names: list[str]) -> tuple[Room, list[FakePhone]]:
    """Like ``Kit.table``, with phones that record their messages among the store's writes."""
    room = kit.hub.create_room()
    phones: list[FakePhone] = []
    for name in names:
        _, token = room.join(name)
        phones.append(await Phone(kit, room, token, name).connect())
    answer = await phones[0].say({"type": "start"})
    assert not [m for m in answer if m["type"] == "error"], answer
    return room, phones


def state_of(room: Room) -> dict[str, Any]:
    """Everything a failed commit must leave as it was."""
    return {
        "version": room.version,
        "log_seq": room.log_seq,
        "lobby": room.lobby.to_state(),
        "views": [
            json.dumps(room.match.view(s), sort_keys=True) if room.match else None
            for s in (None, 0, 1)
        ],
        "floors": list(room.floors),
    }


def told(store: CountingStore) -> list[tuple[str, Any]]:
    """The store's writes and the phones' messages in order, without the round-trip probes
    (``probe`` carries no state of the room: it goes out at once)."""
    return [e for e in store.events if e[0] == "write" or e[1][1] != "probe"]


def stored(store: CountingStore) -> dict[str, tuple[int, int]]:
    """Each stored room's version and number of log entries."""
    return {code: (state["version"], len(log)) for code, state, _, log in store.rooms()}


def test_two_rooms_changed_in_one_turn_are_one_transaction(tmp_path: Path) -> None:
    """Two rooms' moves handled in the same loop turn: one ``write_many`` of both rooms (one
    transaction), each sender's answer after it; with ``group_commit`` off, two transactions."""

    async def main(group: bool) -> list[list[str]]:
        kit, store = make_kit(tmp_path / str(group), group_commit=group)
        room_a, (ana, _ben) = await table(kit, ["Ana", "Ben"])
        room_b, (cleo, _dan) = await table(kit, ["Cleo", "Dan"])
        store.batches.clear()
        a, b = await asyncio.gather(ana.act("ready"), cleo.act("ready"))
        assert not [m for m in a + b if m["type"] == "error"], (a, b)
        assert stored(store)[room_a.code][0] == room_a.version
        assert stored(store)[room_b.code][0] == room_b.version
        return store.batches

    batches = asyncio.run(main(True))
    assert len(batches) == 1 and len(batches[0]) == 2, batches
    assert len(asyncio.run(main(False))) == 2


def test_a_room_changed_twice_in_one_turn_numbers_its_versions_and_log_in_order(
    tmp_path: Path,
) -> None:
    """Two moves of one room in one turn: one row in one transaction, versions v+1 and v+2 on
    the messages, the log numbered on without a gap, and a restart rebuilds the same room."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room, (ana, ben) = await table(kit, ["Ana", "Ben"])
        v, seq = room.version, room.log_seq
        store.batches.clear()
        a, b = await asyncio.gather(ana.act("ready"), ben.act("ready"))
        assert not [m for m in a + b if m["type"] == "error"], (a, b)
        assert store.batches == [[room.code]]
        assert room.version == v + 2 and room.log_seq == seq + 2
        versions = [m["v"] for m in ana.got if m["type"] == "ready"]
        assert versions == [v + 1, v + 2], versions
        assert stored(store)[room.code] == (v + 2, seq + 2)
        again = kit.reopen(store=Store(tmp_path / "crisp.sqlite3")).hub.rooms[room.code]
        assert again.version == room.version and again.log_seq == room.log_seq
        assert again.match is not None and room.match is not None
        assert again.match.view(0) == room.match.view(0)

    asyncio.run(main())


def test_nothing_is_sent_before_its_commit(tmp_path: Path) -> None:
    """The order of writes and sends as they happen: every message of a change comes after the
    write of its room's batch (none of either room between the moves and the commit)."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room_a, (ana, _ben) = await table(kit, ["Ana", "Ben"])
        room_b, (cleo, _dan) = await table(kit, ["Cleo", "Dan"])
        store.events.clear()
        await asyncio.gather(ana.act("ready"), cleo.act("ready"))
        events = told(store)
        assert events[0] == ("write", [room_a.code, room_b.code]), events[:3]
        assert [kind for kind, _ in events].count("write") == 1 and len(events) >= 5
        # and a timer's change too: the look phase ends by the clock, written before it is told
        store.events.clear()
        await kit.until(lambda: bool(told(store)))
        assert told(store)[0][0] == "write", told(store)[:3]

    asyncio.run(main())


def test_a_failed_batch_restores_both_rooms_and_each_sender_is_told_unavailable(
    tmp_path: Path,
) -> None:
    """A commit that fails (a full disk) undoes every room of the batch, each back to its state
    before its first change of the batch (one room changed twice); each sender gets
    ``unavailable``, no one else hears of it; once the disk has room, the same moves apply."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room_a, (ana, ben) = await table(kit, ["Ana", "Ben"])
        room_b, (cleo, dan) = await table(kit, ["Cleo", "Dan"])
        before = {room_a.code: state_of(room_a), room_b.code: state_of(room_b)}
        on_disk = stored(store)
        marks = {p: len(p.got) for p in (ana, ben, cleo, dan)}
        store.failing = True
        answers = await asyncio.gather(ana.act("ready"), ben.act("ready"), cleo.act("ready"))
        store.failing = False
        for answer in answers:
            assert [(m["type"], m.get("code")) for m in answer] == [("error", "unavailable")]
            assert answer[0]["message"] == UNAVAILABLE and answer[0]["about"] == "act"
        assert dan.got[marks[dan] :] == []
        assert state_of(room_a) == before[room_a.code] and state_of(room_b) == before[room_b.code]
        assert stored(store) == on_disk
        for phone in (ana, ben, cleo):
            again = await phone.act("ready")
            assert not [m for m in again if m["type"] == "error"], again
        assert room_a.version == before[room_a.code]["version"] + 2

    asyncio.run(main())


def test_a_lost_room_is_dropped_with_moved_and_the_rest_of_its_batch_is_stored(
    tmp_path: Path,
) -> None:
    """``LeaseLost`` for one room of a batch (another node claimed it): that room is undone and
    dropped, its sender told ``unavailable`` (moved) and its sockets closed; the transaction is
    tried again without it and the other room's move is stored and sent."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room_a, (ana, ben) = await table(kit, ["Ana", "Ben"])
        room_b, (cleo, _dan) = await table(kit, ["Cleo", "Dan"])
        v_b = room_b.version
        store.lost = room_a.code
        store.batches.clear()
        a, b = await asyncio.gather(ana.act("ready"), cleo.act("ready"))
        assert store.batches == [[room_a.code, room_b.code], [room_b.code]]
        # the sender's refusal (MOVED) finds its socket closed with MOVED, as before group commit
        assert a == [] and ana.closed and ben.closed
        assert ana.close_code is not None and ana.close_code.name == "MOVED"
        assert not [m for m in b if m["type"] == "error"] and room_b.version == v_b + 1
        assert stored(store)[room_b.code][0] == v_b + 1
        assert room_a.code not in kit.hub.rooms

    asyncio.run(main())


@pytest.mark.parametrize("group", [True, False])
def test_an_http_join_is_answered_after_its_commit(tmp_path: Path, group: bool) -> None:
    """``POST /api/rooms`` and ``POST /api/rooms/CODE/join`` answer once the join is stored (the
    real app on a virtual loop, simserver.py); a failed commit answers 503 ``unavailable`` and
    the member is not there; with either setting."""
    import simserver

    async def main() -> None:
        with simserver.SimServer(tmp_path, group_commit=group) as server:
            hub = server.hub
            store = CountingStore(hub.store, [])
            hub.store = store
            hub.batch.store = store
            made = await server.create_room("Ana")
            code = made["code"]
            assert stored(store)[code][0] == 1  # stored before the answer
            store.failing = True
            status, body = await server.request("POST", f"/api/rooms/{code}/join", {"name": "B"})
            store.failing = False
            assert (status, body["code"]) == (503, "unavailable"), body
            status, summary = await server.request("GET", f"/api/rooms/{code}")
            assert [m["name"] for m in summary["members"]] == ["Ana"]
            await server.join(code, "Ben")
            assert stored(store)[code][0] == 2

    simserver.run(main)


def test_a_hello_in_a_failed_batch_is_welcomed_as_the_room_was(tmp_path: Path) -> None:
    """A watcher says hello in the same turn as a move whose batch fails: its welcome and state
    were queued behind the commit, so they are dropped with the move and sent again from the
    restored room (the state at the version before the move, not the undone one)."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room, (ana, _ben) = await table(kit, ["Ana", "Ben"])
        v = room.version
        watcher = Phone(kit, room, None, "tv")
        store.failing = True
        answer, _ = await asyncio.gather(ana.act("ready"), watcher.connect())
        store.failing = False
        assert [m.get("code") for m in answer] == ["unavailable"]
        kinds = [m["type"] for m in watcher.got]
        assert kinds.count("welcome") == 1 and "state" in kinds, kinds
        assert watcher.last("state")["v"] == v and room.version == v
        assert not [m for m in watcher.got if m["type"] == "ready"]

    asyncio.run(main())


@pytest.mark.parametrize("failing", [False, True])
def test_a_bad_token_in_a_batch_is_told_and_closed_whatever_the_commit(
    tmp_path: Path, failing: bool
) -> None:
    """A hello with a wrong seat token, in the same turn as another phone's move: its
    ``unauthorized`` error and its close wait behind the room's commit, and happen even if that
    commit fails (the error then at the restored version)."""

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room, (ana, _ben) = await table(kit, ["Ana", "Ben"])
        v = room.version
        stranger = Phone(kit, room, "not-a-token", "stranger")
        store.failing = failing
        await asyncio.gather(ana.act("ready"), stranger.connect())
        store.failing = False
        errors = [(m["code"], m["v"]) for m in stranger.errors()]
        assert errors == [("unauthorized", v if failing else v + 1)], stranger.got
        assert stranger.closed and stranger.close_code is not None
        assert stranger.close_code.name == "UNAUTHORIZED"

    asyncio.run(main())
