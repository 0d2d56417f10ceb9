"""Helpers of the limit tests: HTTP and WebSockets from a chosen loopback address (127.0.0.x: the
server sees another client IP), and a probe that measures another room's ping round trip."""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import time
from http.client import HTTPConnection
from typing import Any

import websockets
from serverproc import ServerProcess

# Nothing is exempt from the limits here (tests/support/serverproc.py exempts 127.0.0.1 by default).
NO_EXEMPT = {"CRISP_LIMIT_EXEMPT_IPS": "[]", "CRISP_ACCESS_LOG": "false"}
PROBE_IP = "127.0.0.9"


def http(
    server: ServerProcess,
    method: str,
    path: str,
    body: Any = None,
    *,
    src: str = "127.0.0.1",
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], Any]:
    """One request from ``src``: (status, headers with lower-case names, JSON or text body)."""
    conn = HTTPConnection("127.0.0.1", server.port, timeout=10, source_address=(src, 0))
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    try:
        conn.request(
            method, path, body=data, headers={"content-type": "application/json", **(headers or {})}
        )
        resp = conn.getresponse()
        text = resp.read()
        got = {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()
    try:
        return resp.status, got, json.loads(text)
    except ValueError:
        return resp.status, got, text.decode(errors="replace")


async def ws_connect(server: ServerProcess, code: str, src: str = "127.0.0.1") -> Any:
    return await websockets.connect(
        f"{server.ws_base}/ws/{code}", compression=None, open_timeout=10, local_addr=(src, 0)
    )


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(label: str, rtts: list[float]) -> str:
    ms = [1000 * r for r in rtts]
    lost = sum(r == float("inf") for r in rtts)
    return (
        f"{label}: n={len(ms)} p50 {statistics.median(ms):.1f} ms, "
        f"p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms"
        + (f", {lost} pings unanswered within 5 s" if lost else "")
    )


class Probe:
    """A room of its own, from ``PROBE_IP``: its host's socket pings (the protocol's ``ping``)
    and times each ``pong``."""

    def __init__(self, server: ServerProcess, src: str = PROBE_IP) -> None:
        self.server = server
        self.src = src
        self.ws: Any = None

    async def __aenter__(self) -> Probe:
        status, _, body = await asyncio.to_thread(
            http, self.server, "POST", "/api/rooms", {"name": "Probe"}, src=self.src
        )
        assert status == 201, body
        self.code = body["code"]
        self.ws = await ws_connect(self.server, self.code, self.src)
        await self.ws.send(json.dumps({"type": "hello", "token": body["token"]}))
        while json.loads(await self.ws.recv())["type"] != "state":
            pass
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def rtt(self, n: int, timeout: float = 5.0) -> float:
        """Seconds until the pong of ping ``n``; ``inf`` if none came within ``timeout``."""
        start = time.perf_counter()
        await self.ws.send(json.dumps({"type": "ping", "n": n}))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while True:
                    msg = json.loads(await self.ws.recv())
                    if msg.get("type") == "pong" and msg.get("n") == n:
                        return time.perf_counter() - start
        return float("inf")

    async def measure(self, count: int, every: float = 0.05) -> list[float]:
        rtts = []
        for n in range(count):
            rtts.append(await self.rtt(n))
            await asyncio.sleep(every)
        return rtts

    async def during(self, abuse: Any, every: float = 0.05) -> tuple[list[float], Any]:
        """Ping while ``abuse`` (a coroutine) runs; its result and the round trips."""
        task = asyncio.ensure_future(abuse)
        rtts: list[float] = []
        n = 10_000
        while not task.done():
            rtts.append(await self.rtt(n))
            n += 1
            await asyncio.sleep(every)
        return rtts or [await self.rtt(n)], task.result()
