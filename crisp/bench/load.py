"""``crisp bench load``: many rooms of 8 scripted players over real WebSockets, and a baseline.

What it measures. This process is the load generator (pinned to one core); it starts a real
``crisp serve`` on 127.0.0.1 (its own data directory in a temporary folder, pinned to the other
core) and opens ``--rooms`` R rooms of 8 players, each player its own WebSocket, through the lean
frame-level client of ``crisp.bench.load_ws`` (one asyncio protocol per socket; the ``websockets``
library would saturate this core before the server's). Every player acts from its own messages
only, legally: ``ready`` when its ``round`` comes, ``draw`` when its ``turn`` comes at its ``at``,
then ``king`` for a King, ``swap`` for an Ace, 2 or 3, ``discard`` otherwise; one seat calls
``crisp`` in its window once a round has had 24 turns; ``continue`` between rounds; the host sends
``rematch`` and ``start`` when a game is over. Refused messages (``error``) are counted and
printed; a refused player asks for a ``state`` (``sync``) and goes on from it.

1. **Throughput (game).** The rule times sped up by ``--clock-speed`` (the 2 s before the next
   draw becomes 2 s / speed), players acting as soon as the rules allow, for ``--seconds`` after a
   warm-up. Printed: actions per second (accepted), messages delivered per second (text frames
   received by all the sockets), the time from an action to the *last* of its room's 8 sockets
   receiving its message (p50, p95, p99; the server's SQLite commit is inside), the server's CPU
   (share of its core) and peak memory (VmHWM), memory per room (RSS with the R rooms open and
   dealt, minus the RSS of the empty server, divided by R), and this generator's own CPU share.
2. **Baseline.** The same generator, same R, against ``crisp.bench.load_baseline``: FastAPI +
   uvicorn with the same settings and no game logic (each message re-sent to the 8 sockets of its
   room). In each room the players take turns: a player sends one message of the size of a game
   message when it receives the previous player's, so one message is in flight per room. Printed:
   the same figures, and the game's messages per second as a ratio of the baseline's.
3. **Human pace** (``--human R1,R2,…``): R rooms at ``--clock-speed 1`` (the real rule times) and
   the default rate limits, players thinking like people (ready after 1-4 s, draw 0.5-1.5 s after
   the turn is due, play the card 0.8-1.6 s later, continue 2-5 s into the reveal): about one
   action every 2-3 s per room. For each R in turn (stopping at the first that fails): p50/p99 and
   the server's memory; the largest R whose p99 stays under 100 ms is the capacity.

Bounded in time: every phase has a deadline, and the servers are stopped at the end. The figures
are for this machine only; other processes on it (tests, builds) disturb them.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crisp.bench.load_gc import read_pauses
from crisp.bench.load_ws import WsConn, connect
from crisp.server.socket.files import raise_file_limit

NAMES = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Fay", "Gus", "Hana"]
CRISP_AFTER = 24  # turns in a round before a player calls crisp in its window
TIMED = frozenset(("draw", "discard", "swap", "king", "crisp"))
HOST = "127.0.0.1"
loads = json.loads
# hello with frames "array" (docs/protocol.md, Frames); CRISP_BENCH_FRAMES=one: one message per
# frame (for a server from before frames, which refuses the field)
FRAMES = {} if os.environ.get("CRISP_BENCH_FRAMES") == "one" else {"frames": "array"}
# Human pace: each host starts its game at a random moment within this many seconds of every room
# being open, as the rooms of a real server start at their own times. Started in the same instant,
# 2,000 rooms played their first turns in lockstep: a burst of about 1.7x the steady rate of
# actions whose queue lasted into the measured window (docs/performance.md).
HUMAN_STAGGER_S = 10.0


# -- processes ----------------------------------------------------------------------------------


def cores() -> tuple[set[int] | None, set[int] | None]:
    """(server core, generator core): one each if this process may use two, else no pinning
    (nor with CRISP_BENCH_PIN=0: a server of several processes, ``--workers``, may use them all)."""
    mine = sorted(os.sched_getaffinity(0))
    if len(mine) < 2 or os.environ.get("CRISP_BENCH_PIN") == "0":
        return None, None
    return {mine[0]}, {mine[1]}


def cpu_seconds(pid: int) -> float:
    """The CPU time of the process and its children (the workers and HAProxy of --workers)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def mem_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


class Server:
    """A server process on ``core``, started with ``argv``; ``port`` once it printed its URL."""

    def __init__(self, argv: list[str], env: dict[str, str], core: set[int] | None) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        if core is not None:  # before it has started its event loop (it has no other thread)
            os.sched_setaffinity(self.proc.pid, core)
        self.port = 0
        self.lines: list[str] = []
        ready = threading.Event()

        def drain() -> None:  # keep the pipe empty so the server never blocks on its output
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                if not self.port and "http://127.0.0.1:" in line:
                    self.port = int(line.rsplit(":", 1)[1].strip().strip("/"))
                    ready.set()
                elif len(self.lines) < 200:
                    self.lines.append(line.rstrip())
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(60) or not self.port:
            self.stop()
            raise RuntimeError("the server did not start: " + "\n".join(self.lines[-20:]))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # as Ctrl-C: a clean stop (cProfile writes)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


