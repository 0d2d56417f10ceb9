"""A room's next wakeup is on the game clock's whole-ms grid, at or after what is due: a deadline
a float's error past a ms (``t + 30`` computed as 280.81100000000004) used to be planned for
280.811, where the game clock (rounded to ms) found it not yet due, and the room woke again at
the same instant forever (the 60d8d72 upgrade test spun on it under the fake clock)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from crisp.server.clock import GameClock
from crisp.server.rooms.room import on_the_ms_grid


def test_a_deadline_a_float_error_past_a_ms_comes_at_the_next_ms() -> None:
    assert on_the_ms_grid(280.81100000000004) == 280.812
    assert on_the_ms_grid(280.811) == 280.811  # on the grid: not later
    assert on_the_ms_grid(3.0) == 3.0


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False), st.sampled_from([1.0, 100.0]))
def test_at_the_planned_time_the_game_clock_has_reached_the_deadline(
    due: float, speed: float
) -> None:
    clock = GameClock(speed)
    at = on_the_ms_grid(due)
    assert at >= due and at - due < 0.0011
    assert clock.at(clock.real_time_of(at), 0.0) >= due
