"""The collector's policy (docs/performance.md, "The collector"): freeze on a schedule after a young
collection, one full collection at a quiet moment, everything collectable again after a stop.
The pauses themselves are a benchmark's figures (docs/performance.md), not a timed test."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable
from typing import Literal

import pytest
from pydantic import ValidationError

from crisp.server.gcpolicy import GcPolicy
from crisp.server.settings import Settings


class FakeCollector:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.frozen = 0
        self.callbacks: list[Callable[[Literal["start", "stop"], dict[str, int]], object]] = []

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect {generation}")
        return 0

    def freeze(self) -> None:
        self.calls.append("freeze")
        self.frozen += 1

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")
        self.frozen = 0

    def get_freeze_count(self) -> int:
        return self.frozen


def policy(rooms: list[int], generation: int = 0, quiet: int = 0) -> GcPolicy:
    return GcPolicy(5.0, generation, quiet, lambda: rooms[0], FakeCollector())


def test_gc_policy_collects_the_young_then_freezes_while_rooms_are_open() -> None:
    """A busy tick collects the chosen young generation, then freezes (-1: no
    collection); nothing is unfrozen while rooms are open."""
    for generation, first in ((0, ["collect 0"]), (1, ["collect 1"]), (-1, [])):
        p = policy([3], generation)
        p.tick()
        p.tick()
        assert p.collector.calls == [*first, "freeze", *first, "freeze"]  # type: ignore[attr-defined]
        assert p.freezes == 2 and p.full == 0


def test_gc_policy_freezes_without_collecting_when_the_young_passes_found_no_garbage() -> None:
    """A tick after the collector's own passes looked and found nothing freezes at once (no
    second walk of the survivors); after passes that found garbage (cycles are being made), or
    with no pass since the last tick (nothing looked), it collects first. Its own collection is
    not counted as a pass."""
    p = policy([3], generation=1)
    p.seen("stop", {"generation": 0, "collected": 0, "uncollectable": 0})
    p.seen("stop", {"generation": 0, "collected": 0, "uncollectable": 0})
    p.tick()  # two passes, no garbage: freeze only
    p.seen("stop", {"generation": 0, "collected": 7, "uncollectable": 0})
    p.tick()  # garbage was found: collect both young generations first
    p.tick()  # no pass since: nothing looked, collect
    calls = p.collector.calls  # type: ignore[attr-defined]
    assert calls == ["freeze", "collect 1", "freeze", "collect 1", "freeze"]
    assert (p.skipped, p.freezes, p.passes, p.found) == (1, 3, 0, 0)


def test_gc_policy_counts_the_real_collectors_passes_but_not_its_own() -> None:
    """Started, the policy hears the collector's passes through ``gc.callbacks`` (and no more
    once stopped); its own collection before a freeze does not count as one."""

    async def main() -> tuple[int, int, int]:
        p = GcPolicy(3600.0, 1, 0, lambda: 3)
        p.start()
        gc.collect(0)  # as the collector's own young pass
        heard = p.passes
        p.tick()  # its own collection, if it makes one, is not a pass
        after_tick = p.passes
        await p.stop()
        gc.collect(0)
        return heard, after_tick, p.passes

    try:
        heard, after_tick, stopped = asyncio.run(main())
    finally:
        gc.unfreeze()
    assert (heard, after_tick, stopped) == (1, 0, 0)


def test_gc_policy_collects_fully_once_at_a_quiet_moment() -> None:
    """At most ``gc_quiet_rooms`` rooms open, what was frozen is unfrozen and collected
    in full, once per busy spell; a quiet server is not frozen."""
    rooms = [2]
    p = policy(rooms, quiet=1)
    p.tick()
    rooms[0] = 1
    p.tick()
    p.tick()
    rooms[0] = 0
    p.tick()
    calls = p.collector.calls  # type: ignore[attr-defined]
    assert calls == ["collect 0", "freeze", "unfreeze", "collect 2"]
    assert p.full == 1
    rooms[0] = 5
    p.tick()
    rooms[0] = 0
    p.tick()
    assert calls[4:] == ["collect 0", "freeze", "unfreeze", "collect 2"] and p.full == 2


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_gc_policy_frees_young_garbage_and_keeps_frozen_cycles_until_quiet() -> None:
    """The trade-off (docs/performance.md): a cycle that is garbage at the tick is
    freed, not frozen; one frozen alive and dropped later is kept until the quiet collection."""
    rooms = [1]
    p = GcPolicy(5.0, 0, 0, lambda: rooms[0])
    was = gc.isenabled()
    gc.disable()  # no automatic pass between the steps
    try:
        gc.collect()
        young, kept = Node(), Node()
        dead, frozen = weakref.ref(young), weakref.ref(kept)
        del young
        p.tick()
        assert dead() is None
        assert gc.get_freeze_count() > 0
        del kept
        gc.collect()
        assert frozen() is not None  # frozen: no pass walks it
        rooms[0] = 0
        p.tick()
        assert frozen() is None and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def test_gc_policy_runs_on_the_loop_and_unfreezes_when_stopped() -> None:
    """The schedule runs as a task of the app's loop; after ``stop`` nothing stays
    frozen (a stopped app's objects are collectable again); 0 s: no schedule at all."""

    async def main() -> tuple[int, int]:
        p = GcPolicy(0.01, 0, 0, lambda: 1)
        p.start()
        for _ in range(500):  # bounded: 5 s at most
            if p.freezes >= 2:
                break
            await asyncio.sleep(0.01)
        await p.stop()
        off = GcPolicy(0.0, 0, 0, lambda: 1)
        off.start()
        await off.stop()
        return p.freezes, off.freezes

    try:
        freezes, off = asyncio.run(main())
        assert freezes >= 2 and off == 0
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


def test_gc_settings_are_bounded() -> None:
    """The collector's settings, with their documented bounds."""
    s = Settings()
    assert (s.gc_freeze_s, s.gc_freeze_generation, s.gc_quiet_rooms) == (0.5, 1, 0)
    for bad in ({"gc_freeze_generation": 2}, {"gc_freeze_s": -1}, {"gc_quiet_rooms": -1}):
        with pytest.raises(ValidationError):
            Settings(**bad)  # type: ignore[arg-type]


class TimedCollector(FakeCollector):
    """A collector whose young pass takes ``pause`` seconds of its ``clock``."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = 0.0
        self.pause = 0.0

    def collect(self, generation: int = 2) -> int:
        self.clock += self.pause
        return super().collect(generation)


def test_gc_policy_freezes_more_often_when_its_pauses_pass_the_target() -> None:
    """The pause target (no pause over 20 ms at 2,000 rooms): a pass over it halves the time to
    the next freeze, down to the minimum; passes under a quarter of it double it back up to
    ``gc_freeze_s``; between the two it stays. With no target the interval never moves."""
    c = TimedCollector()
    p = GcPolicy(5.0, 0, 0, lambda: 3, c, target_s=0.008, min_s=0.25, timer=lambda: c.clock)
    seen = []
    for pause in (0.030, 0.030, 0.030, 0.030, 0.030, 0.030, 0.005, 0.001, 0.001):
        c.pause = pause
        p.tick()
        seen.append(p.interval)
    assert seen == [2.5, 1.25, 0.625, 0.3125, 0.25, 0.25, 0.25, 0.5, 1.0]
    for _ in range(10):
        p.tick()
    assert p.interval == 5.0
    fixed = GcPolicy(5.0, 0, 0, lambda: 3, c, timer=lambda: c.clock)
    c.pause = 1.0
    fixed.tick()
    assert fixed.interval == 5.0


def test_gc_policy_reads_its_target_and_minimum_from_the_settings() -> None:
    settings = Settings(gc_pause_target_ms=12, gc_freeze_min_s=0.5, gc_freeze_s=2)
    p = GcPolicy.of(settings, lambda: 0)
    assert (p.target_s, p.min_s, p.interval) == (0.012, 0.5, 2.0)
    assert GcPolicy.of(Settings(gc_freeze_s=0.1), lambda: 0).min_s == 0.1
