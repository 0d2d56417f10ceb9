"""The loop clock's lateness (crisp/server/clock.py, ``Clock.behind``): how late its timers ran
lately, the largest of the current half second and the one before; what the probes' load
shedding reads (crisp/server/rooms/latency.py, ``SHED_BEHIND_S``)."""

from __future__ import annotations

import asyncio

from crisp.server.clock import LATE_SPAN_S, Lateness, LoopClock


def test_lateness_is_the_largest_of_the_current_span_and_the_one_before() -> None:
    late = Lateness()
    late.saw(100.0, 0.08)
    late.saw(100.1, 0.01)
    assert late.recent(100.2) == 0.08
    late.saw(100.0 + LATE_SPAN_S, 0.02)  # a new span: the one before still counts
    assert late.recent(100.0 + LATE_SPAN_S) == 0.08
    late.saw(100.0 + 2 * LATE_SPAN_S, 0.0)  # the span before is now the one of 0.02
    assert late.recent(100.0 + 2 * LATE_SPAN_S) == 0.02
    assert late.recent(100.0 + 5 * LATE_SPAN_S) == 0.0  # spans with no timer: on time


def test_a_timer_that_runs_late_on_the_loop_clock_makes_it_behind() -> None:
    async def main() -> float:
        clock = LoopClock()
        ran = asyncio.Event()
        assert clock.behind() == 0.0
        # a timer due 0.2 s ago runs at the loop's next turn: 0.2 s late, as on a busy loop
        clock.call_at(clock.now() - 0.2, ran.set)
        await ran.wait()
        return clock.behind()

    assert asyncio.run(main()) >= 0.2
