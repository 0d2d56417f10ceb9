"""A real cluster for tests: a PostgreSQL server, N ``crisp serve`` nodes sharing it, and HAProxy
in front (deploy/haproxy.cfg), all on 127.0.0.1; and ``Phone``, a seat that plays through the
balancer and reconnects at once whenever its socket closes (a node killed, a room moved)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from haproxyproc import HAProxy
from pgserver import PgServer, free_port
from seatplayer import Seat
from serverproc import ServerProcess

Message = dict[str, Any]


class Balancer:
    """What the clients of wsclient need of a server (``ws_base``, ``clock_speed``), and HTTP
    through the balancer."""

    def __init__(self, haproxy: HAProxy, clock_speed: float) -> None:
        self.haproxy = haproxy
        self.clock_speed = clock_speed
        self.ws_base = haproxy.ws_base
        self.base = haproxy.base

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return http(self.base, method, path, body)


class Cluster:
    def __init__(
        self,
        root: Path,
        pg: PgServer,
        n: int,
        clock_speed: float,
        env: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.url = pg.new_database()
        self.speed = clock_speed
        self.env = env or {}
        self.ports = [free_port() for _ in range(n)]
        self.nodes: list[ServerProcess | None] = [None] * n
        self.haproxy = HAProxy(self.ports)
        self.lb = Balancer(self.haproxy, clock_speed)

    def node_env(self, i: int) -> dict[str, str]:
        return {"CRISP_DATABASE_URL": self.url, "CRISP_NODE_ID": f"node{i + 1}", **self.env}

    def start_node(self, i: int) -> ServerProcess:
        node = ServerProcess(
            self.root / f"node{i + 1}",
            clock_speed=self.speed,
            env=self.node_env(i),
            port=self.ports[i],
        )
        self.nodes[i] = node
        return node

    def start(self) -> Cluster:
        """Every node, then HAProxy; on a failure, whatever started is stopped again."""
        try:
            for i in range(len(self.ports)):
                self.start_node(i).start(timeout=60)
            self.haproxy.start(up=len(self.ports))
        except BaseException:
            self.stop()
            raise
        return self

    def kill(self, i: int) -> None:
        node = self.nodes[i]
        assert node is not None
        node.kill()

    def restart(self, i: int, hard: bool = False) -> None:
        node = self.nodes[i]
        assert node is not None
        node.kill() if hard else node.stop()
        self.start_node(i).start(timeout=60)

    def stop(self) -> None:
        self.haproxy.stop()
        for node in self.nodes:
            if node is not None:
                node.kill()

    def owners(self) -> dict[str, str | None]:
        """Each room's owner node, as the database says."""
        import psycopg

        with psycopg.connect(self.url) as db:
            rows = db.execute("SELECT code, owner FROM crisp_rooms").fetchall()
        return dict(rows)

    def log_epochs(self, code: str) -> list[int]:
        import psycopg

        with psycopg.connect(self.url) as db:
            rows = db.execute("SELECT epoch FROM crisp_log WHERE code = %s ORDER BY seq", (code,))
            return [int(e) for (e,) in rows]

    def wait_up(self, up: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not self.haproxy.nodes_seen(up):
            assert time.monotonic() < deadline, f"HAProxy does not see {up} nodes up"
            time.sleep(0.2)


def http(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path, data=data, method=method, headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def told_result(msg: Message) -> tuple[list[int], list[int]] | None:
    """The game's result as a phone learns it: its ``game_over``, or the ``state`` of a game
    already over. A node that stops just as a game's last move is stored closes its sockets
    before that move's messages go out; the phone, reconnected, finds the game over in its
    state, as the client shows it (the move itself is in the record)."""
    if msg.get("type") == "game_over":
        return list(msg["totals"]), list(msg["winners"])
    view = msg.get("view") if msg.get("type") == "state" else None
    if isinstance(view, dict) and view.get("over"):
        return list(view["totals"]), list(view["winners"])
    return None


class Phone(Seat):
    """A seat through the balancer that reconnects at once when its socket closes, and picks
    its seat up from the ``state`` (as the client does on close code 4301 and on a lost link)."""

    def __init__(self, lb: Balancer, code: str, token: str, label: str, seed: int) -> None:
        super().__init__(lb, code, token, label, seed=seed, resume=True)  # type: ignore[arg-type]
        self.over = asyncio.Event()
        self.arrivals: list[float] = []  # the loop time of each message received
        self.closes: list[int | None] = []
        self.opens: list[tuple[float, int]] = []  # (loop time, index in received) of each try
        self.runner: asyncio.Task[None] | None = None
        self.over_on: float | None = None  # when the connection game_over came on was opened
        self.result: tuple[list[int], list[int]] | None = None  # (totals, winners), as told

    def take(self, msg: Message) -> None:
        self.arrivals.append(asyncio.get_running_loop().time())
        super().take(msg)
        result = told_result(msg)
        if result is not None:
            self.result = result
            self.over_on = self.opens[-1][0] if self.opens else 0.0  # that connection's opening
            self.over.set()

    def first_after(self, t: float) -> float | None:
        """When the first message came over a connection opened after ``t`` (not a message the
        old node sent just before ``t``, still on its way)."""
        start = next((i for when, i in self.opens if when > t), None)
        return None if start is None or start >= len(self.arrivals) else self.arrivals[start]

    def run(self) -> None:
        self.runner = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while not self.over.is_set():
            start = len(self.received)
            self.opens.append((asyncio.get_running_loop().time(), start))
            before = self.ws
            try:
                await self.connect()
            except asyncio.CancelledError:
                raise
            except Exception:  # refused, moved while saying hello, or slow: drop it, try again
                if self.ws is not before:  # it opened: no second reader on this seat
                    with contextlib.suppress(Exception):
                        await self.close()
                await asyncio.sleep(0.05)
                continue
            self.resume = True
            self.play_from(start)
            loop = asyncio.get_running_loop()
            waits = [loop.create_task(self.over.wait()), loop.create_task(self.closed.wait())]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in waits:
                task.cancel()
            await self.stop_playing()
            if self.closed.is_set():
                self.closes.append(self.close_code)

    async def finish(self) -> None:
        if self.runner is not None:
            self.runner.cancel()
            with contextlib.suppress(BaseException):
                await self.runner
        await self.stop_playing()
        with contextlib.suppress(Exception):
            await self.close()
