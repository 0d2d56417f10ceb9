"""The relays of ``crisp bench load``'s human-pace comparison: what a bare relay needs to carry the
same player-visible traffic as the game.

A game run at human pace delivers, per action, some frames to each of its room's 8 sockets, of
some mean size. A relay room here carries exactly that: R rooms of 8 sockets; in each room one
player at a time "acts" after a random pause (mean: the game's measured time between a room's
actions), sending the frames of one action; the relay re-sends each frame to the room's 8 sockets,
the sender included. So the relay delivers the same frames per second, of the same size, to the
same number of sockets as the game did, with no rules and no views: the price of the transport
(and, for the durable relay, of storing as Crisp stores). Three relays:

- ``fastapi``: ``crisp.bench.load_baseline``, FastAPI + uvicorn with ``crisp serve``'s settings.
- ``colyseus``: a Colyseus 0.16 room (npm ``@colyseus/core`` + ``@colyseus/ws-transport``,
  ``tools/colyseus_relay/relay.js``), its own matchmaking (``POST /matchmake/joinOrCreate/relay``)
  and binary protocol (``JOIN_ROOM`` acknowledged, ``ROOM_DATA`` with a msgpack string: the frame's
  text). Needs Node.js and the packages (``npm ci`` in that folder, once, with the registry).
- ``colyseus-durable``: the same room storing each message before it broadcasts it, as Crisp
  stores a change (``tools/colyseus_relay/store.js``, npm ``better-sqlite3``: Crisp's schema, WAL,
  ``synchronous=NORMAL``, checkpoints in a worker thread; per room and event-loop turn one
  ``UPDATE`` of its row and one ``INSERT`` into its log per message, every room of the turn in
  one transaction, the messages sent after its commit). better-sqlite3 compiles from source at
  ``npm ci`` (Node's headers: ``--nodedir=/usr`` with Debian's Node.js).

Figures (as the game's): server CPU, latency from a send to the last of the 8 receipts (p50,
p99), memory per room (RSS with the rooms open minus the empty server's, divided by R); for the
durable relay also its store's commits, changes and mean time of a commit on the event loop.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crisp.bench.load import Server, Stats, Window, in_parallel, measure, mem_kb
from crisp.bench.load_ws import WsConn, connect

HOST = "127.0.0.1"
# in a checkout, beside the tools (not in the wheel: it is a benchmark's Node.js program)
COLYSEUS_DIR = Path(__file__).resolve().parents[2] / "tools" / "colyseus_relay"
SQLITE_ADDON = COLYSEUS_DIR / "node_modules/better-sqlite3/build/Release/better_sqlite3.node"
#: The relays, as ``--relays`` names them.
KINDS = ("fastapi", "colyseus", "colyseus-durable")
DURABLE = "colyseus-durable"
JOIN_ROOM, ROOM_DATA = 10, 13
TYPE = b"\xa1m"  # the message type "m", as Colyseus encodes a short string


@dataclass(frozen=True)
class Traffic:
    """What the game delivered, per room: the relay rooms carry the same."""

    rooms: int
    action_gap_s: float  # mean time between two actions of one room
    frames_per_action: float  # frames each socket received per action
    frame_bytes: int  # mean size of a frame's payload


# -- the frames -------------------------------------------------------------------------------


def body(n: int, seat: int, size: int) -> bytes:
    """A JSON text of about ``size`` bytes carrying the frame number ``n`` and the sender."""
    head = f'{{"type":"relay","seat":{seat},"n":{n},"pad":"'
    pad = max(0, size - len(head) - 2)
    return (head + "x" * pad + '"}').encode()


def msgpack_str(text: bytes) -> bytes:
    n = len(text)
    if n < 32:
        return bytes((0xA0 | n,)) + text
    if n < 256:
        return b"\xd9" + bytes((n,)) + text
    return b"\xda" + n.to_bytes(2, "big") + text


def frame_number(data: bytes) -> int:
    j = data.find(b'"n":') + 4
    return int(data[j : data.find(b",", j)])


# -- a room -----------------------------------------------------------------------------------


class RelayRoom:
    """One room of 8 sockets; the players act in turn, the acting one sends an action's frames."""

    def __init__(self, stats: Stats, traffic: Traffic, colyseus: bool, rng: random.Random):
        self.stats, self.traffic, self.colyseus, self.rng = stats, traffic, colyseus, rng
        self.conns: list[WsConn | None] = [None] * 8
        loop = asyncio.get_running_loop()
        self.joined = [loop.create_future() for _ in range(8)]
        self.pending: dict[int, list[float]] = {}
        self.n = 0
        self.turn = 0

    def frames_now(self) -> int:
        f = self.traffic.frames_per_action
        return max(1, int(f) + (1 if self.rng.random() < f - int(f) else 0))

    def act(self) -> None:
        conn = self.conns[self.turn]
        if conn is None or conn.closed:
            return
        for _ in range(self.frames_now()):
            n = self.n
            self.n += 1
            self.pending[n] = [time.perf_counter(), 0.0]
            text = body(n, self.turn, self.traffic.frame_bytes)
            if self.colyseus:
                conn.send_binary(bytes((ROOM_DATA,)) + TYPE + msgpack_str(text))
            else:
                conn.send_text(text)
        self.turn = (self.turn + 1) % 8
        gap = self.rng.expovariate(1 / self.traffic.action_gap_s)
        asyncio.get_running_loop().call_later(gap, self.act)

    def received(self, data: bytes) -> None:
        stats = self.stats
        if stats.measuring:
            stats.msgs += 1
            stats.frames += 1
            stats.bytes += len(data)
        entry = self.pending.get(frame_number(data))
        if entry is None:
            return
        entry[1] += 1
        if entry[1] == 8:
            del self.pending[frame_number(data)]
            if stats.measuring and entry[0] >= stats.start:
                stats.latencies.append(time.perf_counter() - entry[0])
                stats.actions += 1


