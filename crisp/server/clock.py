"""The server's clocks, injected: ``LoopClock`` (the event loop's, for serving) and
``ManualClock`` (moved by hand, for tests that need no sleep). ``GameClock`` maps real time to a
game's time: seconds since the current round began, sped up in tests, stopped while paused."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

#: A timer's callback: it does its work at once and returns None, or returns a coroutine for
#: what must wait (a lock, a commit), which the clock runs as a task. Most wakes find their room
#: free and need no task: a task costs more than the work of a typical wake.
Wake = Callable[[], Coroutine[Any, Any, None] | None]


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds."""

    def wall(self) -> float:
        """Seconds since the epoch (for expiry and the stored times)."""

    def call_at(self, when: float, wake: Wake) -> Timer:
        """Run ``wake()`` at monotonic time ``when`` (and the coroutine it returns, if any)."""

    def behind(self) -> float:
        """How late this clock's timers ran lately (seconds; 0 on time): the server's own lag."""


class Alarm:
    """One timer of an owner, set for a time or not; set again for the time it is set for, it is
    kept as it is (most of a room's changes leave its next deadline where it was: no new timer).
    The owner's ``wake`` calls ``fired`` before anything else: a timer that has fired is not set
    any more, and setting it again makes a new one."""

    __slots__ = ("clock", "handle", "wake", "when")

    def __init__(self, clock: Clock, wake: Wake) -> None:
        self.clock = clock
        self.wake = wake
        self.handle: Timer | None = None
        self.when = 0.0  # the time it is set for, while ``handle`` is

    def is_set(self) -> bool:
        return self.handle is not None

    def set(self, when: float | None) -> None:
        """Set for ``when`` (None: not set)."""
        handle = self.handle
        if handle is not None:
            if when == self.when:
                return
            handle.cancel()
        self.handle = None if when is None else self.clock.call_at(when, self.wake)
        self.when = 0.0 if when is None else when

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def fired(self) -> None:
        self.handle = None


#: How long a late timer counts as the loop's lag (``Lateness``): the largest lateness of the
#: current span of this length and of the one before it.
LATE_SPAN_S = 0.5


class Lateness:
    """How late a loop's timers have run lately: the largest lateness seen in the current span of
    ``LATE_SPAN_S`` and in the one before (two numbers: a loop that is busy runs many timers,
    each told here as it runs)."""

    __slots__ = ("current", "previous", "start")

    def __init__(self) -> None:
        self.start = 0.0  # when the current span began
        self.current = 0.0  # the largest lateness of the current span
        self.previous = 0.0  # ... of the span before (0 if none was seen in it)

    def _roll(self, now: float) -> None:
        if now - self.start >= LATE_SPAN_S:
            self.previous = self.current if now - self.start < 2 * LATE_SPAN_S else 0.0
            self.current = 0.0
            self.start = now

    def saw(self, now: float, late: float) -> None:
        """A timer due ``late`` seconds before ``now`` ran at ``now``."""
        self._roll(now)
        self.current = max(self.current, late)

    def recent(self, now: float) -> float:
        self._roll(now)
        return max(self.current, self.previous)


class LoopClock:
    """The running event loop's clock. It keeps the loop it first ran in (``now()`` is called
    several times a message: ``asyncio.get_running_loop()`` costs a ``getpid`` system call each
    time on Python 3.11), and takes the running one again only once that loop is closed (a new
    server, or a test's next loop). One clock serves one loop at a time, as one app does."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.lateness = Lateness()  # of the timers it runs (a loop that is busy runs many)

    def _running(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def now(self) -> float:
        return self._running().time()

    def wall(self) -> float:
        return time.time()

    def call_at(self, when: float, wake: Wake) -> Timer:
        return self._running().call_at(when, self._fire, wake, when)

    def behind(self) -> float:
        return self.lateness.recent(self.now())

    def _fire(self, wake: Wake, when: float) -> None:
        now = self._running().time()
        self.lateness.saw(now, now - when)
        rest = wake()
        if rest is not None:  # kept until done: the loop holds only a weak reference to a task
            task = self._running().create_task(rest)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)


class _Entry:
    def __init__(self, when: float, wake: Wake) -> None:
        self.when = when
        self.wake = wake
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told: ``await run_until(t)`` runs every timer due by ``t``,
    in order, each at its own time."""

    def __init__(self, start: float = 1000.0, epoch: float = 1_800_000_000.0) -> None:
        self.t = start
        self.epoch = epoch - start
        self._heap: list[tuple[float, int, _Entry]] = []
        self._seq = itertools.count()
        self.lag = 0.0  # what ``behind`` says: a test sets it to play a server that lags

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return self.epoch + self.t

    def behind(self) -> float:
        return self.lag

    def call_at(self, when: float, wake: Wake) -> Timer:
        entry = _Entry(when, wake)
        heapq.heappush(self._heap, (when, next(self._seq), entry))
        return entry

    def next_timer(self) -> float | None:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    async def run_until(self, t: float) -> None:
        while (when := self.next_timer()) is not None and when <= t:
            _, _, entry = heapq.heappop(self._heap)
            self.t = max(self.t, when)
            rest = entry.wake()
            if rest is not None:
                await rest
            # then the loop's ready callbacks, as between two real timers (group commit flushes
            # a turn's batch with call_soon: without this, a jump would run timer after timer
            # with nothing stored or sent in between)
            await asyncio.sleep(0)
        self.t = max(self.t, t)

    async def advance(self, seconds: float) -> None:
        await self.run_until(self.t + seconds)


class GameClock:
    """A game's time at a given real time: ``(now - base) * speed``, never before the game's
    last change, in whole milliseconds; frozen at ``paused_at`` while paused."""

    def __init__(self, speed: float = 1.0) -> None:
        self.speed = speed
        self.base = 0.0
        self.paused_at: float | None = None

    def at(self, now: float, floor: float) -> float:
        if self.paused_at is not None:
            return self.paused_at
        return max(round((now - self.base) * self.speed, 3), floor)

    def set(self, now: float, game_t: float) -> None:
        """Game time ``game_t`` is now."""
        self.base = now - game_t / self.speed

    def real_time_of(self, game_t: float) -> float:
        return self.base + game_t / self.speed

    def snapshot(self) -> tuple[float, float | None]:
        return self.base, self.paused_at

    def restore(self, snap: tuple[float, float | None]) -> None:
        self.base, self.paused_at = snap
