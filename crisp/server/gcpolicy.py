"""The collector's policy while the app runs (docs/performance.md, "The collector").

With thousands of sockets the garbage collector's pauses were the tail: a full collection walks
every long-lived object (all alive: it frees nothing), and a young one grows with what survived
since the last. ``gc.freeze()`` moves every object alive now into the permanent generation, which
no collection walks again: what a pass walks is then only what was made since.

The collector's own young passes run often (`crisp serve` sets the youngest threshold low: a few
thousand objects, about a millisecond a pass, on memory still in cache). Every ``gc_freeze_s``
seconds (of real time: process upkeep, not game time) the policy freezes what survived them. If
those passes found garbage since the last freeze, cycles are being made (a burst of joins, say),
and the policy first collects ``gc_freeze_generation`` (1: both young ones, everything made since
the last freeze; 0: the youngest; -1: none), so that what became garbage after a young pass is
freed rather than frozen. If they looked and found none (a server at play makes no cycles), it
freezes at once: no pass walks the survivors a second time. The price: a cycle that survived a
young pass and became garbage while no pass found any other is kept until the next quiet
moment — when at most ``gc_quiet_rooms`` rooms are open the policy unfreezes everything and
makes one full collection (cheap then), once per busy spell. ``stop`` unfreezes (a stopped app
leaves its objects collectable). ``gc_freeze_s`` 0 turns the policy off.

The interval follows the pauses (``gc_pause_target_ms``): a collection before a freeze walks
what survived since the last, at about 0.5 µs an object on a large heap, so its pause grows with
the load. A pass over the target halves the interval (down to ``gc_freeze_min_s``), one under a
quarter of it doubles it (up to ``gc_freeze_s``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from crisp.server.settings import Settings


class Collector(Protocol):
    """The part of the ``gc`` module the policy uses (a test passes a fake)."""

    def collect(self, generation: int = 2) -> int: ...

    def freeze(self) -> None: ...

    def unfreeze(self) -> None: ...

    def get_freeze_count(self) -> int: ...

    #: Called with ("start" | "stop", info) around every collection (``gc.callbacks``).
    callbacks: list[Callable[[Literal["start", "stop"], dict[str, int]], object]]


@dataclass
class GcPolicy:
    """Freeze on a schedule, collect fully at quiet moments (see the module's docstring)."""

    every_s: float
    generation: int
    quiet_rooms: int
    rooms: Callable[[], int]
    collector: Collector = field(default_factory=lambda: gc)
    #: A pause longer than this halves the interval, one under a quarter of it doubles it (0: the
    #: interval stays ``every_s``); never below ``min_s``.
    target_s: float = 0.0
    min_s: float = 0.25
    timer: Callable[[], float] = time.perf_counter
    #: Seconds to the next tick (``every_s`` at first).
    interval: float = field(init=False, default=0.0)
    freezes: int = 0
    full: int = 0
    #: The longest pass the policy itself made, in seconds (its young or quiet collection).
    longest_s: float = 0.0
    #: The collector's own passes since the last tick, and the garbage they found.
    passes: int = 0
    found: int = 0
    #: Ticks that froze without collecting first (the young passes found no garbage).
    skipped: int = 0
    _busy: bool = False  # something was frozen since the last quiet full collection
    _own: bool = False  # the policy's own collection is running
    _task: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, settings: Settings, rooms: Callable[[], int]) -> GcPolicy:
        return cls(
            settings.gc_freeze_s,
            settings.gc_freeze_generation,
            settings.gc_quiet_rooms,
            rooms,
            target_s=settings.gc_pause_target_ms / 1000,
            min_s=min(settings.gc_freeze_min_s, settings.gc_freeze_s),
        )

    def __post_init__(self) -> None:
        self.interval = self.every_s

    def tick(self) -> None:
        """One turn of the schedule: a quiet full collection, or a freeze (after a young
        collection unless the collector's passes found no garbage since the last tick)."""
        c = self.collector
        start = self.timer()
        if self.rooms() <= self.quiet_rooms:
            if self._busy:  # once per busy spell: free what was frozen meanwhile
                c.unfreeze()
                self._collect(2)
                self.full += 1
                self._busy = False
        else:
            if self.generation < 0 or self.clean():
                self.skipped += 1
            else:
                self._collect(self.generation)
            c.freeze()
            self.freezes += 1
            self._busy = True
        self.passes = self.found = 0
        took = self.timer() - start
        self.longest_s = max(self.longest_s, took)
        self.interval = self._next_interval(took)

    def clean(self) -> bool:
        """The collector's own passes looked since the last tick and found no garbage: no
        cycles are being made, so what the freeze keeps is alive."""
        return self.passes > 0 and self.found == 0

    def seen(self, phase: Literal["start", "stop"], info: dict[str, int]) -> None:
        """``gc.callbacks``: count the collector's own passes (not the policy's) and their
        garbage."""
        if phase == "stop" and not self._own:
            self.passes += 1
            self.found += info.get("collected", 0) + info.get("uncollectable", 0)

    def _collect(self, generation: int) -> None:
        self._own = True
        try:
            self.collector.collect(generation)
        finally:
            self._own = False

    def _next_interval(self, took: float) -> float:
        """Shorter after a pause over the target, longer after one well under it."""
        if self.target_s <= 0:
            return self.every_s
        if took > self.target_s:
            return max(self.min_s, self.interval / 2)
        if took < self.target_s / 4:
            return min(self.every_s, self.interval * 2)
        return self.interval

    async def _run(self) -> None:
        while True:  # until stop() cancels it
            await asyncio.sleep(self.interval)
            self.tick()

    def start(self) -> None:
        """Run the schedule on the running loop (nothing with ``gc_freeze_s`` 0)."""
        if self.every_s > 0 and self._task is None:
            self.passes = self.found = 0
            self.collector.callbacks.append(self.seen)
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """End the schedule; every frozen object becomes collectable again."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with contextlib.suppress(ValueError):
            self.collector.callbacks.remove(self.seen)
        self.collector.unfreeze()
