"""Crisps! through the server: a whole game of two seats and a watcher over the real app and
WebSockets (the record it serves replays with ``crisp replay`` to the very messages each phone
got, and every stream passes the leak checker), and in-process rooms on a hand-moved clock: a
game against a bot, a reconnect mid-trick, the timer (CS-TIMEOUT), refusals with their rule
ids, a crash and recovery, and the rematch."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from inthread import serving
from leakcheck import check_crisps_stream, check_crisps_view, crisps_model_after
from leakcheck_crisps import KEYS, strip_server
from roomkit import FakePhone, Kit
from websockets.sync.client import connect

from crisp.cli import main as crisp_main
from crisp.engine.crisps.record import replay
from crisp.server.app import create_app
from crisp.server.rooms.room import Room
from crisp.server.settings import Settings

Msg = dict[str, Any]
TIMED = {"no_faceup": False, "crisp_runs": False, "auto_skip": True, "timer": 30}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def post(base: str, path: str, body: Msg) -> tuple[int, Msg]:
    req = urllib.request.Request(
        f"http://{base}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def receive_until(ws: Any, pred: Any, seen: list[Msg], limit: int = 20_000) -> Msg:
    for _ in range(limit):
        msg = json.loads(ws.recv(timeout=10))
        seen.append(msg)
        if pred(msg):
            return msg
    raise AssertionError(f"never came; last: {seen[-3:]}")


def seen_or_receive(ws: Any, pred: Any, seen: list[Msg]) -> Msg:
    """The message already received that ``pred`` picks, or the next one to come."""
    return next((m for m in seen if pred(m)), None) or receive_until(ws, pred, seen)


def choose(turn: Msg, rng: random.Random) -> Msg:
    """A random legal move from the ``turn`` sent to the due seat."""
    moves: list[Msg] = [{"do": "play", "cards": p["cards"]} for p in turn["legal"]]
    if turn["can_pass"]:
        moves.append({"do": "pass"})
    moves += [{"do": "draw", "take": t} for t in turn["take"]]
    return rng.choice(moves)


def engine_only(msgs: list[Msg]) -> list[Msg]:
    return [{k: v for k, v in m.items() if k != "v"} for m in msgs if m["type"] in KEYS]


def test_whole_game_two_seats_a_watcher_and_the_record_replays(tmp_path: Path, capsys: Any) -> None:
    app = create_app(Settings(data_dir=tmp_path, rate_per_s=1000, rate_burst=1000))
    rng = random.Random(16)
    with serving(app) as port:
        base = f"127.0.0.1:{port}"
        status, made = post(base, "/api/rooms", {"name": "Ana", "game": "crisps"})
        assert status == 201, made
        code = made["code"]
        _, ben = post(base, f"/api/rooms/{code}/join", {"name": "Ben"})
        _, zed = post(base, f"/api/rooms/{code}/join", {"name": "Zed"})
        tokens = [made["token"], ben["token"], zed["token"]]
        streams: list[list[Msg]] = [[], [], []]
        url = f"ws://{base}/ws/{code}"
        with connect(url) as a, connect(url) as b, connect(url) as w:
            socks = [a, b, w]
            for ws, token, seen in zip(socks, tokens, streams, strict=True):
                ws.send(json.dumps({"type": "hello", "token": token}))
                room = receive_until(ws, lambda m: m["type"] == "room", seen)
                assert room["game_type"] == "crisps"
                assert room["options"] == {
                    "no_faceup": False,
                    "crisp_runs": False,
                    "auto_skip": False,
                    "timer": None,
                }
            a.send(json.dumps({"type": "start"}))
            turn = receive_until(a, lambda m: m["type"] == "turn", streams[0])
            b.send(json.dumps({"type": "act", "v": turn["v"], "do": "play", "cards": "0"}))
            err = receive_until(b, lambda m: m["type"] == "error", streams[1])
            assert (err["code"], err["rule"]) == ("illegal", "CS-NOTATION")
            over = None
            for _ in range(3000):
                seat = turn["seat"]
                mine = (
                    turn
                    if seat == 0
                    else seen_or_receive(
                        b, lambda m, v=turn["v"]: m["type"] == "turn" and m["v"] == v, streams[1]
                    )
                )
                move = choose(mine, rng)
                socks[seat].send(json.dumps({"type": "act", "v": turn["v"], **move}))
                nxt = receive_until(
                    a, lambda m: m["type"] in ("turn", "game_over", "error"), streams[0]
                )
                assert nxt["type"] != "error", nxt
                if nxt["type"] == "game_over":
                    over = nxt
                    break
                turn = nxt
            assert over is not None, "the game did not end"
            for ws, seen in zip(socks[1:], streams[1:], strict=True):
                receive_until(ws, lambda m: m["type"] == "game_over", seen)
            receive_until(w, lambda m: m["type"] == "room" and m["phase"] == "over", streams[2])
        with urllib.request.urlopen(f"http://{base}/api/rooms/{code}/record") as resp:
            record = json.loads(resp.read())
    assert record["format"] == "crisps-record/1" and "server_seed" in record["fairness"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert crisp_main(["replay", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["over"] and result["scores"] == over["points"]
    assert result["winner"] == over["winner"]
    for seat, who in ((0, ["--seat", "0"]), (1, ["--seat", "1"]), (2, ["--spectator"])):
        assert crisp_main(["replay", *who, str(path)]) == 0
        replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        got = engine_only(streams[seat])
        assert got == replayed[: len(got)] and got[-1]["type"] == "game_over"
        stream = strip_server(streams[seat])
        assert check_crisps_stream(record, None if seat == 2 else seat, stream) == []


# -- in process, on a hand-moved clock -----------------------------------------------------------


async def crisps_table(kit: Kit, options: Msg | None = None) -> tuple[Room, list[FakePhone]]:
    return await kit.table(["Ana", "Ben"], game="crisps", options=options)


def due_turn(room: Room, phones: list[FakePhone]) -> tuple[FakePhone, Msg]:
    assert room.match is not None
    seat = room.match.view(None)["due"]["seat"]
    phone = phones[seat]
    latest = next(m for m in reversed(phone.got) if m["type"] in ("turn", "state"))
    return phone, latest["view"] if latest["type"] == "state" else latest  # after a reconnect


async def play_some(
    room: Room, phones: list[FakePhone], rng: random.Random, steps: int = 10_000
) -> None:
    for _ in range(steps):
        if room.lobby.phase == "over":
            return
        phone, turn = due_turn(room, phones)
        answer = await phone.act(**choose(turn, rng))
        assert not [m for m in answer if m["type"] == "error"], answer


@pytest.mark.parametrize("level", ["random", "normal", "hard"])
def test_a_game_against_a_bot(tmp_path: Path, level: str) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=3)
        room = kit.hub.create_room("crisps")
        _, token = room.join("Ana")
        ana = await FakePhone(kit, room, token, "Ana").connect()
        bad = await ana.say({"type": "add_bot", "level": "dragon"})
        assert bad[-1]["type"] == "error", bad
        await ana.say({"type": "add_bot", "level": level})
        full = await ana.say({"type": "add_bot", "level": level})
        assert full[-1]["type"] == "error", "two seats only (CS-PLAYERS)"
        answer = await ana.say({"type": "start"})
        assert not [m for m in answer if m["type"] == "error"], answer
        rng = random.Random(1)
        assert room.match is not None
        for _ in range(3000):
            if room.lobby.phase == "over":
                break
            due = room.match.view(None)["due"]
            if due["seat"] == 0:
                answer = await ana.act(**choose(ana.last("turn"), rng))
                assert not [m for m in answer if m["type"] == "error"], answer
            else:
                v = room.version
                await kit.jump_until(lambda v=v: room.version > v)  # type: ignore[misc]
        assert room.lobby.phase == "over"
        assert ana.last("game_over")["points"][ana.last("game_over")["winner"]] == 3
        assert check_crisps_stream(room.last_record or {}, 0, strip_server(ana.got)) == []

    run(main())


def test_reconnect_mid_trick_gets_the_seat_view(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        room, phones = await crisps_table(kit)
        assert room.match is not None
        phone, turn = due_turn(room, phones)
        await phone.act("play", cards=turn["legal"][0]["cards"])  # a lead: the trick is open
        follower, _ = due_turn(room, phones)
        seat = phones.index(follower)
        await follower.drop()
        back = await FakePhone(kit, room, follower.token, "back").connect()
        state = back.last("state")
        assert state["view"] == room.match.view(seat)
        assert state["view"]["trick"] and state["view"]["due"]["seat"] == seat
        assert state["view"]["legal"] or state["view"]["can_pass"]
        record = room.match.record()
        model = crisps_model_after(record, seat, strip_server(follower.got))
        assert check_crisps_view(model, state["view"], "state") == []
        answer = await back.act("pass")
        assert not [m for m in answer if m["type"] == "error"], answer
        assert back.last("pass")["seat"] == seat

    run(main())


def test_refusals_carry_the_rule_id(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        room, phones = await crisps_table(kit)
        phone, _ = due_turn(room, phones)
        other = phones[1 - phones.index(phone)]
        err = (await other.act("pass"))[-1]
        assert err["type"] == "error" and err["rule"] == "CS-TURN"
        err = (await phone.act("pass"))[-1]
        assert err["rule"] == "CS-LEAD"
        err = (await phone.act("draw", take="faceup"))[-1]
        assert err["rule"] == "CS-DRAW"
        err = (await phone.act("draw"))[-1]
        assert err["code"] == "bad_message"
        err = (await phone.act("pass", cards="1"))[-1]
        assert err["code"] == "bad_message"

    run(main())


def test_cs_timeout_through_the_room_clock(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        room, phones = await crisps_table(kit, TIMED)
        assert phones[0].last("turn")["deadline"] == 30
        await kit.advance(29.9)
        assert phones[0].of("play") == []
        await kit.advance(0.2)
        (play,) = phones[0].of("play")
        assert play["timeout"] and play["size"] == 1
        assert room.match is not None and room.match.record()["actions"][0]["do"] == "timeout"

    run(main())


def test_crash_and_recovery_keep_the_game(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=9)
        room, phones = await crisps_table(kit, TIMED)
        rng = random.Random(2)
        await play_some(room, phones, rng, steps=15)
        assert room.match is not None
        views = [room.match.view(s) for s in (0, 1, None)]
        kit.crash()
        await kit.advance(3600)
        kit2 = kit.reopen()
        back = kit2.hub.rooms[room.code]
        assert back.match is not None
        assert [back.match.view(s) for s in (0, 1, None)] == views
        ana = await FakePhone(kit2, back, phones[0].token, "Ana").connect()
        assert ana.of("play") == [] and ana.last("state")["view"] == views[0]
        ben = await FakePhone(kit2, back, phones[1].token, "Ben").connect()
        await play_some(back, [ana, ben], rng)
        assert back.lobby.phase == "over"
        assert replay(back.last_record or {}).game.over

    run(main())


def test_rematch_deals_a_new_game(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path)
        room, phones = await crisps_table(kit)
        await play_some(room, phones, random.Random(5))
        first = room.last_record
        assert first is not None and room.lobby.phase == "over"
        await phones[0].say({"type": "rematch"})
        assert room.lobby.phase == "lobby"
        answer = await phones[0].say({"type": "start"})
        assert not [m for m in answer if m["type"] == "error"], answer
        assert room.match is not None and room.match.view(0)["points"] == [0, 0]
        await play_some(room, phones, random.Random(6))
        second = room.last_record
        assert second is not None and second["decks"] != first["decks"]
        assert second["fairness"]["commitment"] != first["fairness"]["commitment"]

    run(main())


def test_a_stand_in_bot_plays_a_disconnected_seat_and_grace_is_refused(tmp_path: Path) -> None:
    """The host's stand-in (a bot from the seat's view, mid-game) plays for a dropped player
    until they are back; a grace is refused (Crisps! has no absence: its timer, if any, plays)."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        room, phones = await crisps_table(kit)
        assert room.match is not None
        phone, turn = due_turn(room, phones)
        if phone is phones[0]:  # let the host lead: Ben's decision is due
            await phone.act("play", cards=turn["legal"][0]["cards"])
        seat, host = 1, phones[0]
        assert room.match.view(None)["due"]["seat"] == seat
        await phones[1].drop()
        grace = await host.say({"type": "grace", "seat": seat})
        assert grace[-1]["type"] == "error", grace
        answer = await host.say({"type": "bot", "seat": seat, "level": "normal"})
        assert not [m for m in answer if m["type"] == "error"], answer
        before = len(room.match.record()["actions"])
        await kit.jump_until(lambda: len(room.match.record()["actions"]) > before)  # type: ignore[union-attr]
        assert room.match.record()["actions"][before]["seat"] == seat

    run(main())
