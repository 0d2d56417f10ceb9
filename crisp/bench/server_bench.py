"""``crisp bench server``: latency on loopback with 8 players, and memory per open room.

What it measures, against a real ``crisp serve`` process it starts on 127.0.0.1 (its own data
directory in a temporary folder, the rule times sped up by ``--clock-speed`` so the 2 s before the
next draw does not dominate):

1. **Latency.** One room of 8 players, each its own WebSocket (the ``websockets`` library, in this
   process). Turn after turn, the seat whose turn it is draws, then discards (or swaps; a King is
   used and its extra draws taken). For every action, the time from sending it to the moment the
   *last* of the 8 sockets has received the action's first message (matched by the room version
   ``v`` the server stamps on it). That includes the server's SQLite commit before sending.
   Printed: p50, p95, p99 and max over ``--actions`` actions.
2. **Memory per open room.** The server's resident memory (VmRSS) before and after opening
   ``--rooms`` rooms of 8 members each with a game dealt (the host connected and started it, then
   left), divided by the number of rooms.

The generator and the server share the machine; the figures are for this machine only.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

NAMES = ["Ana", "Ben", "Chloé", "Dev", "Eli", "Fay", "Gus", "Hana"]


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path,
        json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        result: dict[str, Any] = json.loads(resp.read())
        return result


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class _Seat:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.arrivals: dict[int, float] = {}  # v -> first arrival of a message with that v
        self.log: list[tuple[float, dict[str, Any]]] = []
        self.news = asyncio.Event()

    async def read(self) -> None:
        async for raw in self.ws:
            now = time.perf_counter()
            msg = json.loads(raw)
            v = msg.get("v")
            if isinstance(v, int) and msg.get("type") != "error" and v not in self.arrivals:
                self.arrivals[v] = now
            self.log.append((now, msg))
            self.news.set()

    async def next(self, i: int) -> dict[str, Any]:
        while i >= len(self.log):
            self.news.clear()
            await asyncio.wait_for(self.news.wait(), 30)
        return self.log[i][1]


async def _open_room(ws_base: str, base: str, players: int) -> tuple[str, list[_Seat]]:
    host = _post(base, "/api/rooms", {"name": NAMES[0]})
    code = host["code"]
    tokens = [host["token"]] + [
        _post(base, f"/api/rooms/{code}/join", {"name": NAMES[i]})["token"]
        for i in range(1, players)
    ]
    seats = []
    for token in tokens:
        # max_queue=None: a seat nobody reads (the memory phase) still takes the close frame at
        # once; with a full queue its close waited out close_timeout, 10 s a socket, ~50 s a room
        ws = await websockets.connect(f"{ws_base}/ws/{code}", compression=None, max_queue=None)
        await ws.send(json.dumps({"type": "hello", "token": token}))
        seats.append(_Seat(ws))
    return code, seats


async def _latency(ws_base: str, base: str, actions: int, speed: float) -> list[float]:
    _, seats = await _open_room(ws_base, base, 8)
    readers = [asyncio.create_task(s.read()) for s in seats]
    await seats[0].ws.send(json.dumps({"type": "start"}))
    by_seat: dict[int, _Seat] = {}
    latencies: list[float] = []
    watcher = seats[0]  # seat 0 sees every public message
    i = 0
    while len(latencies) < actions:
        msg = await watcher.next(i)
        i += 1
        if msg["type"] == "room" and msg["phase"] == "playing" and not by_seat:
            # members are numbered in joining order: the i-th socket is member i + 1
            by_seat = {m["seat"]: seats[m["id"] - 1] for m in msg["members"]}
        elif msg["type"] == "round":
            for s in seats:
                await s.ws.send(json.dumps({"type": "act", "v": max(s.arrivals), "do": "ready"}))
        elif msg["type"] == "turn":
            actor = by_seat[msg["seat"]]
            await asyncio.sleep(max(0.0, (msg["at"] - msg["t"]) / speed) + 0.002)
            mark = len(actor.log)
            latencies.append(await _timed(seats, watcher, actor, "draw", msg["seat"]))
            card = ""
            while not card:
                mine = await actor.next(mark)
                mark += 1
                if mine["type"] == "draw" and "card" in mine:
                    card = mine["card"]
            do = "king" if card[0] == "K" else "discard"
            latencies.append(await _timed(seats, watcher, actor, do, msg["seat"]))
    for s in seats:
        await s.ws.close()
    for r in readers:
        r.cancel()
    return latencies


async def _timed(seats: list[_Seat], watcher: _Seat, actor: _Seat, do: str, seat: int) -> float:
    """Send ``do`` for ``seat``; the time until all 8 sockets have its first message."""
    mark = len(watcher.log)
    start = time.perf_counter()
    await actor.ws.send(json.dumps({"type": "act", "v": max(actor.arrivals), "do": do}))
    while True:
        msg = await watcher.next(mark)
        mark += 1
        if msg.get("type") == "error":
            raise RuntimeError(f"the server refused {do}: {msg}")
        if msg.get("type") == do and msg.get("seat") == seat:
            v = msg["v"]
            break
    while not all(v in s.arrivals for s in seats):
        await asyncio.sleep(0.0002)
    return max(s.arrivals[v] for s in seats) - start


async def _rooms(ws_base: str, base: str, count: int) -> None:
    for _ in range(count):
        code, seats = await _open_room(ws_base, base, 8)
        await seats[0].ws.send(json.dumps({"type": "start"}))
        async for raw in seats[0].ws:
            if json.loads(raw)["type"] == "round":
                break
        await asyncio.gather(*(s.ws.close() for s in seats))
        del code


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(actions: int, rooms: int, clock_speed: float, as_json: bool) -> int:
    import subprocess
    import sys

    from crisp.server.run.workers import serve_command

    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "CRISP_LOG_LEVEL": "warning",
            "CRISP_ACCESS_LOG": "false",
            "CRISP_LIMIT_EXEMPT_IPS": '["127.0.0.1"]',
        }  # its rooms come from one address
        proc = subprocess.Popen(
            serve_command(0, tmp, clock_speed),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        port = None
        for line in proc.stdout:
            if "http://127.0.0.1:" in line:
                port = int(line.rsplit(":", 1)[1].strip().strip("/"))
                break
        if port is None:
            print("crisp bench server: the server did not start", file=sys.stderr)
            return 1
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        try:
            lat = asyncio.run(_latency(ws_base, base, actions, clock_speed))
            before = _rss_kb(proc.pid)
            asyncio.run(_rooms(ws_base, base, rooms))
            after = _rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
    ms = [x * 1000 for x in lat]
    report = {
        "what": "action -> last of 8 sockets received it, loopback; RSS per open room",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "actions": len(ms),
        "p50_ms": round(statistics.median(ms), 3),
        "p95_ms": round(_percentile(ms, 0.95), 3),
        "p99_ms": round(_percentile(ms, 0.99), 3),
        "max_ms": round(max(ms), 3),
        "rooms": rooms,
        "rss_before_mb": round(before / 1024, 1),
        "rss_after_mb": round(after / 1024, 1),
        "kb_per_room": round((after - before) / rooms, 1),
    }
    if as_json:
        print(json.dumps(report))
    else:
        print(f"Latency, one room of 8 players on loopback ({report['machine']}):")
        print(
            f"  {len(ms)} actions: p50 {report['p50_ms']} ms, p95 {report['p95_ms']} ms, "
            f"p99 {report['p99_ms']} ms, max {report['max_ms']} ms"
        )
        print(
            f"Memory: {rooms} rooms of 8 members with a game dealt: RSS {report['rss_before_mb']}"
            f" -> {report['rss_after_mb']} MB, {report['kb_per_room']} KB per room"
        )
    return 0
