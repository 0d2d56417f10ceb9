"""LoopClock: the loop is looked up once, not on every ``now()`` (Python 3.11's
``get_running_loop()`` makes a ``getpid`` system call each time: 4.8 % of a saturated server)."""

from __future__ import annotations

import asyncio

import pytest

from crisp.server.clock import Alarm, LoopClock, ManualClock


def test_loop_clock_looks_the_loop_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thousand ``now()`` and a timer cost one ``get_running_loop()``, and ``now()``
    is the loop's own time."""
    lookups: list[int] = []
    real = asyncio.get_running_loop

    def counted() -> asyncio.AbstractEventLoop:
        lookups.append(1)
        return real()

    monkeypatch.setattr(asyncio, "get_running_loop", counted)
    clock = LoopClock()

    async def main() -> tuple[float, float, float]:
        loop = real()
        before = loop.time()
        for _ in range(1000):
            clock.now()
        fired = asyncio.Event()

        async def wake() -> None:
            fired.set()

        clock.call_at(loop.time(), wake)
        await asyncio.wait_for(fired.wait(), 5)
        return before, clock.now(), loop.time()

    before, now, after = asyncio.run(main())
    assert before <= now <= after
    assert len(lookups) == 1


def test_loop_clock_follows_a_new_loop_once_the_old_one_is_closed() -> None:
    """The cached loop is dropped when it is closed (a test's next loop, a restarted
    server), so the clock never reads a dead loop's time nor schedules on it."""
    clock = LoopClock()
    seen: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        seen.append(loop)
        assert loop.time() - 1 <= clock.now() <= loop.time()
        fired = asyncio.Event()

        async def wake() -> None:
            fired.set()

        clock.call_at(loop.time(), wake)
        await asyncio.wait_for(fired.wait(), 5)

    asyncio.run(main())
    asyncio.run(main())
    assert len(seen) == 2 and seen[0] is not seen[1]
    assert clock._loop is seen[1]


def test_a_wake_with_nothing_to_wait_for_runs_in_the_timer_without_a_task() -> None:
    """A room's timer that finds the room free does its work in the timer's callback: no task
    is made (a task cost more than a typical wake's work)."""
    clock = LoopClock()
    seen: list[asyncio.Task[object] | None] = []

    async def main() -> int:
        loop = asyncio.get_running_loop()
        fired = asyncio.Event()

        def wake() -> None:
            seen.append(asyncio.current_task())
            fired.set()

        tasks = len(asyncio.all_tasks())
        clock.call_at(loop.time(), wake)
        await asyncio.wait_for(fired.wait(), 5)
        return len(asyncio.all_tasks()) - tasks

    assert asyncio.run(main()) == 0
    assert seen == [None]


def test_a_wake_that_must_wait_has_its_rest_run_as_a_task_kept_until_done() -> None:
    """A wake that returns a coroutine (its room held) has it run to its end as a task that the
    clock keeps (the loop holds only a weak reference), and forgets once done."""
    clock = LoopClock()
    steps: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        free = asyncio.Event()
        done = asyncio.Event()

        async def rest() -> None:
            task = asyncio.current_task()
            steps.append("kept" if task in clock._tasks else "lost")
            await free.wait()
            steps.append("ran")
            done.set()

        clock.call_at(loop.time(), rest)
        await asyncio.sleep(0.01)
        assert steps == ["kept"]
        free.set()
        await asyncio.wait_for(done.wait(), 5)
        await asyncio.sleep(0)

    asyncio.run(main())
    assert steps == ["kept", "ran"] and not clock._tasks


def test_an_alarm_set_again_for_its_time_keeps_its_timer_and_one_moved_fires_once_then() -> None:
    """``Alarm`` (a room's timers): set for the time it is set for, no new timer; moved, the old
    one is cancelled; fired, it is not set, and set again it makes a new timer."""

    async def main() -> None:
        clock = ManualClock(start=0.0)
        calls: list[float] = []
        alarm = Alarm(clock, lambda: calls.append(clock.now()))
        alarm.set(5.0)
        first = alarm.handle
        alarm.set(5.0)
        assert alarm.handle is first and alarm.is_set()
        alarm.set(7.0)
        assert alarm.handle is not first
        await clock.run_until(10.0)
        assert calls == [7.0]  # the timer for 5 s was cancelled
        alarm.fired()
        assert not alarm.is_set()
        alarm.set(7.0)  # the same time, after it fired: a new timer
        await clock.run_until(20.0)
        assert calls == [7.0, 10.0]  # set in the past: it fires at the next run, at once
        alarm.set(None)
        assert not alarm.is_set()

    asyncio.run(main())
