"""The collector's policy while the app runs (docs/performance.md, "The collector").

With thousands of sockets the garbage collector's pauses were the tail: a full collection walks
every long-lived object (all alive: it frees nothing), and even a young one grew to 271k objects
and 178-280 ms at 1,500 rooms. ``gc.freeze()`` moves every object alive now into the permanent
generation, which no collection walks again: what a pass walks is then only what was made since.

Every ``gc_freeze_s`` seconds (of real time: process upkeep, not game time) the policy collects
``gc_freeze_generation`` (0: the youngest generation, as small as the collector's own young
pass; 1: both young ones; -1: none) so that the young garbage is freed rather than frozen, then
freezes the rest. The price: a cycle that becomes garbage after it was frozen is kept until the
next quiet moment — when at most ``gc_quiet_rooms`` rooms are open the policy unfreezes
everything and makes one full collection (cheap then), once per busy spell. ``stop`` unfreezes
(a stopped app leaves its objects collectable). ``gc_freeze_s`` 0 turns the policy off.

The interval follows the pauses (``gc_pause_target_ms``): a young pass walks every object made
since the last freeze and still alive, at about 0.5 µs each on a large heap (cold memory), so its
pause grows with the load: 60,000 survivors a second at 2,000 human-pace rooms made passes of
30 ms a second apart and 60-170 ms five seconds apart. A pass over the target halves the
interval (down to ``gc_freeze_min_s``), one under a quarter of it doubles it (up to
``gc_freeze_s``): a busy server freezes more often in smaller pauses, a quiet one every
``gc_freeze_s``. The total work is the same: what survives one pass is frozen, never walked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from crisp.server.settings import Settings


class Collector(Protocol):
    """The part of the ``gc`` module the policy uses (a test passes a fake)."""

    def collect(self, generation: int = 2) -> int: ...

    def freeze(self) -> None: ...

    def unfreeze(self) -> None: ...

    def get_freeze_count(self) -> int: ...


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
    _busy: bool = False  # something was frozen since the last quiet full collection
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
        """One turn of the schedule: a quiet full collection, or a young one and a freeze."""
        c = self.collector
        start = self.timer()
        if self.rooms() <= self.quiet_rooms:
            if self._busy:  # once per busy spell: free what was frozen meanwhile
                c.unfreeze()
                c.collect()
                self.full += 1
                self._busy = False
        else:
            if self.generation >= 0:
                c.collect(self.generation)
            c.freeze()
            self.freezes += 1
            self._busy = True
        took = self.timer() - start
        self.longest_s = max(self.longest_s, took)
        self.interval = self._next_interval(took)

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
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """End the schedule; every frozen object becomes collectable again."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        self.collector.unfreeze()