# -- figures ------------------------------------------------------------------------------------


@dataclass
class Stats:
    measuring: bool = False
    start: float = 0.0
    msgs: int = 0  # messages (events) received by all the sockets
    frames: int = 0  # text frames received (a frame may hold several messages)
    probes: int = 0  # of the messages: round-trip probes
    probe_frames: int = 0  # of the frames: those that held probes only (no message of the game)
    probe_frame_bytes: int = 0  # their payload bytes
    bytes: int = 0  # payload bytes of the frames received
    actions: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)

    def begin(self) -> None:
        self.msgs = self.frames = self.probes = self.bytes = self.actions = 0
        self.probe_frames = self.probe_frame_bytes = 0
        self.latencies = []
        self.start = time.perf_counter()
        self.measuring = True


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Window:
    """What one measured window gave."""

    seconds: float
    msgs_per_s: float
    frames_per_s: float
    bytes_per_frame: float
    probe_share: float
    probe_frames_per_s: float  # frames that held probes only
    game_frame_bytes: float  # mean payload of the other frames
    actions_per_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    timed: int
    server_cpu_pct: float
    generator_cpu_pct: float
    errors: dict[str, int]

    def to_json(self, prefix: str = "") -> dict[str, Any]:
        return {
            prefix + k: v
            for k, v in {
                "msgs_per_s": round(self.msgs_per_s),
                "frames_per_s": round(self.frames_per_s),
                "bytes_per_frame": round(self.bytes_per_frame),
                "msgs_per_action": round(self.msgs_per_s / self.actions_per_s, 2)
                if self.actions_per_s
                else None,
                "frames_per_action": round(self.frames_per_s / self.actions_per_s, 2)
                if self.actions_per_s
                else None,
                "probe_share": round(self.probe_share, 3),
                "probe_frames_per_s": round(self.probe_frames_per_s, 1),
                "game_frame_bytes": round(self.game_frame_bytes),
                "actions_per_s": round(self.actions_per_s),
                "p50_ms": round(self.p50_ms, 2),
                "p95_ms": round(self.p95_ms, 2),
                "p99_ms": round(self.p99_ms, 2),
                "max_ms": round(self.max_ms, 2),
                "timed_actions": self.timed,
                "server_cpu_pct": round(self.server_cpu_pct, 1),
                # CPU per message delivered: steadier than msgs/s on a machine shared with
                # other work (the server waits for its core there, and is not charged for it)
                "server_cpu_us_per_msg": round(self.server_cpu_pct * 1e4 / self.msgs_per_s, 1)
                if self.msgs_per_s
                else None,
                "generator_cpu_pct": round(self.generator_cpu_pct, 1),
                "errors": self.errors,
            }.items()
        }


async def measure(stats: Stats, pid: int, warmup: float, seconds: float) -> Window:
    # This generator's own collector does not run in the window: with thousands of sockets open,
    # its full collections paused it for 190-260 ms every 9 s at 2,000 rooms, and the messages
    # waiting meanwhile counted as the server's latency.
    gc.collect()
    gc.disable()
    try:
        await asyncio.sleep(warmup)
        cpu0, mine0 = cpu_seconds(pid), time.process_time()
        stats.begin()
        await asyncio.sleep(seconds)
        stats.measuring = False
    finally:
        gc.enable()
    elapsed = time.perf_counter() - stats.start
    cpu1, mine1 = cpu_seconds(pid), time.process_time()
    game_frames = stats.frames - stats.probe_frames
    ms = [x * 1000 for x in stats.latencies]
    return Window(
        seconds=elapsed,
        msgs_per_s=stats.msgs / elapsed,
        frames_per_s=stats.frames / elapsed,
        bytes_per_frame=stats.bytes / stats.frames if stats.frames else 0.0,
        probe_share=stats.probes / stats.msgs if stats.msgs else 0.0,
        probe_frames_per_s=stats.probe_frames / elapsed,
        game_frame_bytes=(stats.bytes - stats.probe_frame_bytes) / game_frames
        if game_frames
        else 0.0,
        actions_per_s=stats.actions / elapsed,
        p50_ms=statistics.median(ms) if ms else float("nan"),
        p95_ms=percentile(ms, 0.95),
        p99_ms=percentile(ms, 0.99),
        max_ms=max(ms) if ms else float("nan"),
        timed=len(ms),
        server_cpu_pct=100 * (cpu1 - cpu0) / elapsed,
        generator_cpu_pct=100 * (mine1 - mine0) / elapsed,
        errors=dict(stats.errors),
    )


