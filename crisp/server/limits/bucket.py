"""The token bucket behind every rate limit: HTTP requests per address, a socket's messages, its
ping and pong frames."""

from __future__ import annotations

import time


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; starts full. Each call takes the
    time (``now``, in seconds of a monotonic clock) so that a test's clock can drive it; left out,
    it is ``time.monotonic()``."""

    __slots__ = ("at", "burst", "rate", "tokens")  # one per socket: no instance dict

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic() if now is None else now

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now

    def wait(self, now: float, cost: float = 1.0) -> float:
        """Seconds until ``cost`` tokens are there (0: now). Takes nothing."""
        self._refill(now)
        missing = cost - self.tokens
        return 0.0 if missing <= 0 else missing / self.rate

    def take(self, now: float | None = None, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens if they are there; False (none taken) if not. (On every
        message of a socket: the refill is written out here rather than called.)"""
        if now is None:
            now = time.monotonic()
        if now > self.at:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True

    def retune(self, now: float, rate: float, burst: float) -> None:
        """``rate`` tokens a second and at most ``burst`` saved up from ``now`` on (the tokens
        due until ``now`` come at the old rate; any over the new ``burst`` are dropped)."""
        self._refill(now)
        self.rate = rate
        self.burst = float(burst)
        self.tokens = min(self.tokens, self.burst)

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst
