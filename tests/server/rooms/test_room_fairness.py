"""The server's side of the commit–reveal shuffle, in-process (tests/support/roomkit.py):
the
commitment is in the ``room`` message before anyone can start; each phone's ``client_seed`` is
fixed at the start, in seat order, and published in ``game``; the server seed is in no message,
view, log line or error before ``game_over``, and then in ``game_over`` and the finished record,
which ``crisp verify`` accepts; a rematch commits to a new seed and forgets the client seeds; the
``fixed_seed`` test setting is the engine's ``Fairness.from_int``; rooms stored by the old server
(tests/fixtures/legacy/crisp.sqlite3, SplitMix64) load, replay and finish."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from leakcheck import check_stream
from paths import TESTS
from roomkit import FakePhone, Kit, Msg

from crisp.engine.common.fairness import Fairness, seed_from_int
from crisp.engine.crisp.record import replay
from crisp.engine.crisp.shuffle import first_dealer, round_deck
from crisp.games.records import verify_main
from crisp.server.rooms.members import token_hash
from crisp.server.rooms.room import Room
from crisp.server.rooms.seeds import draw_server_seed

TIMED = {"limit": 50, "timer": 30, "take_discard": False}
HEX64 = re.compile(r"^[0-9a-f]{64}$")
ENGINE = frozenset(
    {
        "game",
        "round",
        "look",
        "ready",
        "turn",
        "draw",
        "recycle",
        "swap",
        "discard",
        "jack",
        "queen",
        "king",
        "take",
        "timeout",
        "turn_end",
        "window_closed",
        "crisp",
        "reveal",
        "game_over",
        "clock",
    }
)
LEGACY = TESTS / "fixtures" / "legacy"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def sha(hex_seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(hex_seed)).hexdigest()


def before_game_over(phone: FakePhone) -> list[Msg]:
    over = next((i for i, m in enumerate(phone.got) if m["type"] == "game_over"), len(phone.got))
    return phone.got[:over]


def secret_forms(seed_hex: str) -> list[str]:
    """The ways a 32-byte seed could be written in a message: hex either case, and its bytes
    as a JSON list of integers."""
    raw = bytes.fromhex(seed_hex)
    return [seed_hex, seed_hex.upper(), json.dumps(list(raw))[1:-1]]


def assert_no_seed(messages: list[Msg], seed_hex: str, who: str) -> None:
    for i, msg in enumerate(messages):
        text = json.dumps(msg)
        for form in secret_forms(seed_hex):
            assert form not in text, f"{who}: message {i} ({msg['type']}) carries the server seed"


async def seats_with_bots(kit: Kit, humans: list[str], bots: int) -> tuple[Room, list[FakePhone]]:
    """A lobby of ``humans`` (connected; the first is the host) and ``bots`` hard bots."""
    room = kit.hub.create_room()
    phones = []
    for name in humans:
        _, token = room.join(name)
        phones.append(await FakePhone(kit, room, token, name).connect())
    await phones[0].say({"type": "options", **TIMED})
    for _ in range(bots):
        await phones[0].say({"type": "add_bot", "level": "hard"})
    return room, phones


def no_errors(answer: list[Msg]) -> None:
    assert not [m for m in answer if m["type"] == "error"], answer


def test_commit_before_start_seeds_at_start_reveal_at_the_end(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The commitment reaches every phone and the watcher in the lobby; the client seeds sent
    there are the ``game`` message's, in seat order (a bot's is ""); the server seed is in
    nothing before ``game_over`` (messages, views, the leak checker's streams, log lines), then
    in ``game_over`` and the record, which ``crisp verify`` accepts (exit 0)."""
    caplog.set_level(logging.DEBUG)

    async def main() -> None:
        kit = Kit(tmp_path)
        room, (ana, ben) = await seats_with_bots(kit, ["Ana", "Ben"], 1)
        watcher = await FakePhone(kit, room, None, "watcher").connect()
        seed = room.lobby.server_seed
        assert seed is not None and HEX64.match(seed)
        commitment = sha(seed)
        for phone in (ana, ben, watcher):
            assert phone.last("room")["commitment"] == commitment, phone.label
        no_errors(await ana.say({"type": "client_seed", "seed": "a1b2"}))
        no_errors(await ben.say({"type": "client_seed", "seed": "first"}))
        no_errors(await ben.say({"type": "client_seed", "seed": "Bén ✓"}))  # the last counts
        seeded = {m["name"]: m["seeded"] for m in watcher.last("room")["members"]}
        assert seeded == {"Ana": True, "Ben": True, "Ada (bot)": False}
        assert "Bén ✓" not in json.dumps(watcher.got)  # not shown before the start
        for bad, code in (
            ("", "bad_message"),
            ("x" * 65, "bad_message"),
            ("\ud800", "bad_message"),
        ):
            err = (await ana.say({"type": "client_seed", "seed": bad}))[-1]
            assert (err["type"], err["code"]) == ("error", code), err
        err = (await watcher.say({"type": "client_seed", "seed": "w"}))[-1]
        assert err["code"] == "forbidden", err
        no_errors(await ana.say({"type": "start"}))
        game = ana.last("game")
        assert game["commitment"] == commitment
        assert game["client_seeds"] == ["a1b2", "Bén ✓", ""]
        assert watcher.last("game") == {**game}
        err = (await ana.say({"type": "client_seed", "seed": "late"}))[-1]
        assert err["code"] == "bad_phase", err
        assert "server_seed" not in ana.last("state")["view"]["fairness"]
        await kit.jump_until(lambda: room.lobby.phase == "over")
        for phone in (ana, ben, watcher):
            assert_no_seed(before_game_over(phone), seed, phone.label)
            assert phone.last("game_over")["server_seed"] == seed
            assert phone.last("room")["commitment"] == commitment
        record = json.loads(json.dumps(room.last_record))
        assert record["fairness"] == {
            "commitment": commitment,
            "server_seed": seed,
            "client_seeds": ["a1b2", "Bén ✓", ""],
        }
        assert record["shuffle"] == "hmac-sha256/1"
        assert all("dealer" in r and len(r["deck"]) == 52 for r in record["rounds"])
        for seat, phone in ((0, ana), (1, ben), (None, watcher)):
            stream = [m for m in phone.got if m["type"] in ENGINE]
            stream = [{k: v for k, v in m.items() if k != "v"} for m in stream]
            assert check_stream(record, stream, seat) == [], phone.label
        path = tmp_path / "downloaded.json"
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        assert verify_main([str(path)]) == 0
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert all(form not in logged for form in secret_forms(seed))
        print(f"a game of {len(record['rounds'])} rounds, verified")

    run(main())


