"""The documented protocol (docs/protocol.md) against the models and the running server.

- docs/protocol.md is exactly what ``python tools/protocol_doc.py`` makes from the models and the
  template (and the script does not import the web application).
- Every message of many random engine games (absent seats and clock restarts included), with the
  server's ``v``, validates against ``wire.ServerEvent``, and goes to the audience the document
  says; ``game.view`` at many points validates against ``wire.View``.
- The engine message types and fields of docs/engine.md's table are exactly the models'.
- On a real server, every message every client received (seats, a watcher, a member who leaves, a
  seat that is given a grace and comes back) validates against the union of the server's models,
  every message the test clients sent validates against ``protocol.CLIENT``, and ``v`` never goes
  back along a connection.
"""

from __future__ import annotations

import asyncio
import difflib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from serverproc import ServerProcess
from wsclient import Client, Player

from crisp.engine import Options
from crisp.engine.messages import Out
from crisp.engine.simulate import Policy, play_random
from crisp.games.crisp import wire as E
from crisp.server import app, wsloop
from crisp.server import protocol as P
from crisp.server.app import Joined
from tools import protocol_doc

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
ENGINE_DOC = ROOT / "docs" / "engine.md"
POLICY = Policy(p_absent=0.03, p_restart=0.03)
EVENT_TYPES = {E.type_of(m) for m in E.EVENT_TYPES}
SERVER_OWN = {E.type_of(m) for m in P.SERVER_TYPES}


