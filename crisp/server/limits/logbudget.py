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

    def __init__(
        self,
        logger: logging.Logger,
        lines: int,
        label: str = "a connection",
        clock: Clock = time.monotonic,
    ) -> None:
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
            self.logger.log(
                level,
                "%s: %d log lines dropped (over %d a minute)",
                self.label,
                self.dropped,
                self.lines,
            )
            self.dropped = 0

    def flush(self) -> None:
        """At the connection's end: one line for what was dropped since the last summary."""
        self._summary(logging.INFO)


class BudgetFilter(logging.Filter):
    """A filter for a whole logger: at most ``lines`` records a minute of each message template
    (``record.msg`` of a logger), then one line saying how many were dropped when the next one
    passes. Bounds what any number of connections can make a server log; a traceback attached
    to a record counts as that record."""

    def __init__(
        self, lines: int, clock: Clock = time.monotonic, templates_max: int = 1000
    ) -> None:
        super().__init__()
        self.lines = lines
        self.clock = clock
        self.templates_max = templates_max
        self.windows: dict[tuple[str, str], list[float]] = {}  # [window start, used, dropped]

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "log_budget_summary", False):
            return True
        key = (record.name, str(record.msg))
        now = self.clock()
        window = self.windows.get(key)
        if window is None:
            if len(self.windows) >= self.templates_max:
                self.windows.pop(next(iter(self.windows)))
            window = self.windows[key] = [now, 0, 0]
        if now - window[0] >= WINDOW_S:
            window[0], window[1] = now, 0
        if window[1] >= self.lines:
            window[2] += 1
            return False
        window[1] += 1
        if window[2]:
            dropped, window[2] = int(window[2]), 0
            logging.getLogger(record.name).log(
                record.levelno,
                "%d more lines like %r were dropped (over %d a minute)",
                dropped,
                str(record.msg)[:80],
                self.lines,
                extra={"log_budget_summary": True},
            )
        return True


def install(lines: int, loggers: tuple[str, ...] = ("crisp.server", "uvicorn.error")) -> None:
    """Put one ``BudgetFilter`` on each of ``loggers`` (replacing one put there before)."""
    for name in loggers:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, BudgetFilter)]:
            logger.removeFilter(old)
        logger.addFilter(BudgetFilter(lines))
