"""A failed save changes nothing (the room pipeline: validate → apply → write → send): after a
write fails, the match, the version, the stored log and every seat's view are exactly as before,
the sender is told ``unavailable``, the others see nothing; once writes work again the game plays
on, and a restart rebuilds the same state. In-process, with a store that fails on demand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from roomkit import FailingStore, FakePhone, Kit

from crisp.server.store.sqlite import Store

SEED = 11


def snapshot(kit: Kit, room: Any, phones: list[FakePhone]) -> dict[str, Any]:
    """Everything a failed write must leave as it was."""
    stored = {code: (state, entries) for code, state, _, entries in kit.store.rooms()}
    return {
        "version": room.version,
        "log_seq": room.log_seq,
        "lobby": room.lobby.to_state(),
        "views": [
            json.dumps(room.match.view(s), sort_keys=True) if room.match else None
            for s in (None, *range(len(phones)))
        ],
        "record": json.dumps(room.match.record()) if room.match else None,
        "floors": list(room.floors),
        "stored": json.dumps(stored[room.code], sort_keys=True, default=str),
        "now": room.match.last_time() if room.match else None,
    }


async def due_phone(room: Any, phones: list[FakePhone]) -> FakePhone:
    turn = phones[0].last("turn")
    return phones[turn["seat"]]


def make_kit(tmp_path: Path) -> tuple[Kit, FailingStore]:
    inner = Store(tmp_path / "crisp.sqlite3")
    store = FailingStore(inner)
    return Kit(tmp_path, store=store, fixed_seed=SEED), store


def test_a_failed_write_mid_game_changes_nothing_and_the_game_plays_on(tmp_path: Path) -> None:
    """Disk full during play: a ready, a draw, a swap and a call each fail with ``unavailable``
    and leave everything as it was; the other seats get nothing; then the disk has room again
    and the same moves apply; a restart from the store rebuilds the same views."""
    import asyncio

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room, phones = await kit.table(["Ana", "Ben", "Cleo"])
        ana = phones[0]

        async def refused_then_applied(phone: FakePhone, do: str, **fields: Any) -> list[Any]:
            before = snapshot(kit, room, phones)
            marks = [len(p.got) for p in phones]
            store.failing = True
            answer = await phone.act(do, **fields)
            store.failing = False
            assert [m["type"] for m in answer] == ["error"], answer
            assert answer[0]["code"] == "unavailable" and answer[0]["about"] == "act"
            assert "nothing was changed" in answer[0]["message"]
            assert snapshot(kit, room, phones) == before, f"{do}: the failed write changed the room"
            for p, mark in zip(phones, marks, strict=True):
                if p is not phone:
                    assert p.got[mark:] == [], f"{p.label} was told of a change that was undone"
            again = await phone.act(do, **fields)
            assert not [m for m in again if m["type"] == "error"], (do, again)
            assert room.version == before["version"] + 1
            return again

        await refused_then_applied(ana, "ready")
        for p in phones[1:]:
            await p.act("ready")
        first = await due_phone(room, phones)
        drawn = await refused_then_applied(first, "draw")
        assert any(m["type"] == "draw" and "card" in m for m in drawn)
        await refused_then_applied(first, "swap", slot="left")
        await kit.until(lambda: room.match.view(None)["round"]["turn"]["at"] <= room.game_now())
        nxt = await due_phone(room, phones)
        await nxt.act("draw")
        await nxt.act("discard")
        caller = phones[nxt.seat or 0]
        await refused_then_applied(caller, "crisp")

        state = snapshot(kit, room, phones)
        reopened = kit.reopen(store=Store(tmp_path / "crisp.sqlite3"))
        again = reopened.hub.rooms[room.code]
        assert again.version == state["version"]
        for seat in (None, 0, 1, 2):
            assert again.match is not None and room.match is not None
            assert again.match.view(seat) == room.match.view(seat)

    asyncio.run(main())


def test_failed_lobby_writes_change_nothing(tmp_path: Path) -> None:
    """In the lobby: a join, an option change, an added bot and the start each fail with
    ``unavailable`` when the store cannot write, and change nothing; they work once it can."""
    import asyncio

    async def main() -> None:
        kit, store = make_kit(tmp_path)
        room = kit.hub.create_room()
        _, token = room.join("Ana")
        ana = await FakePhone(kit, room, token, "Ana").connect()
        for msg in (
            {"type": "options", "limit": 50, "timer": 30, "take_discard": True},
            {"type": "add_bot", "level": "normal"},
            {"type": "start"},
        ):
            before = (room.version, room.lobby.to_state(), room.log_seq)
            store.failing = True
            answer = await ana.say(msg)
            store.failing = False
            assert [m["code"] for m in answer if m["type"] == "error"] == ["unavailable"], answer
            assert (room.version, room.lobby.to_state(), room.log_seq) == before, msg
            answer = await ana.say(msg)
            assert not [m for m in answer if m["type"] == "error"], (msg, answer)
        assert room.lobby.phase == "playing" and room.match is not None
        store.failing = True
        with pytest.raises(Exception) as caught:
            room.join("Ben")
            wait = room.settled()  # group commit: the failure comes with the turn's commit
            if wait is not None:
                await wait
        assert getattr(caught.value, "code", None) == "unavailable"
        names = [m.name for m in room.lobby.members.values()]
        assert len(names) == 2 and "Ben" not in names, names  # Ana and the bot

    asyncio.run(main())
