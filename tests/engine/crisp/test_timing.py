"""R-EDGES: times are exact; the rule times can be scaled; the seeded source is SplitMix64."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crisp.engine.crisp.rng import Rng
from crisp.engine.crisp.timing import Timing, to_ms, to_seconds


def test_r_edges_decimal_seconds_are_exact_milliseconds() -> None:
    """R-EDGES: 6.2 + 2 equals 8.2 exactly; 2.4, 2.8, 0.1 + 0.2 are what they say."""
    assert to_ms(6.2) + to_ms(2) == to_ms(8.2) == 8200
    assert (to_ms(2.4), to_ms(2.8), to_ms(0.3)) == (2400, 2800, 300)
    assert to_ms(Decimal("9.999")) == 9999 and to_ms(Fraction(1, 8)) == 125
    assert to_seconds(8200) == 8.2


def test_r_edges_finer_than_a_millisecond_stays_exact() -> None:
    """R-EDGES: a time finer than 1 ms is an exact fraction, ordered correctly."""
    assert to_ms(2.0004) == Fraction(20004, 10)
    assert 2000 < to_ms(2.0004) < 2001
    assert to_ms(Fraction(1, 3)) == Fraction(1000, 3)


def test_bad_times_are_refused() -> None:
    for bad in (True, "1", None):
        with pytest.raises(TypeError):
            to_ms(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        to_ms(float("nan"))


@given(st.integers(0, 10**9))
def test_r_edges_every_millisecond_round_trips(ms: int) -> None:
    """R-EDGES: any whole number of milliseconds written in seconds reads back exactly."""
    assert to_ms(ms / 1000) == ms
    assert to_ms(to_seconds(ms)) == ms


def test_timing_scales_and_checks() -> None:
    """The rule times are settings a server's tests can scale down."""
    fast = Timing(look_ms=100, start_ms=20, window_ms=30, timer_ms_per_s=10)
    assert fast.window_ms == 30
    with pytest.raises(ValueError):
        Timing(start_ms=4000)
    with pytest.raises(ValueError):
        Timing(look_ms=-1)


def test_splitmix64_reference_values() -> None:
    """R-SHUFFLE: SplitMix64 from seed 0 gives the published reference outputs."""
    rng = Rng(0)
    assert [rng.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    rng = Rng(7)
    assert all(0 <= rng.below(6) < 6 for _ in range(1000))
