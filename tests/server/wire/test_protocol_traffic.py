"""The server's traffic against the documented protocol's models (docs/protocol.md): on the real
app in-process (``simserver``: every frame each connection's endpoint sent, on a virtual clock),
every message every client received (seats, a watcher, a member who leaves, a seat that is given a
grace and comes back) validates against the union of the server's models, every message the test
clients sent validates against ``protocol.CLIENT``, and ``v`` never goes back along a connection;
a ``state``'s ``now`` stands still during a pause. (Moved from ``test_protocol.py``, which keeps
the document's own tests.)
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from simserver import Client, SimServer, run
from wsclient import Player

from crisp.games.crisp import wire as E
from crisp.server.app import Joined
from crisp.server.wire import protocol as P


class Recorder(Client):
    """A client that also records every message it sends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[dict[str, Any]] = []

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        if isinstance(msg, dict):
            self.sent.append(msg)
        await super().send(msg)


class RecordingPlayer(Recorder, Player):
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


async def _full_game(server: SimServer) -> list[Client]:
    host = await server.create_room("Ana")
    Joined.model_validate(host)
    code = host["code"]
    joined = [host, *[await server.join(code, name) for name in ("Ben", "Chloé")]]
    players = [
        RecordingPlayer(server, code, j["token"], f"p{i}", seed=i) for i, j in enumerate(joined)
    ]
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
    status, summary = await server.request("GET", f"/api/rooms/{code}")
    assert status == 200
    # the summary names its game (``game_type``, as the room message does)
    assert set(summary) == {
        "code",
        "game_type",
        "phase",
        "options",
        "members",
        "game",
        "record",
        "commitment",
    }
    assert summary["game_type"] == "crisp"
    P.Room.model_validate({**summary, "type": "room", "v": 0})
    for client in [*players, watcher]:
        await client.close()
    return [*players, watcher]


def test_real_game_traffic_validates(tmp_path: Path) -> None:
    """A whole game on the server (3 seats with a per-draw time and takes from the pile, a
    watcher, a stale action, ping, sync, a rematch): every message each client received is one
    of the documented server messages, every message sent a documented client message."""
    server = SimServer(tmp_path, clock_speed=20, env={"CRISP_FIXED_SEED": "7"})
    try:
        clients = run(_full_game(server))
    finally:
        server.stop()
    kinds = _check_traffic(clients)
    for kind in (
        "welcome",
        "room",
        "state",
        "error",
        "pong",
        "game",
        "round",
        "look",
        "turn",
        "draw",
        "reveal",
        "game_over",
    ):
        assert kinds[kind] > 0, kind


async def _grace_and_leave(server: SimServer) -> list[Client]:
    host = await server.create_room("Ana")
    code = host["code"]
    ben = await server.join(code, "Ben")
    cleo = await server.join(code, "Chloé")
    players = [
        RecordingPlayer(server, code, j["token"], f"p{i}", seed=10 + i, p_call=0.0)
        for i, j in enumerate((host, ben))
    ]
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
    seat_b = (
        await b.wait(lambda m: m["type"] == "state" and m["you"]["seat"] is not None, timeout=20)
    )["you"]["seat"]
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
    await a.wait(
        lambda m: (
            m["type"] == "room" and m["members"][1]["connected"] and not m["members"][1]["absent"]
        ),
        since=back,
        timeout=20,
    )
    await a.stop_playing()
    for client in players:
        await client.close()
    return [*players, leaver]


def test_grace_leave_and_reconnect_traffic_validates(tmp_path: Path) -> None:
    """A member leaving in the lobby (``left``, close 4409), a seat gone during its turn, the
    host's ``grace`` (a ``clock``, then the absent seat's ``timeout``), and the seat's return:
    every message received and sent validates against the documented models."""
    server = SimServer(tmp_path, clock_speed=10, env={"CRISP_FIXED_SEED": "7"})
    try:
        clients = run(_grace_and_leave(server))
    finally:
        server.stop()
    kinds = _check_traffic(clients)
    for kind in ("left", "clock", "timeout", "welcome", "state"):
        assert kinds[kind] > 0, kind


async def _pause_states(server: SimServer) -> tuple[list[float], list[float]]:
    host = await server.create_room("Ana")
    code = host["code"]
    ben = await server.join(code, "Ben")
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
    server = SimServer(tmp_path, clock_speed=5, env={"CRISP_FIXED_SEED": "7"})
    try:
        paused, back = run(_pause_states(server))
    finally:
        server.stop()
    assert paused[0] == paused[1], f"game time ran during the pause: {paused}"
    assert back[0] <= back[1], f"game time went back after the pause: {back}"
