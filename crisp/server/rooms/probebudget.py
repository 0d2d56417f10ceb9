"""The probes a server sends at its rooms' ticks (latency.py), within a budget that takes what
the server can spare: up to ``probe_budget_per_s`` a second while its timers run on time, fewer
as soon as they run late. A server dealing 1,000 rooms at once settles their 8,000 connections
while the deal goes on; one of 2,000 rooms, already busy, probes them in turn as it can afford.

The rate halves when the server's timers ran more than ``EASE_BEHIND_S`` late lately (at most
once per ``CUT_SPAN_S``, never below ``LEAST_SHARE`` of the most), and grows back by the most
every ``RAMP_S`` while they run on time. It eases off well before the server is far enough
behind to send no probe at all (``SHED_BEHIND_S``, latency.py). At most ``BURST_S`` of probes
are saved up, so the ticks after a pause do not send a second's worth at once."""

from __future__ import annotations

from crisp.server.limits.bucket import TokenBucket

EASE_BEHIND_S = 0.02
CUT_SPAN_S = 0.5
LEAST_SHARE = 1 / 16
RAMP_S = 5.0
BURST_S = 0.1


def burst(rate: float) -> float:
    """The probes saved up at ``rate``: ``BURST_S`` of them, and at least one."""
    return max(1.0, rate * BURST_S)


class ProbeBudget:
    """A server's probes at its rooms' ticks: ``take`` one if the budget has it; ``saw`` how late
    the server runs, which sets the rate."""

    __slots__ = ("at", "bucket", "cut_at", "least", "most")

    def __init__(self, most: float) -> None:
        self.most = most
        self.least = most * LEAST_SHARE
        self.bucket: TokenBucket | None = None  # made at the first use, full
        self.at = 0.0  # when the rate last grew
        self.cut_at: float | None = None  # when it was last cut

    @property
    def rate(self) -> float:
        """The probes a second it allows now."""
        return self.most if self.bucket is None else self.bucket.rate

    def saw(self, now: float, behind: float) -> None:
        """At ``now`` the server's timers ran ``behind`` seconds late lately (``Clock.behind``,
        read at each tick and answer): the rate is cut, or grows back."""
        bucket = self._bucket(now)
        if behind > EASE_BEHIND_S:
            self._cut(bucket, now)
        else:
            self._grow(bucket, now)

    def take(self, now: float) -> bool:
        """A probe at a tick at ``now``: whether the budget has it (then it is taken)."""
        return self._bucket(now).take(now)

    def _bucket(self, now: float) -> TokenBucket:
        bucket = self.bucket
        if bucket is None:
            bucket = self.bucket = TokenBucket(self.most, burst(self.most), now)
            self.at = now
        return bucket

    def _cut(self, bucket: TokenBucket, now: float) -> None:
        self.at = now
        if self.cut_at is not None and now - self.cut_at < CUT_SPAN_S:
            return
        self.cut_at = now
        rate = max(self.least, bucket.rate / 2)
        bucket.retune(now, rate, burst(rate))

    def _grow(self, bucket: TokenBucket, now: float) -> None:
        if bucket.rate < self.most and now > self.at:
            rate = min(self.most, bucket.rate + self.most * (now - self.at) / RAMP_S)
            bucket.retune(now, rate, burst(rate))
        self.at = now
