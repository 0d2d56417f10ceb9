"""LoopClock: the loop is looked up once, not on every ``now()`` (Python 3.11's
``get_running_loop()`` makes a ``getpid`` system call each time: 4.8 % of a saturated server)."""

from __future__ import annotations

import asyncio

import pytest

from crisp.server.clock import LoopClock


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
