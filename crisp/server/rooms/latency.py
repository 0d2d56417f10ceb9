"""Round trips of each connection, for R-WINDOW-LAG (docs/fairness.md): while a game runs, the
room sends every connection a ``probe`` (``{"type": "probe", "n": k}``) at least every
``probe_every_s``; the phone answers at once with ``probe_ack`` and the same ``n``. The time from
queueing the probe to reading its answer, on the room's clock, is one round trip; the estimate is
the median of the last ``rtt_samples``. A seat's allowance is half of it in game milliseconds,
capped by ``window_lag_cap_ms``; 0 until a round trip is measured."""

from __future__ import annotations

import statistics
from collections import OrderedDict, deque

from crisp.server.clock import Clock
from crisp.server.rooms.peer import Peer
from crisp.server.wire.encoder import dumps as encode


class RoundTrips:
    """One connection's probes in flight and its last round trips (real seconds)."""

    def __init__(self, samples: int) -> None:
        self.samples: deque[float] = deque(maxlen=samples)
        self.pending: OrderedDict[int, float] = OrderedDict()  # n -> when it was sent
        self.keep = samples  # probes in flight kept (older ones are forgotten: lost)
        self.next_n = 1

    def sent(self, now: float) -> int:
        """A probe is sent at ``now``: its ``n``."""
        n = self.next_n
        self.next_n += 1
        self.pending[n] = now
        while len(self.pending) > self.keep:
            self.pending.popitem(last=False)
        return n

    def answered(self, n: int, now: float) -> float | None:
        """The answer to probe ``n`` came at ``now``: the round trip, or None for an ``n`` that is
        not in flight (unknown, too old, or answered already: it counts once)."""
        sent = self.pending.pop(n, None)
        if sent is None:
            return None
        rtt = max(0.0, now - sent)
        self.samples.append(rtt)
        return rtt

    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None


def allowance_ms(rtt: float | None, speed: float, cap_ms: int) -> int:
    """Half the round trip ``rtt`` (real seconds), in game milliseconds at ``speed`` game seconds
    per real second, rounded, at most ``cap_ms``; 0 without a measure."""
    if rtt is None:
        return 0
    return min(cap_ms, round(rtt * speed * 1000 / 2))


class Probes:
    """The round trips of a room's connections: probes sent, answers timed on the room's clock,
    and the allowance of a move sent over a connection."""

    def __init__(self, clock: Clock, samples: int, cap_ms: int) -> None:
        self.clock = clock
        self.samples = samples
        self.cap_ms = cap_ms
        self.trips: dict[Peer, RoundTrips] = {}

    def probe(self, conn: Peer) -> None:
        """Send ``conn`` a probe now."""
        trips = self.trips.get(conn)
        if trips is None:
            trips = self.trips[conn] = RoundTrips(self.samples)
        conn.send(encode({"type": "probe", "n": trips.sent(self.clock.now())}))

    def answered(self, conn: Peer, n: int) -> None:
        """``conn`` answered probe ``n`` now (an unknown or repeated ``n`` is ignored)."""
        trips = self.trips.get(conn)
        if trips is not None:
            trips.answered(n, self.clock.now())

    def forget(self, conn: Peer) -> None:
        self.trips.pop(conn, None)

    def rtt(self, conn: Peer) -> float | None:
        """The connection's estimate (real seconds), None before a measure."""
        trips = self.trips.get(conn)
        return trips.median() if trips is not None else None

    def allowance_ms(self, conn: Peer, speed: float) -> int:
        """The allowance of a move sent over ``conn``, in game ms at ``speed``."""
        return allowance_ms(self.rtt(conn), speed, self.cap_ms)
