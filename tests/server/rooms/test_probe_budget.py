"""The probes a server sends at its rooms' ticks take what it can spare
(crisp/server/rooms/probebudget.py): ``probe_budget_per_s`` a second while its timers run on time,
half as many each time they ran over ``EASE_BEHIND_S`` late (once per ``CUT_SPAN_S``, never below
``LEAST_SHARE``), back to the most within ``RAMP_S`` on time, and never more than ``BURST_S`` of
them at once. The rooms' ticks feed it how late the server runs (``Probes.shed``)."""

from __future__ import annotations

import pytest

from crisp.server.clock import ManualClock
from crisp.server.rooms.latency import SHED_BEHIND_S, Probes
from crisp.server.rooms.probebudget import (
    BURST_S,
    CUT_SPAN_S,
    EASE_BEHIND_S,
    LEAST_SHARE,
    RAMP_S,
    ProbeBudget,
)

LATE = EASE_BEHIND_S + 0.01  # late enough to ease off, not to shed
assert LATE < SHED_BEHIND_S


def taken(budget: ProbeBudget, now: float, tries: int = 1000) -> int:
    return sum(budget.take(now) for _ in range(tries))


def test_on_time_the_budget_gives_its_most_a_second_and_a_tenth_of_it_at_once() -> None:
    budget = ProbeBudget(100)
    assert taken(budget, 0.0) == 100 * BURST_S  # saved up: a tenth of a second's
    got = 0
    for i in range(1, 101):  # ticks every 10 ms for a second, on time
        budget.saw(i / 100, 0.0)
        got += taken(budget, i / 100)
    assert got == pytest.approx(100, abs=1)
    assert budget.rate == 100


def test_timers_running_late_halve_the_rate_once_per_span_down_to_a_floor() -> None:
    budget = ProbeBudget(160)
    budget.saw(1.0, LATE)
    assert budget.rate == 80
    budget.saw(1.0 + CUT_SPAN_S / 2, LATE)
    assert budget.rate == 80  # the same episode: cut once
    budget.saw(1.0 + CUT_SPAN_S, LATE)
    assert budget.rate == 40
    for i in range(2, 20):
        budget.saw(1.0 + i * CUT_SPAN_S, LATE)
    assert budget.rate == 160 * LEAST_SHARE  # 10 a second at least: connections still settle


def test_the_rate_grows_back_to_the_most_while_timers_run_on_time() -> None:
    budget = ProbeBudget(100)
    budget.saw(0.0, LATE)
    assert budget.rate == 50
    for i in range(1, 26):  # a quarter of the ramp on time, a look every 1 % of it
        budget.saw(i * RAMP_S / 100, 0.0)
    assert budget.rate == pytest.approx(75)  # a quarter of the most grown back
    for i in range(26, 120):
        budget.saw(i * RAMP_S / 100, 0.0)
    assert budget.rate == 100  # never above the most


def test_a_cut_rate_saves_up_less() -> None:
    budget = ProbeBudget(1000)
    assert taken(budget, 0.0) == 100
    budget.saw(0.0, LATE)
    assert taken(budget, 10.0) == 50  # ten quiet seconds: still a tenth of a second's, of 500
    small = ProbeBudget(1)
    assert taken(small, 0.0) == 1  # at least one, or a small budget would never probe


def test_the_rooms_ticks_tell_the_budget_how_late_the_server_runs() -> None:
    clock = ManualClock()
    probes = Probes(clock, samples=8, cap_ms=250)
    probes.budget = ProbeBudget(100)
    clock.lag = LATE
    assert not probes.shed()  # not behind enough to send nothing
    assert probes.budget.rate == 50  # but the budget eased off
    clock.lag = SHED_BEHIND_S + 0.01
    clock.t += CUT_SPAN_S
    assert probes.shed()
    assert probes.budget.rate == 25
