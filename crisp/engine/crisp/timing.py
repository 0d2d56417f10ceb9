"""Exact game time (R-EDGES): seconds in, integer milliseconds (or exact fractions) inside."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

#: A time inside the engine: milliseconds since the round's deal, exact.
Ms = int | Fraction
#: A time given to the engine: seconds since the round's deal.
Seconds = int | float | Decimal | Fraction


def to_ms(t: Seconds) -> Ms:
    """Seconds to exact milliseconds: ``6.2`` is 6200, so ``6.2 + 2`` is exactly ``8.2``.

    A float is read as the shortest decimal that prints as it (``repr``), which is what a person or
    a JSON file meant by it; anything finer than a millisecond is kept as an exact Fraction.
    """
    if isinstance(t, bool):
        raise TypeError("a time is a number of seconds, not a bool")
    if isinstance(t, int):
        return t * 1000
    if isinstance(t, float):
        if not math.isfinite(t):
            raise ValueError(f"a time must be finite, not {t}")
        ms = round(t * 1000.0)
        if ms / 1000 == t:
            # t is the float nearest to a whole number of milliseconds, so the decimal it was
            # written as (its shortest repr) is exactly that: 6.2 is 6200, never 6200.000…01.
            return ms
        return _normal(Fraction(Decimal(repr(t))) * 1000)
    if isinstance(t, Decimal):
        return _normal(Fraction(t) * 1000)
    if isinstance(t, Fraction):
        return _normal(t * 1000)
    raise TypeError(f"a time is a number of seconds, not {type(t).__name__}")


def _normal(ms: Fraction) -> Ms:
    return int(ms) if ms.denominator == 1 else ms


def to_seconds(ms: Ms) -> float:
    """Milliseconds back to seconds for messages and records (``8200`` gives ``8.2``)."""
    if isinstance(ms, int):
        return ms / 1000
    return float(ms / 1000)


@dataclass(frozen=True, slots=True)
class Timing:
    """The rule times, in milliseconds. Records use the defaults; a server's tests scale them."""

    look_ms: int = 10_000  # R-LOOK-PHASE
    start_ms: int = 2_000  # R-WINDOW: the next player may start
    window_ms: int = 3_000  # R-WINDOW: the crisp window
    #: Multiplies the host's per-draw time (R-TIMER): 1000 ms per second by default.
    timer_ms_per_s: int = 1_000

    def __post_init__(self) -> None:
        if min(self.look_ms, self.start_ms, self.window_ms, self.timer_ms_per_s) < 0:
            raise ValueError("rule times cannot be negative")
        if self.start_ms > self.window_ms:
            raise ValueError("the next player cannot start after the crisp window closes")
