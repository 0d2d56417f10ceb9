"""Rooms in-process for tests: a real ``Hub`` with a ``ManualClock`` (time moves only when the
test says), a store of the test's choice, and phones that are plain objects (``FakePhone``) whose
messages land in a list. Nothing sleeps: ``await kit.advance(s)`` runs every timer due in ``s``
real seconds, in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from crisp.server.clock import ManualClock
from crisp.server.registry import Registry
from crisp.server.rooms.hub import Hub
from crisp.server.rooms.room import Room
from crisp.server.settings import Settings
from crisp.server.store.sqlite import Storage, Store
from crisp.server.wire.closecodes import CloseCode

Msg = dict[str, Any]


class FailingStore:
    """A store whose writes fail while ``failing`` is set (a full disk)."""

    def __init__(self, inner: Storage) -> None:
        self.inner = inner
        self.failing = False
        self.writes = 0

    def write(
        self, code: str, state: Any, entries: Iterable[Any], updated: float, version: int
    ) -> None:
        if self.failing:
            raise OSError(28, "No space left on device")
        self.writes += 1
        self.inner.write(code, state, entries, updated, version)

    def rooms(self) -> Any:
        return self.inner.rooms()

    def delete(self, code: str) -> None:
        self.inner.delete(code)

    def exists(self, code: str) -> bool:
        return self.inner.exists(code)

    def close(self) -> None:
        self.inner.close()


class FakePhone:
    """A connection as the room sees it (``Peer``), keeping every message it is sent."""

    def __init__(self, kit: Kit, room: Room, token: str | None, label: str = "") -> None:
        self.kit = kit
        self.room = room
        self.token = token
        self.label = label
        self.member: int | None = None
        self.seat: int | None = None
        self.greeted = False
        self.closed = False
        self.arrays = False  # this fake gets each message alone (the room never frames)
        self.close_code: CloseCode | None = None
        self.got: list[Msg] = []

    # -- Peer ---------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        if not self.closed:
            self.got.append(json.loads(text))

    def close(self, code: CloseCode) -> None:
        self.closed = True
        self.close_code = code

    # -- the test's side ----------------------------------------------------------------------

    async def connect(self) -> FakePhone:
        self.room.conns.add(self)
        await self.say({"type": "hello", "token": self.token})
        return self

    async def say(self, msg: Msg) -> list[Msg]:
        """Send one message; what this phone got in answer (once its commit has landed). With
        ``Kit.direct``, as the server's direct path hands it over (``Hub.receive_now``)."""
        start = len(self.got)
        text = json.dumps(msg)
        hub = self.kit.hub
        if self.kit.direct and hub.receive_now(self.room, self, text):
            commit = self.room.settled()
            if commit is not None:  # its callbacks (the refusal told) run before this wakes
                await asyncio.wait([commit])
        else:
            await hub.receive(self.room, self, text)
        return self.got[start:]

    async def act(self, do: str, **fields: Any) -> list[Msg]:
        return await self.say({"type": "act", "v": self.room.version, "do": do, **fields})

    async def drop(self) -> None:
        self.closed = True
        await self.kit.hub.disconnected(self.room, self)

    def of(self, kind: str, since: int = 0) -> list[Msg]:
        return [m for m in self.got[since:] if m.get("type") == kind]

    def last(self, kind: str) -> Msg:
        found = self.of(kind)
        assert found, f"{self.label}: no {kind!r} message in {[m['type'] for m in self.got]}"
        return found[-1]

    def errors(self) -> list[Msg]:
        return self.of("error")

    def engine(self, kinds: set[str]) -> list[Msg]:
        return [m for m in self.got if m.get("type") in kinds]


class Kit:
    """A hub on a store in ``data_dir``, its clock moved by hand."""

    direct = False  # the phones' messages handed over as the direct path does (not awaited)

    def __init__(
        self,
        data_dir: Path,
        *,
        store: Storage | None = None,
        registry: Registry | None = None,
        clock: ManualClock | None = None,
        **settings: Any,
    ) -> None:
        self.settings = Settings(data_dir=data_dir, **settings)
        self.clock = clock or ManualClock()
        self.store = store or Store(self.settings.db_path)
        self.games = registry or Registry.load(self.settings.games)
        self.hub = Hub(self.settings, self.store, self.clock, self.games)

    def reopen(self, store: Storage | None = None) -> Kit:
        """The same data directory after a crash: a new hub loads every room (same clock)."""
        kit = Kit(
            self.settings.data_dir,
            store=store,
            registry=self.games,
            clock=self.clock,
            **self.settings.model_dump(exclude={"data_dir"}),
        )
        kit.hub.load()
        return kit

    def crash(self) -> None:
        """The process dies: its timers never fire again (the store is left as it is)."""
        for room in self.hub.rooms.values():
            room.stop_timers()

    async def jump_until(self, pred: Callable[[], bool], limit: int = 100_000) -> float:
        """Jump from timer to timer until ``pred()``; the real seconds it took."""
        start = self.clock.now()
        for _ in range(limit):
            if pred():
                return self.clock.now() - start
            when = self.clock.next_timer()
            assert when is not None, "nothing is due, and it never happened"
            await self.clock.run_until(when)
        raise AssertionError("it never happened")

    async def advance(self, seconds: float) -> None:
        await self.clock.advance(seconds)

    async def until(
        self, pred: Callable[[], bool], limit: float = 600.0, step: float = 0.05
    ) -> float:
        """Move time in ``step`` s until ``pred()``; the real seconds it took."""
        start = self.clock.now()
        while not pred():
            assert self.clock.now() - start < limit, "it never happened"
            await self.clock.advance(step)
        return self.clock.now() - start

    async def table(
        self, names: list[str], game: str | None = None, options: Msg | None = None
    ) -> tuple[Room, list[FakePhone]]:
        """A room with ``names`` joined and connected (the first is the host), started."""
        room = self.hub.create_room(game)
        phones = []
        for name in names:
            _, token = room.join(name)
            phones.append(await FakePhone(self, room, token, name).connect())
        if options is not None:
            await phones[0].say({"type": "options", **options})
        answer = await phones[0].say({"type": "start"})
        assert not [m for m in answer if m["type"] == "error"], answer
        return room, phones