def test_a_rematch_commits_to_a_new_seed_and_forgets_the_client_seeds(tmp_path: Path) -> None:
    """After the game, the rematch's lobby has a new server seed and commitment (sent at once),
    no member is ``seeded``, and a start without new client seeds fixes empty ones; the new seed
    is in no message of the second game before its own ``game_over``."""

    async def main() -> None:
        kit = Kit(tmp_path)
        room, (ana,) = await seats_with_bots(kit, ["Ana"], 2)
        no_errors(await ana.say({"type": "client_seed", "seed": "c0ffee"}))
        no_errors(await ana.say({"type": "start"}))
        first = ana.last("game")["commitment"]
        await kit.jump_until(lambda: room.lobby.phase == "over")
        mark = len(ana.got)
        no_errors(await ana.say({"type": "rematch"}))
        lobby_msg = ana.last("room")
        assert lobby_msg["phase"] == "lobby"
        second = lobby_msg["commitment"]
        assert HEX64.match(second) and second != first
        assert room.lobby.server_seed is not None and sha(room.lobby.server_seed) == second
        assert not any(m["seeded"] for m in lobby_msg["members"])
        no_errors(await ana.say({"type": "start"}))
        game = ana.last("game")
        assert (game["commitment"], game["client_seeds"]) == (second, ["", "", ""])
        new_seed = room.lobby.server_seed
        await kit.jump_until(lambda: room.lobby.phase == "over")
        second_game = ana.got[mark:]
        end = next(i for i, m in enumerate(second_game) if m["type"] == "game_over")
        assert_no_seed(second_game[:end], new_seed, "Ana")
        assert second_game[end]["server_seed"] == new_seed

    run(main())