# -- HTTP (room creation and joins) ----------------------------------------------------------------


class Http:
    """A keep-alive HTTP/1.1 connection for the JSON POSTs that create and join rooms."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Http:
        return cls(*await asyncio.open_connection(HOST, port))

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        answer = await self.reader.readexactly(length)
        if " 201 " not in head.split("\r\n", 1)[0] + " ":
            raise RuntimeError(f"POST {path}: {head.splitlines()[0]} {answer[:200]!r}")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        self.writer.close()


async def in_parallel(jobs: Sequence[Callable[[], Any]], width: int) -> list[Any]:
    sem = asyncio.Semaphore(width)

    async def one(job: Callable[[], Any]) -> Any:
        async with sem:
            return await job()

    return await asyncio.gather(*(one(j) for j in jobs))


# -- the game's players -------------------------------------------------------------------------


@dataclass
class Pace:
    speed: float  # the server's clock speed
    human: bool
    go: bool = False  # the hosts start once every room is open (so setup is not slowed by play)
    stagger_s: float = 0.0  # human pace: each host starts at a random moment within this
    rng: random.Random = field(default_factory=lambda: random.Random(6))

    def think(self, low: float, high: float) -> float:
        return self.rng.uniform(low, high) if self.human else 0.0

    def start_delay(self) -> float:
        """When a host starts its game, from the moment every room is open."""
        return self.think(0.0, self.stagger_s)


class GameRoom:
    def __init__(self, code: str, stats: Stats, pace: Pace) -> None:
        self.code = code
        self.stats = stats
        self.pace = pace
        self.players: list[Player] = []
        # (do, seat) -> that seat's actions of that kind, in order: [t0, got, refused]
        self.sends: dict[tuple[str, int], list[list[float]]] = {}
        self.round_v = -1
        self.turns = 0
        self.caller: int | None = None
        self.started_game = -1
        self.rematched_game = -1

    def sent(self, player: Player, do: str) -> None:
        entry = [time.perf_counter(), 0.0, 0.0]
        actions = self.sends.setdefault((do, player.seat), [])
        actions.append(entry)
        player.last = (do, player.seat, len(actions) - 1)
        player.outstanding.append((do, entry))

    def arrived(self, player: Player, do: str, seat: int) -> None:
        """The player got the message of seat's next action of kind ``do`` (refused ones bring
        none: they are skipped); the 8th player to get it times it."""
        key = (do, seat)
        actions = self.sends.get(key)
        if not actions:
            return
        i = player.seen.get(key, 0)
        while i < len(actions) and actions[i][2]:
            i += 1
        player.seen[key] = i + 1
        if i >= len(actions):
            return
        entry = actions[i]
        if seat == player.seat:
            player.answered(entry)
        entry[1] += 1
        if entry[1] == 8:
            stats = self.stats
            if stats.measuring and entry[0] >= stats.start:
                stats.latencies.append(time.perf_counter() - entry[0])
                stats.actions += 1

    def refused(self, player: Player) -> None:
        """The player's oldest unanswered action was refused (the server answers a phone's
        messages in order, behind the commits): it will bring no message."""
        player.last = None
        if not player.outstanding:
            return
        do, entry = player.outstanding.popleft()
        entry[2] = 1.0
        if do == "crisp" and self.caller == player.seat:
            self.caller, self.turns = None, 0  # the window closed first: call again 24 turns on


class Player:
    def __init__(self, room: GameRoom, index: int, token: str) -> None:
        self.room = room
        self.index = index  # joining order; the game seat too (the first 8 members are seated)
        self.seat = index
        self.token = token
        self.v = 0
        self.seen: dict[tuple[str, int], int] = {}
        # this player's actions not answered yet, oldest first: (do, its entry in room.sends)
        self.outstanding: collections.deque[tuple[str, list[float]]] = collections.deque()
        self.last: tuple[str, int, int] | None = None
        self.continued = False
        self.syncing = False
        self.conn: WsConn | None = None

    def send(self, msg: dict[str, Any]) -> None:
        if self.conn is not None:
            self.conn.send_text(json.dumps(msg, separators=(",", ":")).encode())

    def answered(self, entry: list[float]) -> None:
        """This player's own action (``entry``) came back: it is not waiting for an answer."""
        for i, (_do, mine) in enumerate(self.outstanding):
            if mine is entry:
                del self.outstanding[i]
                return

    def act(self, do: str, **fields: Any) -> None:
        if self.conn is None or self.conn.closed:
            return
        self.room.sent(self, do) if do in TIMED else None
        self.send({"type": "act", "v": self.v, "do": do, **fields})

    def later(self, delay: float, fn: Callable[[], None]) -> None:
        if delay <= 0:
            fn()
        else:
            asyncio.get_running_loop().call_later(delay, fn)

    def play(self, card: str) -> None:
        if card[0] == "K":
            self.act("king")
        elif card[0] in "A23":
            self.act("swap", slot=("left", "right", "middle")[self.room.turns % 3])
        else:
            self.act("discard")

    def draw_at(self, at: float, t: float) -> None:
        pace = self.room.pace
        wait = max(0.0, at - t) / pace.speed + 0.0005 + pace.think(0.5, 1.5)
        self.later(wait, lambda: self.act("draw"))


