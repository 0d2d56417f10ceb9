"""R-WINDOW-LAG: a crisp window fair to a slow network (docs/fairness.md).

A seat's crisp window closes 3 s after its turn ended plus an *allowance*: the server's estimate
of that seat's one-way delay (half its measured round trip), capped by the server's setting
(250 ms by default). The engine takes the allowance as an argument of the action that ends the
turn (``Game.apply(action, t, allowance_ms=…)``), records it with that action (so a record replays
exactly) and shows it in ``turn_end.window_until``. The next player may still start at 2 s.
"""

from __future__ import annotations

#: The engine's own bound on an allowance, whatever a server's cap: a second, a third of the window.
MAX_ALLOWANCE_MS = 1000


def check_allowance(ms: object) -> int:
    """``ms`` if it is a whole number of milliseconds from 0 to ``MAX_ALLOWANCE_MS``, else raise
    ValueError."""
    if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_ALLOWANCE_MS:
        raise ValueError(
            f"an allowance is a whole number of ms from 0 to {MAX_ALLOWANCE_MS}, not {ms!r}"
        )
    return ms