def _options(i: int) -> Options:
    return Options((50, 100, 150)[i % 3], (None, 30, 45, 60)[(i // 3) % 4], bool(i % 2))


# -- the document -----------------------------------------------------------------------------


def test_protocol_doc_is_generated_from_the_models() -> None:
    """docs/protocol.md is up to date: regenerating it from protocol.py, wire.py and the template
    gives the committed file byte for byte (its examples validate against their models on the
    way)."""
    expected = protocol_doc.render()
    actual = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if actual != expected:
        diff = "".join(
            list(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                      "docs/protocol.md", "generated", n=1))[:60]
        )  # fmt: skip
        pytest.fail(f"docs/protocol.md is out of date: run `{protocol_doc.COMMAND}`\n{diff}")


def test_protocol_doc_tool_stands_apart_from_the_app_and_does_not_ship() -> None:
    """tools/protocol_doc.py imports no web application (it runs in a fresh process without
    loading ``crisp.server.app``), its copies of the app's numbers and HTTP bodies agree with the
    app, and the Docker image, which copies ``crisp/`` only, never holds it."""
    code = (
        "import sys; import tools.protocol_doc as d; d.render(); "
        "assert 'crisp.server.app' not in sys.modules and 'fastapi' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    assert protocol_doc.FLOOD_LIMIT == wsloop.FLOOD_LIMIT
    assert protocol_doc.FLOOD_ANSWER_EVERY == wsloop.FLOOD_REPORT_EVERY
    for ours, theirs in ((P.JoinRequest, app.JoinRequest), (P.Joined, app.Joined),
                         (P.CreateRequest, app.CreateRequest)):
        shape = {n: (f.annotation, f.is_required()) for n, f in ours.model_fields.items()}
        assert shape == {n: (f.annotation, f.is_required()) for n, f in theirs.model_fields.items()}
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    copies = [line for line in dockerfile.splitlines() if line.startswith("COPY")]
    assert "COPY crisp ./crisp" in copies and not any("tools" in line for line in copies)
    assert ignore[ignore.index("*")] == "*" and "!crisp/" in ignore  # an allow-list: crisp/ only
    assert not any(entry.startswith("!tools") for entry in ignore)


def test_doc_has_a_section_for_every_message_both_ways() -> None:
    """Every client message, every server message and every engine message has its own section
    in docs/protocol.md, and the JSON Schema unions list exactly those types."""
    text = DOC.read_text(encoding="utf-8")
    client = {E.type_of(m) for m in P.CLIENT_TYPES}
    for kind in client | SERVER_OWN | EVENT_TYPES:
        assert f'<a id="msg-{kind}"></a>' in text, kind
    assert set(P.CLIENT.json_schema()["discriminator"]["mapping"]) == client
    assert set(E.SERVER.json_schema()["discriminator"]["mapping"]) == SERVER_OWN | EVENT_TYPES
    assert set(E.SERVER_EVENT.json_schema()["discriminator"]["mapping"]) == EVENT_TYPES


def _engine_table() -> dict[str, set[str]]:
    """docs/engine.md "Messages": each type and the field names its row lists."""
    text = ENGINE_DOC.read_text(encoding="utf-8")
    section = text.split("## Messages", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`[a-z_]+`", cells[0]):
            fields = re.sub(r"\([^()]*\)", "", cells[2])  # not the values in parentheses
            rows[cells[0].strip("`")] = set(re.findall(r"`([a-z_]+)`", fields))
    return rows


def test_engine_doc_messages_match_the_models() -> None:
    """Every engine message type in docs/engine.md's table has a model and every model a row,
    with the same fields (besides ``type``, ``t`` and the server's ``v``)."""
    table = _engine_table()
    assert len(table) >= 19  # the table was found
    assert set(table) == EVENT_TYPES
    for model in E.EVENT_TYPES:
        fields = set(model.model_fields) - {"type", "t", "v"}
        assert fields == table[E.type_of(model)], E.type_of(model)


def test_models_refuse_what_the_engine_never_sends() -> None:
    """The models are strict: an unknown field, a bad card code or slot, a null ``card`` in a
    ``draw`` (it is left out instead) and a view with the fields of another phase are refused."""
    draw = {"type": "draw", "t": 1.5, "seat": 0, "deck": 30, "v": 3}
    E.SERVER_EVENT.validate_python(draw)
    E.SERVER_EVENT.validate_python({**draw, "card": "TD"})
    for bad in ({**draw, "card": None}, {**draw, "card": "1D"}, {**draw, "extra": 1},
                {**draw, "v": -1}, {"type": "swap", "t": 1, "seat": 0, "slot": "top",
                                    "card": "2C", "v": 1}):  # fmt: skip
        with pytest.raises(ValidationError):
            E.SERVER_EVENT.validate_python(bad)
    game = play_random(3, Options(), seed=5, max_actions=2)
    view = game.view(0)
    assert view["round"]["phase"] != "over"
    E.VIEW.validate_python(view)
    hands = [["AS", "2S", "3S"]] * 3  # the fields of a round that is over
    mixed = {**view, "round": {**view["round"], "hands": hands, "scores": [6, 6, 6]}}
    with pytest.raises(ValidationError):
        E.VIEW.validate_python(mixed)


# -- random engine games ----------------------------------------------------------------------


def _audience_ok(out: Out) -> bool:
    """The audiences docs/protocol.md states: a look to its seat alone, a draw with its card to the
    drawer alone and without it to all others, every other message to everyone."""
    msg = out.msg
    if msg["type"] == "look":
        return out.to == msg["seat"]
    if msg["type"] == "draw":
        return out.to == msg["seat"] if "card" in msg else out.to == ~msg["seat"]
    return out.to is None


def test_every_engine_message_of_random_games_validates() -> None:
    """Every message of 160 random games (2 to 8 players, every option, seats going absent and
    coming back, clock restarts), with the ``v`` the server adds, validates against
    ``ServerEvent`` and goes to its documented audience; every message type occurs."""
    seen: Counter[str] = Counter()
    for i in range(160):
        batches: list[list[Out]] = []
        play_random(2 + i % 7, _options(i), seed=4000 + i, policy=POLICY, sink=batches.append)
        for v, batch in enumerate(batches, start=1):
            for out in batch:
                model = E.SERVER_EVENT.validate_python({**out.msg, "v": v})
                assert E.type_of(type(model)) == out.msg["type"]
                assert _audience_ok(out), out
                seen[out.msg["type"]] += 1
    assert set(seen) == EVENT_TYPES, EVENT_TYPES - set(seen)


def test_views_of_random_games_validate() -> None:
    """``game.view(seat)`` (what ``state.view`` carries) for every seat and a spectator, cut at
    many points of random games, validates against ``View``: the look phase, play (holding a
    drawn card or not, a window open or not) and a round or game that is over."""
    phases: Counter[str] = Counter()
    for i in range(60):
        players = 2 + i % 7
        for cut in (1, players, 3 * players + i % 5, 10 * players + i, None):
            game = play_random(players, _options(i), seed=7000 + i, policy=POLICY,
                               max_actions=cut, max_rounds=None if cut else 1 + i % 3)  # fmt: skip
            for seat in [*range(players), None]:
                view = E.VIEW.validate_python(game.view(seat))
                assert (view.round.you is None) == (seat is None)
                phases[view.round.phase] += 1
    assert set(phases) == {"look", "play", "over"}


# -- a real server ----------------------------------------------------------------------------


class Recorder(Client):
    """A client that also records every message it sends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[dict[str, Any]] = []

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        if isinstance(msg, dict):
            self.sent.append(msg)
        await super().send(msg)


class RecordingPlayer(Player, Recorder):
    pass


def _check_traffic(clients: list[Client]) -> Counter[str]:
    """Every message received validates against the server's union and every message sent
    against ``protocol.CLIENT``; ``v`` never decreases along one connection."""
    kinds: Counter[str] = Counter()
    for client in clients:
        last = -1
        for msg in client.received:
            model = E.SERVER.validate_python(msg)
            kinds[msg["type"]] += 1
            if isinstance(model, P.State) and model.view is not None:
                E.VIEW.validate_python(model.view)
            if msg["type"] == "welcome":
                last = -1  # a new connection
            v = msg.get("v")
            if isinstance(v, int):
                assert v >= last, (client.label, msg)
                last = v
        assert isinstance(client, Recorder)
        assert client.sent
        for msg in client.sent:
            P.CLIENT.validate_python(msg)
    return kinds


async def _full_game(server: ServerProcess) -> list[Client]:
    host = server.create_room("Ana")
    Joined.model_validate(host)
    code = host["code"]
    joined = [host, *(server.join(code, name) for name in ("Ben", "Chloé"))]
    players = [RecordingPlayer(server, code, j["token"], f"p{i}", seed=i)
               for i, j in enumerate(joined)]  # fmt: skip
    watcher = Recorder(server, code, None, "watcher")
    for client in [*players, watcher]:
        await client.connect()
    await players[0].send({"type": "options", "limit": 50, "timer": 30, "take_discard": True})
    await players[0].send({"type": "start"})
    for p in players:
        p.start_playing()
    await players[1].wait_type("turn")
    start = len(players[1].received)
    await players[1].send({"type": "act", "v": 0, "do": "crisp"})  # an old version: refused
    await players[1].wait(lambda m: m["type"] == "error" and m.get("about") == "act", since=start)
    await watcher.send({"type": "ping", "n": 3})
    await watcher.send({"type": "sync"})
    await watcher.wait_type("pong", n=3)
    await players[2].send({"type": "sync"})
    for client in [*players, watcher]:
        await client.wait_type("game_over", timeout=120)
    for p in players:
        await p.stop_playing()
    start = len(watcher.received)
    await players[0].send({"type": "rematch"})
    await watcher.wait_type("state", since=start, timeout=20)
    status, summary = server.request("GET", f"/api/rooms/{code}")
    assert status == 200
    assert set(summary) == {"code", "game_type", "phase", "options", "members", "game", "record",
                            "commitment"}  # fmt: skip
    P.Room.model_validate({**summary, "type": "room", "v": 0})
    for client in [*players, watcher]:
        await client.close()
    return [*players, watcher]


def test_real_game_traffic_validates(tmp_path: Path) -> None:
    """A whole game on a real server (3 seats with a per-draw time and takes from the pile, a
    watcher, a stale action, ping, sync, a rematch): every message each client received is one
    of the documented server messages, every message sent a documented client message."""
    server = ServerProcess(tmp_path, clock_speed=20, env={"CRISP_FIXED_SEED": "7"}).start()
    try:
        clients = asyncio.run(_full_game(server))
    finally:
        server.stop()
    kinds = _check_traffic(clients)
    for kind in ("welcome", "room", "state", "error", "pong", "game", "round", "look", "turn",
                 "draw", "reveal", "game_over"):  # fmt: skip
        assert kinds[kind] > 0, kind


async def _grace_and_leave(server: ServerProcess) -> list[Client]:
    host = server.create_room("Ana")
    code = host["code"]
    ben = server.join(code, "Ben")
    cleo = server.join(code, "Chloé")
    players = [RecordingPlayer(server, code, j["token"], f"p{i}", seed=10 + i, p_call=0.0)
               for i, j in enumerate((host, ben))]  # fmt: skip
    leaver = Recorder(server, code, cleo["token"], "leaver")
    for client in [*players, leaver]:
        await client.connect()
    await leaver.send({"type": "leave"})
    await leaver.wait_type("left", code=code)
    await asyncio.wait_for(leaver.closed.wait(), 10)
    assert leaver.close_code == 4409
    await players[0].send({"type": "options", "limit": 100, "timer": None, "take_discard": False})
    await players[0].send({"type": "start"})
    a, b = players
    a.start_playing()
    seat_b = (await b.wait(lambda m: m["type"] == "state" and m["you"]["seat"] is not None,
                           timeout=20))["you"]["seat"]  # fmt: skip
    await b.wait_type("turn", seat=seat_b, timeout=30)  # B is due to draw and goes away
    start = len(a.received)
    await b.close()
    await a.wait(lambda m: m["type"] == "room" and not m["members"][1]["connected"], since=start)
    await a.send({"type": "grace", "seat": seat_b, "seconds": 1})
    clock = await a.wait_type("clock", since=start, seat=seat_b, timeout=20)
    assert clock["deadline"] is not None
    await a.wait_type("timeout", since=start, seat=seat_b, timeout=30)
    back = len(a.received)
    await b.connect()
    await a.wait(lambda m: m["type"] == "room" and m["members"][1]["connected"]
                 and not m["members"][1]["absent"], since=back, timeout=20)  # fmt: skip
    await a.stop_playing()
    for client in players:
        await client.close()
    return [*players, leaver]


def test_grace_leave_and_reconnect_traffic_validates(tmp_path: Path) -> None:
    """A member leaving in the lobby (``left``, close 4409), a seat gone during its turn, the
    host's ``grace`` (a ``clock``, then the absent seat's ``timeout``), and the seat's return:
    every message received and sent validates against the documented models."""
    server = ServerProcess(tmp_path, clock_speed=10, env={"CRISP_FIXED_SEED": "7"}).start()
    try:
        clients = asyncio.run(_grace_and_leave(server))
    finally:
        server.stop()
    kinds = _check_traffic(clients)
    for kind in ("left", "clock", "timeout", "welcome", "state"):
        assert kinds[kind] > 0, kind


async def _pause_states(server: ServerProcess) -> tuple[list[float], list[float]]:
    host = server.create_room("Ana")
    code = host["code"]
    ben = server.join(code, "Ben")
    a = Recorder(server, code, host["token"], "a")
    b = Recorder(server, code, ben["token"], "b")
    for client in (a, b):
        await client.connect()
    await a.send({"type": "start"})
    await a.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    await a.close()
    await b.close()  # no seated player connected: the game clock stops
    watcher = Recorder(server, code, None, "watcher")
    await watcher.connect()
    paused: list[float] = []
    for _ in range(2):
        start = len(watcher.received)
        await watcher.send({"type": "sync"})
        paused.append((await watcher.wait_type("state", since=start))["now"])
        await asyncio.sleep(1.0)
    start = len(a.received)
    await a.connect()  # a seat is back: the clock runs on from where it stopped
    back = [(await a.wait_type("state", since=start))["now"]]
    start = len(a.received)
    await a.send({"type": "sync"})
    back.append((await a.wait_type("state", since=start))["now"])
    for client in (a, watcher):
        await client.close()
    return paused, back


def test_state_now_is_the_game_time_during_a_pause(tmp_path: Path) -> None:
    """A ``state``'s ``now`` is the game time when it is made, and game time stands still while
    no seated player is connected (docs/protocol.md, "Time and countdowns"): two states made a
    second apart during the pause have the same ``now``, and the returning seat's ``state`` is
    not ahead of the ``state`` it gets right after (game time never goes back)."""
    server = ServerProcess(tmp_path, clock_speed=5, env={"CRISP_FIXED_SEED": "7"}).start()
    try:
        paused, back = asyncio.run(_pause_states(server))
    finally:
        server.stop()
    assert paused[0] == paused[1], f"game time ran during the pause: {paused}"
    assert back[0] <= back[1], f"game time went back after the pause: {back}"