TIMED_B = {t.encode(): t for t in TIMED}
PARSED = frozenset((b"error", b"round", b"room", b"state", b"welcome", b"game", b"reveal"))


PARSED_S = frozenset(t.decode() for t in PARSED)


def on_game_text(conn: WsConn, data: bytes) -> None:
    """One frame to a player: one message, or an array of several (docs/protocol.md, Frames:
    parsed, each handled in turn). A lone message of the frequent kinds is read from its bytes
    (the server's compact JSON: ``"type"`` near the start, ``"seat"`` after it, ``"v"`` last);
    the rest are parsed."""
    p: Player = conn.owner
    room = p.room
    stats = room.stats
    if stats.measuring:
        stats.bytes += len(data)
    if data[:1] == b"[":
        msgs = loads(data)
        if stats.measuring:
            stats.frames += 1
            stats.msgs += len(msgs)
            if all(msg.get("type") == "probe" for msg in msgs):
                probe_frame(stats, len(data))
        for msg in msgs:
            on_game_dict(p, msg)
        return
    if stats.measuring:
        stats.msgs += 1
        stats.frames += 1
    i = data.find(b'"type":"') + 8
    typ = data[i : data.find(b'"', i)]
    if typ == b"probe":
        if stats.measuring:
            probe_frame(stats, len(data))
        on_probe(p, loads(data))
        return
    if typ in PARSED or not data.endswith(b"}"):
        on_game_message(p, loads(data))
        return
    x = data.rfind(b'"v":')
    if x > 0:
        p.v = max(p.v, int(data[x + 4 : -1]))
    k = data.find(b'"seat":', i)
    seat = data[k + 7] - 48 if k > 0 else -1
    do = TIMED_B.get(typ)
    if do is not None:
        room.arrived(p, do, seat)
        if typ == b"draw" and seat == p.seat and b'"card"' in data:
            on_game_message(p, loads(data))
        elif typ == b"crisp":
            room.caller = seat
    elif typ == b"turn_end":
        if p.index == 0:
            room.turns += 1
        if (
            seat == p.seat
            and room.caller is None
            and room.turns >= CRISP_AFTER
            and b'"window_until":null' not in data
        ):
            room.caller = seat
            p.act("crisp")
    elif typ == b"turn" and seat == p.seat:
        on_game_message(p, loads(data))


def probe_frame(stats: Stats, size: int) -> None:
    """A frame that held probes only: no traffic of the game's (the relays carry none)."""
    stats.probe_frames += 1
    stats.probe_frame_bytes += size


def on_probe(p: Player, msg: dict[str, Any]) -> None:
    """A round-trip probe: answered at once, as a phone does (R-WINDOW-LAG)."""
    stats = p.room.stats
    if stats.measuring:
        stats.probes += 1
    p.send({"type": "probe_ack", "n": msg["n"]})


def on_game_dict(p: Player, msg: dict[str, Any]) -> None:
    """One message of an array frame, parsed: what ``on_game_text`` does with its bytes."""
    typ = msg.get("type")
    if typ == "probe":
        on_probe(p, msg)
        return
    if typ in PARSED_S:
        on_game_message(p, msg)
        return
    room = p.room
    v = msg.get("v")
    if isinstance(v, int) and v > p.v:
        p.v = v
    seat = msg.get("seat")
    seat = seat if isinstance(seat, int) else -1
    if typ in TIMED:
        assert isinstance(typ, str)
        room.arrived(p, typ, seat)
        if typ == "draw" and seat == p.seat and "card" in msg:
            on_game_message(p, msg)
        elif typ == "crisp":
            room.caller = seat
    elif typ == "turn_end":
        if p.index == 0:
            room.turns += 1
        if (
            seat == p.seat
            and room.caller is None
            and room.turns >= CRISP_AFTER
            and msg.get("window_until") is not None
        ):
            room.caller = seat
            p.act("crisp")
    elif typ == "turn" and seat == p.seat:
        on_game_message(p, msg)