def on_fastapi(conn: WsConn, data: bytes) -> None:
    conn.owner[0].received(data)


def on_colyseus(conn: WsConn, data: bytes) -> None:
    room, k = conn.owner
    if data[:1] == bytes((JOIN_ROOM,)):
        conn.send_binary(bytes((JOIN_ROOM,)))  # the client's acknowledgement of its join
        if not room.joined[k].done():
            room.joined[k].set_result(None)
    elif data[:1] == bytes((ROOM_DATA,)):
        room.received(data)


# -- joining ----------------------------------------------------------------------------------


async def matchmake(port: int, code: str) -> str:
    """Colyseus's HTTP matchmaking: the WebSocket path of a seat in the room ``code``."""
    reader, writer = await asyncio.open_connection(HOST, port)
    payload = json.dumps({"code": code}).encode()
    writer.write(
        b"POST /matchmake/joinOrCreate/relay HTTP/1.1\r\nHost: x\r\nContent-Type: "
        b"application/json\r\nConnection: close\r\nContent-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload
    )
    raw = await reader.read()
    writer.close()
    text = raw.split(b"\r\n\r\n", 1)[-1]  # one JSON object, possibly in one chunk
    answer = json.loads(text[text.find(b"{") : text.rfind(b"}") + 1] or b"{}")
    if "room" not in answer:
        raise RuntimeError(f"Colyseus refused the join: {answer}")
    room = answer["room"]
    return f"/{room['processId']}/{room['roomId']}?sessionId={answer['sessionId']}"


async def join(port: int, room: RelayRoom, i: int, k: int) -> None:
    if room.colyseus:
        path = await matchmake(port, f"B{i}")
        room.conns[k] = await connect(HOST, port, path, on_colyseus, (room, k))
        await asyncio.wait_for(room.joined[k], 30)
    else:
        room.conns[k] = await connect(HOST, port, f"/ws/B{i}", on_fastapi, (room, k))


