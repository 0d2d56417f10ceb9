"""Frames ("one message per seat per change", docs/protocol.md, Frames): a connection that says
hello with ``frames: "array"`` gets the messages of one change in one frame, a JSON array in
order; one that does not gets each message alone, as before. In-process (``simserver``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import simserver
from leakcheck import Tracker
from simserver import Client, SimServer, sleep
from wsclient import messages_of

from crisp.server.wire.encoder import dumps
from crisp.server.wire.frames import frame


def test_a_frame_is_one_message_or_an_array_of_them_in_order() -> None:
    one, two = '{"type":"a","v":1}', '{"type":"b","v":1}'
    assert frame([one]) == one
    assert json.loads(frame([one, two])) == [{"type": "a", "v": 1}, {"type": "b", "v": 1}]
    assert messages_of(frame([one, two])) == [json.loads(one), json.loads(two)]
    assert messages_of(one) == [json.loads(one)]


def test_the_shared_encoder_writes_what_json_dumps_writes() -> None:
    values: list[Any] = [
        {"type": "turn", "t": 1.25, "at": 3.0, "seat": 2, "v": 7},
        {"name": 'Chloé\u2028\n"x"', "none": None, "ok": True, "n": [1, -2, 3.5e300]},
        [],
        {},
        "text",
        12,
    ]
    for value in values:
        assert dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_the_shared_encoder_writes_floats_under_1e_4_otherwise_but_the_same_numbers() -> None:
    """``json.dumps`` writes 1e-05 and 2.5e-07; the encoder ``0.00001`` and ``2.5e-7``."""
    value = {"t": 1e-05, "u": 2.5e-7}
    assert dumps(value) == '{"t":0.00001,"u":2.5e-7}'
    assert json.loads(dumps(value)) == value


def test_the_leak_checker_checks_each_message_of_an_array() -> None:
    """An array fed whole is checked message by message (a frame cannot hide a leak)."""
    checker = Tracker({"players": ["A", "B"], "rounds": []}, 0)
    checker.feed([{"type": "nonsense"}, {"type": "also_nonsense"}])  # type: ignore[arg-type]
    assert any("message 0 ('nonsense'" in f for f in checker.failures), checker.failures
    assert any("message 1 ('also_nonsense'" in f for f in checker.failures), checker.failures


def frames_with(c: Client, v: int) -> set[int]:
    """The frames that brought ``c`` the game messages of version ``v``."""
    return {
        c.frame_of[i]
        for i, m in enumerate(c.received)
        if m.get("v") == v and m.get("type") not in ("room", "state", "error", "probe")
    }


def test_one_frame_per_seat_per_change(tmp_path: Path) -> None:
    """The hello's answer (welcome, room, state) is one frame; a discard's messages (discard,
    turn_end, the next turn) reach each seat in one frame; a client without ``frames`` gets
    each message alone."""

    async def main() -> None:
        srv = SimServer(tmp_path, clock_speed=20.0, env={"CRISP_FIXED_SEED": "5"})
        srv.start()
        try:
            host = await srv.create_room("Ana")
            ben = await srv.join(host["code"], "Ben")
            a = await Client(srv, host["code"], host["token"], "Ana").connect()
            b = await Client(srv, host["code"], ben["token"], "Ben").connect()
            old = await Client(srv, host["code"], None, "watcher", arrays=False).connect()
            assert [m["type"] for m in a.received[:3]] == ["welcome", "room", "state"]
            assert len(set(a.frame_of[:3])) == 1  # one frame
            assert [m["type"] for m in old.received[:3]] == ["welcome", "room", "state"]
            assert len(set(old.frame_of[:3])) == 3  # each alone
            await a.send({"type": "start"})
            for c in (a, b):
                await c.wait_type("round", round=1)
            for c in (a, b):
                await c.act("ready")
            seats = {a.seat: a, b.seat: b}
            turn = await a.wait(lambda m: m["type"] == "turn")
            mover = seats[turn["seat"]]
            await sleep(max(0.0, turn["at"] - turn["t"]) / 20.0 + 0.1)
            await mover.act("draw")
            drawn = await mover.wait(lambda m: m["type"] == "draw" and "card" in m)
            assert drawn["card"]
            await mover.act("swap", slot="left")
            end = await mover.wait(lambda m: m["type"] == "turn_end")
            for c in (a, b):
                await c.wait(lambda m, v=end["v"]: m["type"] == "turn" and m["v"] == v)
                kinds = [m["type"] for m in c.received if m.get("v") == end["v"]]
                assert "turn_end" in kinds and "turn" in kinds, kinds
                assert len(frames_with(c, end["v"])) == 1, (c.label, kinds)
            await old.wait(lambda m: m["type"] == "turn" and m["v"] == end["v"])
            assert len(frames_with(old, end["v"])) >= 2  # one message per frame
            for c in (a, b, old):
                await c.close()
        finally:
            srv.stop()

    simserver.run(main, 120)