def on_game_message(p: Player, msg: dict[str, Any]) -> None:
    room = p.room
    stats = room.stats
    typ = msg["type"]
    if typ == "error":
        stats.errors[f"{msg.get('code')}:{msg.get('rule') or msg.get('about')}"] += 1
        if msg.get("about") == "act":
            crisp = p.last is not None and p.last[0] == "crisp"
            if msg.get("rule") != "R-LOOK-PHASE":  # that is a "ready", which is not timed
                room.refused(p)
            if not crisp:  # a refused call changes nothing of the turns: no need to resync
                p.syncing = True
                p.send({"type": "sync"})
        return
    v = msg.get("v")
    if v is not None and v > p.v:
        p.v = v
    seat = msg.get("seat")
    if typ == "turn":
        p.draw_at(msg["at"], msg["t"])
    elif typ == "draw":
        card = msg["card"]
        p.later(room.pace.think(0.8, 1.6), lambda: p.play(card))
    elif typ == "round":
        if room.round_v != v:
            room.round_v, room.turns, room.caller = v if v is not None else 0, 0, None
        p.continued = False
        p.later(room.pace.think(1.0, 4.0), lambda: p.act("ready"))
    elif typ == "room":
        on_room(p, msg)
    elif typ == "state" and p.syncing:
        p.syncing = False
        resync(p, msg)
    elif typ in TIMED and seat is not None:  # a message that was not read from its bytes
        room.arrived(p, typ, seat)


def on_room(p: Player, msg: dict[str, Any]) -> None:
    room = p.room
    phase = msg["phase"]
    if phase == "between" and not p.continued:
        p.continued = True
        p.later(room.pace.think(2.0, 5.0), lambda: p.send({"type": "continue"}))
    elif p.index == 0 and phase == "over" and room.rematched_game != msg["game"]:
        room.rematched_game = msg["game"]
        p.send({"type": "rematch"})
    elif (
        p.index == 0
        and phase == "lobby"
        and room.started_game != msg["game"]
        and room.pace.go
        and len(msg["members"]) == 8
        and all(m["connected"] for m in msg["members"])
    ):
        room.started_game = msg["game"]
        p.send({"type": "start"})


def resync(p: Player, msg: dict[str, Any]) -> None:
    """After a refusal: go on from the snapshot."""
    view = msg.get("view")
    if not view or view.get("over"):
        return
    rnd = view["round"]
    if rnd["phase"] == "look" and not rnd["ready"][p.seat]:
        p.act("ready")
    elif rnd["phase"] == "play" and rnd.get("turn") and rnd["turn"]["seat"] == p.seat:
        card = (rnd.get("you") or {}).get("card")
        if card:
            p.play(card)
        else:
            p.draw_at(rnd["turn"]["at"], msg["now"] or 0.0)


async def open_game(port: int, rooms: int, stats: Stats, pace: Pace) -> list[GameRoom]:
    """R rooms of 8 members over HTTP, 8 sockets each with their hello; the hosts start."""
    pool = [await Http.open(port) for _ in range(8)]
    free: asyncio.Queue[Http] = asyncio.Queue()
    for h in pool:
        free.put_nowait(h)

    async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        h = await free.get()
        try:
            return await h.post(path, body)
        finally:
            free.put_nowait(h)

    async def make() -> tuple[str, list[str]]:
        host = await post("/api/rooms", {"name": NAMES[0]})
        code = host["code"]
        tokens = [host["token"]]
        for name in NAMES[1:]:
            tokens.append((await post(f"/api/rooms/{code}/join", {"name": name}))["token"])
        return code, tokens

    made = await in_parallel([make for _ in range(rooms)], 8)
    for h in pool:
        h.close()
    result = []
    jobs = []
    for code, tokens in made:
        room = GameRoom(code, stats, pace)
        room.players = [Player(room, i, tok) for i, tok in enumerate(tokens)]
        result.append(room)
        for p in room.players:

            async def job(p: Player = p, code: str = code) -> None:
                p.conn = await connect(HOST, port, f"/ws/{code}", on_game_text, p)
                p.send({"type": "hello", "token": p.token, **FRAMES})

            jobs.append(job)
    await in_parallel(jobs, 64)
    await wait_until(lambda: all(p.v > 0 for r in result for p in r.players), 30 + rooms * 0.05)
    pace.go = True
    for room in result:  # every member said hello (its welcome came): the hosts start
        room.started_game = 0
        host = room.players[0]
        host.later(pace.start_delay(), starter(host))
    return result


def starter(host: Player) -> Callable[[], None]:
    """What starts this host's game when its turn to start comes."""
    return lambda: host.send({"type": "start"})