def test_fixed_seed_is_fairness_from_int(tmp_path: Path) -> None:
    """The ``fixed_seed`` test setting S: the server seed is ``seed_from_int(S)`` (committed in
    the lobby) and every client seed is empty whatever the phones send, so the game deals as
    ``Fairness.from_int(S, n)``: known decks and first dealer."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=5)
        room = kit.hub.create_room()
        assert room.lobby.server_seed == seed_from_int(5).hex() == draw_server_seed(5)
        phones = []
        for name in ("Ana", "Ben"):
            _, token = room.join(name)
            phones.append(await FakePhone(kit, room, token, name).connect())
        fair = Fairness.from_int(5, 2)
        assert phones[1].last("room")["commitment"] == fair.commitment()
        no_errors(await phones[1].say({"type": "client_seed", "seed": "ignored"}))
        no_errors(await phones[0].say({"type": "start"}))
        assert phones[0].last("game")["client_seeds"] == ["", ""]
        assert room.match is not None
        rnd = room.match.record()["rounds"][0]
        assert (rnd["dealer"], rnd["deck"]) == (first_dealer(fair, 2), round_deck(fair, 1))

    run(main())


def test_seeds_are_stored_and_survive_a_restart(tmp_path: Path) -> None:
    """The lobby's server seed and client seeds are in its stored state: after a crash the same
    commitment is published and the same client seeds are fixed at the start."""

    async def main() -> None:
        kit = Kit(tmp_path)
        room, phones = await seats_with_bots(kit, ["Ana", "Ben"], 0)
        await phones[1].say({"type": "client_seed", "seed": "b0b"})
        commitment = phones[0].last("room")["commitment"]
        kit.crash()
        kit2 = kit.reopen()
        back = kit2.hub.rooms[room.code]
        ana = await FakePhone(kit2, back, phones[0].token, "Ana").connect()
        assert ana.last("room")["commitment"] == commitment
        no_errors(await ana.say({"type": "start"}))
        assert ana.last("game")["client_seeds"] == ["", "b0b"]
        assert ana.last("game")["commitment"] == commitment

    run(main())


# -- rooms stored before the commit–reveal shuffle -------------------------------------------


def legacy_copy(tmp_path: Path) -> dict[str, str]:
    """The old server's SQLite file, copied, with every member's token hash replaced by the hash
    of a token the test knows (``"<code>:<member id>"``), so phones can connect."""
    data = tmp_path / "data"
    data.mkdir()
    db_path = data / "crisp.sqlite3"
    shutil.copy(LEGACY / "crisp.sqlite3", db_path)
    with sqlite3.connect(db_path) as db:
        for code, text in db.execute("SELECT code, state FROM rooms").fetchall():
            state = json.loads(text)
            for m in state["members"]:
                m["token_hash"] = token_hash(f"{code}:{m['id']}")
            db.execute("UPDATE rooms SET state = ? WHERE code = ?", (json.dumps(state), code))
    return json.loads((LEGACY / "sqlite-expected.json").read_text())["rooms"]


def digest(record: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def test_legacy_rooms_load_and_finish(tmp_path: Path) -> None:
    """The old server's rooms (make_sqlite.py): the game in play rebuilds to the old record
    (SplitMix64, no fairness, commitment null) and plays on to its end with stand-in bots; the
    finished one's record is the old one and its rematch deals with the new shuffle, verified;
    the lobby draws a server seed on load and keeps it across a restart."""
    codes = legacy_copy(tmp_path)
    expected = json.loads((LEGACY / "sqlite-expected.json").read_text())

    async def main() -> None:
        kit = Kit(tmp_path / "data", between_rounds_s=2)
        kit.hub.load()
        rooms = kit.hub.rooms
        assert set(rooms) == set(codes.values())
        playing, over, lobby = (rooms[codes[k]] for k in ("playing", "over", "lobby"))
        assert playing.match is not None
        assert digest(playing.match.record()) == expected["playing"]["record"]
        assert over.last_record is not None
        assert digest(over.last_record) == expected["over"]["record"]
        # the game in play: its host comes back, bots stand in for the others, it finishes
        host = await FakePhone(kit, playing, f"{playing.code}:1", "Ana").connect()
        assert host.last("room")["commitment"] is None
        assert "fairness" not in host.last("state")["view"]
        for seat in (1, 2):
            no_errors(await host.say({"type": "bot", "seat": seat, "level": "hard"}))
        await kit.jump_until(lambda: playing.lobby.phase == "over")
        record = playing.last_record
        assert record is not None and "fairness" not in record and "seed" not in record
        assert "server_seed" not in host.last("game_over")
        result = replay(record).result
        assert result["over"] and result["totals"] == host.last("game_over")["totals"]
        # the finished game: a rematch commits, deals by hmac-sha256/1 and verifies
        dev = await FakePhone(kit, over, f"{over.code}:1", "Dev").connect()
        no_errors(await dev.say({"type": "rematch"}))
        assert HEX64.match(dev.last("room")["commitment"])
        await dev.say({"type": "client_seed", "seed": "dev"})
        no_errors(await dev.say({"type": "options", **TIMED}))
        no_errors(await dev.say({"type": "start"}))
        no_errors(await dev.say({"type": "bot", "seat": 1, "level": "hard"}))
        await kit.jump_until(lambda: over.lobby.phase == "over")
        assert over.last_record is not None
        assert over.last_record["fairness"]["client_seeds"] == ["dev", ""]
        path = tmp_path / "rematch.json"
        path.write_text(json.dumps(over.last_record))
        assert verify_main([str(path)]) == 0
        # the lobby: a server seed drawn on load, stored at once
        committed = sha(lobby.lobby.server_seed or "")
        kit.crash()
        again = kit.reopen()
        assert again.hub.rooms[codes["lobby"]].lobby.commitment() == committed

    run(main())
