"""A log budget per connection: at most ``lines`` log lines a minute pass; the rest are counted,
and the next line let through (or ``flush``) first says how many were dropped. Client input is
logged as one line, never with a traceback: a hostile client cannot fill the disk."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

Clock = Callable[[], float]
WINDOW_S = 60.0


class LogBudget:
    """One connection's (or one IP's) log lines: ``lines`` per minute, a summary for the rest."""

    def __init__(self, logger: logging.Logger, lines: int, label: str = "a connection",
                 clock: Clock = time.monotonic) -> None:  # fmt: skip
        self.logger = logger
        self.lines = lines
        self.label = label
        self.clock = clock
        self.window_start = clock()
        self.used = 0
        self.dropped = 0  # in windows since the last summary

    def _roll(self, now: float) -> None:
        if now - self.window_start >= WINDOW_S:
            self.window_start = now
            self.used = 0

    def log(self, level: int, msg: str, *args: object) -> bool:
        """Log ``msg % args`` at ``level`` if the budget allows; True if it was logged. A
        traceback is never added (``exc_info`` is not accepted)."""
        now = self.clock()
        self._roll(now)
        if self.used >= self.lines:
            self.dropped += 1
            return False
        self.used += 1
        self._summary(level)
        self.logger.log(level, msg, *args)
        return True

    def info(self, msg: str, *args: object) -> bool:
        return self.log(logging.INFO, msg, *args)

    def warning(self, msg: str, *args: object) -> bool:
        return self.log(logging.WARNING, msg, *args)

    def _summary(self, level: int) -> None:
        if self.dropped:
            self.logger.log(level, "%s: %d log lines dropped (over %d a minute)", self.label,
                            self.dropped, self.lines)  # fmt: skip
            self.dropped = 0

    def flush(self) -> None:
        """At the connection's end: one line for what was dropped since the last summary."""
        self._summary(logging.INFO)