async def wait_until(check: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        await asyncio.sleep(0.05)
    return check()


async def run_game(
    port: int, pid: int, rooms: int, pace: Pace, warmup: float, seconds: float
) -> tuple[Window, dict[str, Any]]:
    stats = Stats()
    base_kb = mem_kb(pid, "VmRSS")
    t0 = time.perf_counter()
    opened = await asyncio.wait_for(open_game(port, rooms, stats, pace), 60 + rooms * 0.2)
    # every room dealt: each room's first `round` was seen
    await wait_until(lambda: all(r.round_v >= 0 for r in opened), 30 + rooms * 0.02)
    setup_s = time.perf_counter() - t0
    dealt = sum(r.round_v >= 0 for r in opened)
    open_kb = mem_kb(pid, "VmRSS")
    window = await measure(stats, pid, warmup, seconds)
    peak_kb = mem_kb(pid, "VmHWM")
    end_kb = mem_kb(pid, "VmRSS")
    collector = await read_pauses(HOST, port)
    for r in opened:
        for p in r.players:
            if p.conn is not None:
                p.conn.close()
    extra = {
        "setup_s": round(setup_s, 1),
        "rooms_dealt": dealt,
        "server_rss_empty_mb": round(base_kb / 1024, 1),
        "server_rss_open_mb": round(open_kb / 1024, 1),
        "server_rss_end_mb": round(end_kb / 1024, 1),
        "server_peak_rss_mb": round(peak_kb / 1024, 1),
        "kb_per_room": round((open_kb - base_kb) / max(1, rooms), 1),
        **collector,
    }
    return window, extra


# -- the baseline's players ---------------------------------------------------------------------


class BaseRoom:
    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.conns: list[WsConn] = []
        self.n = 0
        self.pending: dict[int, list[float]] = {}

    def send(self, index: int) -> None:
        n = self.n
        self.n += 1
        self.pending[n] = [time.perf_counter(), 0.0]
        body = (
            f'{{"t":{n % 997 + 0.25},"type":"discard","seat":{index},"card":"7H",'
            f'"n":{n},"v":{n + 17}}}'
        )
        self.conns[index].send_text(body.encode())


def on_base_text(conn: WsConn, data: bytes) -> None:
    room, index = conn.owner
    stats = room.stats
    if stats.measuring:
        stats.msgs += 1
        stats.frames += 1
        stats.bytes += len(data)
    j = data.find(b'"n":') + 4
    n = int(data[j : data.find(b",", j)])
    entry = room.pending.get(n)
    if entry is not None:
        entry[1] += 1
        if entry[1] == 8:
            del room.pending[n]
            if stats.measuring and entry[0] >= stats.start:
                stats.latencies.append(time.perf_counter() - entry[0])
                stats.actions += 1
    k = data.find(b'"seat":') + 7
    if index == (data[k] - 47) % 8 and not conn.closed:
        room.send(index)  # my turn: the previous player's message reached me


async def run_baseline(port: int, pid: int, rooms: int, warmup: float, seconds: float) -> Window:
    stats = Stats()
    made = [BaseRoom(stats) for _ in range(rooms)]
    jobs = []
    for i, room in enumerate(made):
        room.conns = [None] * 8  # type: ignore[list-item]
        for k in range(8):

            async def job(room: BaseRoom = room, i: int = i, k: int = k) -> None:
                room.conns[k] = await connect(HOST, port, f"/ws/B{i}", on_base_text, (room, k))

            jobs.append(job)
    await asyncio.wait_for(in_parallel(jobs, 64), 60 + rooms * 0.2)
    await asyncio.sleep(0.5)
    for room in made:
        room.send(0)
    window = await measure(stats, pid, warmup, seconds)
    for room in made:
        for c in room.conns:
            c.close()
    return window


# -- main ---------------------------------------------------------------------------------------


def server_env(fast: bool) -> dict[str, str]:
    env = {
        **os.environ,
        "CRISP_LOG_LEVEL": "warning",
        "CRISP_ACCESS_LOG": "false",
        "CRISP_LIMIT_EXEMPT_IPS": '["127.0.0.1"]',
    }  # every room from one address
    if fast:  # players acting as fast as the rules allow exceed a phone's rate limit
        env.update(CRISP_RATE_PER_S="1000", CRISP_RATE_BURST="1000")
    return env


def game_argv(tmp: str, speed: float) -> list[str]:
    profile = os.environ.get("CRISP_LOAD_PROFILE")  # a file: the game server runs under cProfile
    prof = ["-m", "cProfile", "-o", profile] if profile else []
    return [
        sys.executable,
        *prof,
        "-m",
        "crisp",
        "serve",
        "--host",
        HOST,
        "--port",
        "0",
        "--data-dir",
        tmp,
        "--clock-speed",
        str(speed),
    ]


def run_throughput(
    rooms: int,
    speed: float,
    warmup: float,
    seconds: float,
    baseline: bool,
    server_core: set[int] | None,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(game_argv(tmp, speed), server_env(True), server_core)
        try:
            game, extra = asyncio.run(
                run_game(server.port, server.pid, rooms, Pace(speed, False), warmup, seconds)
            )
        finally:
            server.stop()
    result: dict[str, Any] = {"rooms": rooms, "clock_speed": speed}
    result.update(game.to_json("game_"))
    result.update(extra)
    if baseline:
        argv = [sys.executable, "-m", "crisp.bench.load_baseline", "--host", HOST, "--port", "0"]
        server = Server(argv, server_env(True), server_core)
        try:
            base = asyncio.run(run_baseline(server.port, server.pid, rooms, warmup, seconds))
            base_peak = mem_kb(server.pid, "VmHWM")
        finally:
            server.stop()
        result.update(base.to_json("baseline_"))
        result["baseline_peak_rss_mb"] = round(base_peak / 1024, 1)
        result["ratio"] = round(game.msgs_per_s / base.msgs_per_s, 3) if base.msgs_per_s else None
    # the names the issue asks for
    result["p50_ms"], result["p95_ms"] = result["game_p50_ms"], result["game_p95_ms"]
    result["p99_ms"] = result["game_p99_ms"]
    return result


def run_human(
    rooms: int,
    warmup: float,
    seconds: float,
    server_core: set[int] | None,
    stagger_s: float = HUMAN_STAGGER_S,
) -> dict[str, Any]:
    pace = Pace(1.0, True, stagger_s=stagger_s)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(game_argv(tmp, 1.0), server_env(False), server_core)
        try:
            window, extra = asyncio.run(
                run_game(server.port, server.pid, rooms, pace, warmup, seconds)
            )
        finally:
            server.stop()
    return {"rooms": rooms, "stagger_s": stagger_s, **window.to_json(), **extra}


def machine() -> str:
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{cpu or platform.processor()}, {os.cpu_count()} cores, {platform.machine()}, "
        f"Linux {platform.release()}, Python {platform.python_version()}"
    )


def main(
    rooms: int,
    seconds: float,
    warmup: float,
    clock_speed: float,
    baseline: bool,
    human: list[int],
    human_seconds: float,
    as_json: bool,
    relays: Sequence[str] = (),
    human_stagger_s: float = HUMAN_STAGGER_S,
) -> int:
    nofile = raise_file_limit()
    server_core, gen_core = cores()
    if gen_core is not None:
        os.sched_setaffinity(0, gen_core)
    if rooms * 8 + 100 > nofile or any(r * 8 + 100 > nofile for r in human):
        print(f"crisp bench load: the open-file limit ({nofile}) is too low", file=sys.stderr)
        return 2
    report: dict[str, Any] = {
        "benchmark": "load",
        "machine": machine(),
        "server_core": sorted(server_core) if server_core else None,
        "generator_core": sorted(gen_core) if gen_core else None,
    }
    if rooms > 0:
        report.update(run_throughput(rooms, clock_speed, warmup, seconds, baseline, server_core))
        if not as_json:
            print_throughput(report)
    if human:
        runs = []
        capacity = None
        for r in human:
            run = run_human(r, max(warmup, 5.0), human_seconds, server_core, human_stagger_s)
            run["ok"] = run["p99_ms"] < 100
            runs.append(run)
            if not as_json:
                print_human(run)
            run["relays"] = [
                relay_row(kind, run, max(warmup, 5.0), human_seconds, server_core, as_json)
                for kind in relays
            ]
            if not run["ok"]:
                break
            capacity = run
        report["human"] = runs
        report["human_capacity_rooms"] = capacity["rooms"] if capacity else 0
        report["human_capacity_peak_rss_mb"] = capacity["server_peak_rss_mb"] if capacity else None
        if not as_json:
            print(
                f"Human-pace capacity: {report['human_capacity_rooms']} rooms of 8 with p99 "
                f"under 100 ms (server peak RSS {report['human_capacity_peak_rss_mb']} MB)"
            )
    if as_json:
        print(json.dumps(report))
    return 0


def relay_row(
    kind: str,
    game: dict[str, Any],
    warmup: float,
    seconds: float,
    server_core: set[int] | None,
    as_json: bool,
) -> dict[str, Any]:
    """The same player-visible traffic as the human-pace run ``game``, through a bare relay
    (crisp/bench/load_relays.py): its CPU, latency and memory beside the game's."""
    from crisp.bench import load_relays

    why = load_relays.unavailable(kind)
    if why is not None or not game["actions_per_s"]:
        row: dict[str, Any] = {"relay": kind, "skipped": why or "the game run timed no action"}
        if not as_json:
            print(f"  relay {kind}: not run ({row['skipped']})")
        return row
    # the game's frames but those that held probes only (a probe that rode with the game's
    # messages is in their frame: the relay carries that frame, a little shorter)
    traffic = load_relays.Traffic(
        rooms=game["rooms"],
        action_gap_s=game["rooms"] / game["actions_per_s"],
        frames_per_action=max(
            1.0, (game["frames_per_s"] - game["probe_frames_per_s"]) / 8 / game["actions_per_s"]
        ),
        frame_bytes=max(60, game["game_frame_bytes"]),
    )
    row = load_relays.run_relay(kind, traffic, warmup, seconds, server_env(False), server_core)
    row["game_cpu_ratio"] = (
        round(game["server_cpu_pct"] / row["server_cpu_pct"], 2) if row["server_cpu_pct"] else None
    )
    row["game_memory_ratio"] = (
        round(game["kb_per_room"] / row["kb_per_room"], 2) if row["kb_per_room"] > 0 else None
    )
    if not as_json:
        print(
            f"  relay {kind}, the same traffic ({traffic.frames_per_action:.2f} frames of "
            f"{traffic.frame_bytes} B per action, one action every {traffic.action_gap_s:.2f} s "
            f"a room): server CPU {row['server_cpu_pct']}%, p50 {row['p50_ms']} ms, p99 "
            f"{row['p99_ms']} ms, {row['kb_per_room']} KB/room; the game needs "
            f"{row['game_cpu_ratio']}x its CPU and {row['game_memory_ratio']}x its memory"
        )
        if "store" in row:
            store = row["store"]
            print(
                f"    its store: {store['commits']} commits of {store['changes']} changes "
                f"({store['changes_per_commit']} a commit), {store['commit_us']} us a commit"
            )
    return row


def print_throughput(r: dict[str, Any]) -> None:
    print(
        f"Load: {r['rooms']} rooms of 8 players, clock speed {r['clock_speed']}, "
        f"{r['machine']}; server on core {r['server_core']}, generator on {r['generator_core']}"
    )
    print(
        f"  game:     {r['game_actions_per_s']} actions/s, {r['game_msgs_per_s']} msgs/s "
        f"in {r['game_frames_per_s']} frames/s ({r['game_msgs_per_action']} msgs, "
        f"{r['game_frames_per_action']} frames per action; probes {r['game_probe_share']}); "
        f"action->last seat p50 {r['game_p50_ms']} ms, p95 {r['game_p95_ms']} ms, "
        f"p99 {r['game_p99_ms']} ms; server CPU {r['game_server_cpu_pct']}%, "
        f"generator CPU {r['game_generator_cpu_pct']}%; refused {r['game_errors'] or 0}"
    )
    print(
        f"            server RSS empty {r['server_rss_empty_mb']} MB, with the rooms "
        f"{r['server_rss_open_mb']} MB ({r['kb_per_room']} KB/room), "
        f"peak {r['server_peak_rss_mb']} MB; setup {r['setup_s']} s, "
        f"{r['rooms_dealt']} rooms dealt; GC {gc_line(r)}"
    )
    if "baseline_msgs_per_s" in r:
        print(
            f"  baseline: {r['baseline_actions_per_s']} msgs in/s, {r['baseline_msgs_per_s']} "
            f"msgs/s; p50 {r['baseline_p50_ms']} ms, p95 {r['baseline_p95_ms']} ms, "
            f"p99 {r['baseline_p99_ms']} ms; server CPU {r['baseline_server_cpu_pct']}%, "
            f"generator CPU {r['baseline_generator_cpu_pct']}%"
        )
        print(
            f"  game / baseline messages per second: {r['ratio']}; "
            f"p99 {r['game_p99_ms']} ms (game) vs {r['baseline_p99_ms']} ms (baseline)"
        )


def print_human(r: dict[str, Any]) -> None:
    print(
        f"Human pace, {r['rooms']} rooms of 8 (clock speed 1): {r['actions_per_s']} actions/s, "
        f"{r['msgs_per_s']} msgs/s in {r['frames_per_s']} frames/s ({r['msgs_per_action']} msgs, "
        f"{r['frames_per_action']} frames per action; probes {r['probe_share']} of the msgs, "
        f"{r['probe_frames_per_s']} frames/s of probes alone); p50 {r['p50_ms']} ms, p99 "
        f"{r['p99_ms']} ms, "
        f"max {r['max_ms']} ms; server CPU {r['server_cpu_pct']}%, generator CPU "
        f"{r['generator_cpu_pct']}%; server RSS {r['server_rss_open_mb']} MB with the rooms, "
        f"peak {r['server_peak_rss_mb']} MB ({r['kb_per_room']} KB/room); refused "
        f"{r['errors'] or 0}; GC {gc_line(r)}; {'ok' if r['ok'] else 'over 100 ms'}"
    )


def gc_line(r: dict[str, Any]) -> str:
    if r.get("gc_pauses") is None:
        return f"pauses not read ({r.get('gc_unread', 'no figures')})"
    return f"{r['gc_pauses']} pauses since the start, {r['gc_pauses_over_20ms']} over 20 ms"
