"""``GET /metrics`` in Prometheus's text format (``prometheus-client``), one registry per app.

On the hot path only counters and histograms are touched (a room's change, a refusal, a write;
the first and the last counted without a lock, ``loopmetrics.py``);
the gauges (rooms by game and phase, members, sockets, the store's reachability) are computed
when the metrics are scraped. The event loop's lag is measured by a task sleeping 0.5 s and
seeing how late it wakes; the garbage collector's pauses by ``gc.callbacks`` while the app runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections import Counter as Tally
from collections.abc import Iterator
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from crisp.server.observe.loopmetrics import LoopCounter, LoopHistogram


class Served(Protocol):
    """What the gauges read: the hub's rooms and its store."""

    @property
    def rooms(self) -> dict[str, Any]: ...
    @property
    def store(self) -> Any: ...


LAG_EVERY_S = 0.5
FAST = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)


class _Rooms(Collector):
    """The gauges, read from the hub at scrape time."""

    def __init__(self, hub: Served) -> None:
        self.hub = hub

    def collect(self) -> Iterator[Metric]:
        rooms = GaugeMetricFamily("crisp_rooms", "open rooms served here", labels=["game", "phase"])
        members = GaugeMetricFamily("crisp_members", "members of the rooms served here")
        sockets = GaugeMetricFamily("crisp_sockets", "WebSocket connections to the rooms")
        by: Tally[tuple[str, str]] = Tally()
        n_members = n_sockets = 0
        for room in list(self.hub.rooms.values()):
            by[(room.lobby.game_type, str(room.lobby.phase))] += 1
            n_members += len(room.lobby.members)
            n_sockets += len(room.conns)
        for (game, phase), n in sorted(by.items()):
            rooms.add_metric([game, phase], n)
        members.add_metric([], n_members)
        sockets.add_metric([], n_sockets)
        up = GaugeMetricFamily("crisp_store_up", "1 while the store answers, 0 in an outage")
        outage = getattr(self.hub.store, "outage", None)
        up.add_metric([], 0 if outage is not None and outage.down else 1)
        yield from (rooms, members, sockets, up)


class Metrics:
    """The metrics of one app (its own ``CollectorRegistry``: tests make many apps)."""

    def __init__(self, hub: Served) -> None:
        self.registry = r = CollectorRegistry(auto_describe=True)
        # counted at every change and every commit: without prometheus_client's lock
        self.actions = LoopCounter(
            "crisp_actions_applied", "changes applied and stored, by game", "game"
        )
        self.store_write = LoopHistogram(
            "crisp_store_write_seconds", "one write of a room's change", FAST
        )
        self.refusals = Counter(
            "crisp_refusals", "WebSocket inputs refused, by error code", ["code"], registry=r
        )
        self.limited = Counter(
            "crisp_rate_limit_refusals",
            "HTTP requests and WebSocket opens refused by a limit, by code",
            ["code"],
            registry=r,
        )
        self.loop_lag = Histogram(
            "crisp_event_loop_lag_seconds",
            f"how late a {LAG_EVERY_S} s sleep wakes (the event loop's lag)",
            buckets=FAST,
            registry=r,
        )
        self.gc_pause = Histogram(
            "crisp_gc_pause_seconds",
            "garbage collections, by generation",
            ["generation"],
            buckets=FAST,
            registry=r,
        )
        r.register(_Rooms(hub))
        r.register(self.actions)
        r.register(self.store_write)
        self._gc_start = 0.0
        self._lag: asyncio.Task[None] | None = None

    # -- the hooks of the hot path ---------------------------------------------------------------

    def applied(self, game: str) -> None:
        self.actions.inc(game)

    def refused(self, code: str) -> None:
        self.refusals.labels(code).inc()

    def wrote(self, seconds: float) -> None:
        self.store_write.observe(seconds)

    # -- life ------------------------------------------------------------------------------------

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.gc_pause.labels(str(info.get("generation", ""))).observe(
                time.perf_counter() - self._gc_start
            )

    async def _measure_lag(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(LAG_EVERY_S)
            self.loop_lag.observe(max(0.0, time.perf_counter() - start - LAG_EVERY_S))

    def start(self) -> None:
        gc.callbacks.append(self._gc)
        self._lag = asyncio.get_running_loop().create_task(self._measure_lag())

    async def stop(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        if self._lag is not None:
            self._lag.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lag

    def text(self) -> bytes:
        return generate_latest(self.registry)