async def drive(
    port: int, pid: int, kind: str, traffic: Traffic, warmup: float, seconds: float
) -> tuple[Window, int]:
    """Open the rooms, let them act, measure one window; returns it and the RSS (KB) with the
    rooms open, read before they start acting."""
    stats = Stats()
    rng = random.Random(7)
    colyseus = kind != "fastapi"
    rooms = [RelayRoom(stats, traffic, colyseus, rng) for _ in range(traffic.rooms)]
    jobs = [
        lambda room=room, i=i, k=k: join(port, room, i, k)
        for i, room in enumerate(rooms)
        for k in range(8)
    ]
    await asyncio.wait_for(in_parallel(jobs, 32), 120 + traffic.rooms * 0.5)
    await asyncio.sleep(1.0)
    rss_open = mem_kb(pid, "VmRSS")
    loop = asyncio.get_running_loop()
    for room in rooms:
        loop.call_later(rng.uniform(0, traffic.action_gap_s), room.act)
    window = await measure(stats, pid, warmup, seconds)
    for room in rooms:
        for c in room.conns:
            if c is not None:
                c.close()
    return window, rss_open


# -- a run ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def unavailable(kind: str) -> str | None:
    """Why the relay ``kind`` cannot run here, or None."""
    if kind == "fastapi":
        return None
    if shutil.which("node") is None:
        return "Node.js is not installed"
    if not (COLYSEUS_DIR / "node_modules" / "@colyseus" / "core").is_dir():
        return f"its npm packages are not installed: npm ci --prefix {COLYSEUS_DIR}"
    if kind == DURABLE:
        return sqlite_unavailable()
    return None


def sqlite_unavailable() -> str | None:
    """Why the durable relay's better-sqlite3 cannot be loaded here (not built, or built for
    another Node.js), or None."""
    rebuild = f"npm rebuild better-sqlite3 --nodedir=/usr --prefix {COLYSEUS_DIR}"
    if not SQLITE_ADDON.is_file():
        return f"better-sqlite3 is not built (it compiles at install): {rebuild}"
    probe = subprocess.run(
        ["node", "-e", "require('better-sqlite3')"],
        check=False,
        cwd=COLYSEUS_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        lines = [line for line in probe.stderr.splitlines() if line.strip()]
        why = next((line for line in lines if "Error" in line), lines[-1] if lines else "")
        return f"better-sqlite3 does not load ({why.strip()}): {rebuild}"
    return None


def relay_argv(kind: str, db_file: Path | None) -> list[str]:
    """The relay's command line; the durable one stores into ``db_file``."""
    if kind == "fastapi":
        return [sys.executable, "-m", "crisp.bench.load_baseline", "--host", HOST, "--port", "0"]
    store = [str(db_file)] if db_file is not None else []
    return ["node", str(COLYSEUS_DIR / "relay.js"), str(free_port()), *store]


def store_figures(db_file: Path) -> dict[str, Any]:
    """What the durable relay wrote at its stop: its commits, changes and µs a commit."""
    figures: dict[str, Any] = json.loads(Path(f"{db_file}.figures.json").read_text())
    commits = figures["commits"]
    figures["changes_per_commit"] = round(figures["changes"] / commits, 2) if commits else None
    return figures


def run_relay(
    kind: str,
    traffic: Traffic,
    warmup: float,
    seconds: float,
    env: dict[str, str],
    server_core: set[int] | None,
    store_dir: Path | None = None,
) -> dict[str, Any]:
    """One relay row: the same traffic as the game's human-pace run, through ``kind``. The
    durable relay's database is ``relay.sqlite3`` in ``store_dir`` (default: a temporary
    directory, removed after)."""
    with tempfile.TemporaryDirectory(prefix="crisp-relay-") as tmp:
        db_file = (store_dir or Path(tmp)) / "relay.sqlite3" if kind == DURABLE else None
        server = Server(relay_argv(kind, db_file), env, server_core)
        try:
            time.sleep(0.5)
            rss_empty = mem_kb(server.pid, "VmRSS")
            window, rss_open = asyncio.run(
                drive(server.port, server.pid, kind, traffic, warmup, seconds)
            )
            peak = mem_kb(server.pid, "VmHWM")
        finally:
            server.stop()
        row: dict[str, Any] = {
            "relay": kind,
            "rooms": traffic.rooms,
            **window.to_json(),
            "server_rss_open_mb": round(rss_open / 1024, 1),
            "server_peak_rss_mb": round(peak / 1024, 1),
            "kb_per_room": round((rss_open - rss_empty) / traffic.rooms, 1),
        }
        if db_file is not None:
            row["store"] = store_figures(db_file)
        return row
