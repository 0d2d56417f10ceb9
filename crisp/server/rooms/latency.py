"""Round trips of each connection, for R-WINDOW-LAG (docs/fairness.md): while a game runs, the
room sends every connection a ``probe`` (``{"type": "probe", "n": k}``) at least every
``probe_every_s``; the phone answers at once with ``probe_ack`` and the same ``n``. The time from
queueing the probe to reading its answer, on the room's clock, is one round trip; the estimate is
the median of the last ``rtt_samples``. A seat's allowance is half of it in game milliseconds,
capped by ``window_lag_cap_ms``; 0 until a round trip is measured.

Cheaper probes: a connection whose estimate is settled (its last
``rtt_settle_samples`` round trips, 3 by default, all ``near`` their own median) is probed only
every ``probe_settled_every_s``, give or take a quarter at random (so a room's probes do not come
in step): due from seven to nine eighths of it after the last, and sent by ten eighths. An
answer that strays from them is held back (``suspect``) and the next probe is due at
once: if its answer agrees, the stray is forgotten (one busy moment of the server or the phone is
not a change of the link, and costs one probe, not ``rtt_settle_samples``); if it strays too,
both count, and probes come every ``probe_every_s`` again until that many in a row agree. When
they agree with each other but not with the estimate, the link has changed: the older round trips
are forgotten and the estimate is theirs, at once (a slow start, when a thousand rooms deal
together, does not hold a connection's probes fast for 8 answers). The estimate is otherwise the
median of the last ``rtt_samples``. A connection that does not answer stays unsettled.

A settled connection's probe goes with the first messages the room sends it once it is due, first
in their frame (no frame and no wake of its own), or at the room's next probe tick if none goes
before it. The room ticks every ``probe_every_s`` while one of its connections is not settled;
once all are, it ticks an eighth of ``probe_settled_every_s`` after the first of their probes is
due (``ALONG_GRACE``): a room in play has most often sent them along by then, and a quiet room
probes at that tick every connection due. A connection that is new or strays brings the tick
back within ``probe_every_s``.

Under load, probes give way (``SHED_BEHIND_S``, ``Strays``, ``probe_budget_per_s``): a server
that is behind sends none at its ticks and counts no answer, a stray while many of the server's
settled answers stray is not counted, and the server's ticks send at most a budget of probes a
second, the longest unprobed first: a budget that eases off as soon as the server's timers run
late (probebudget.py)."""

from __future__ import annotations

import math
import random

from crisp.server.clock import Clock
from crisp.server.rooms.peer import Peer
from crisp.server.rooms.probebudget import ProbeBudget
from crisp.server.wire.encoder import dumps as encode


def median_of(values: list[float]) -> float:
    """The median of a short, non-empty list (``statistics.median``'s value, at a fraction of
    its cost: every probe's answer takes two)."""
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


class RoundTrips:
    """One connection's probes in flight and its last round trips (real seconds)."""

    __slots__ = (
        "agree",
        "estimate",
        "keep",
        "last",
        "next_due",
        "next_n",
        "pending",
        "samples",
        "settle",
        "suspect",
    )

    def __init__(self, samples: int, settle: int | None = None) -> None:
        self.samples: list[float] = []  # the last ``samples`` (a list: smaller than a deque)
        self.pending: dict[int, float] = {}  # n -> when it was sent, oldest first
        self.keep = samples  # probes in flight kept (older ones are forgotten: lost)
        self.next_n = 1
        self.last = 0.0  # when the last probe was sent (the room's clock)
        self.next_due = 0.0  # once settled: when the next probe is due (the room's clock)
        self.settle = samples if settle is None else min(settle, samples)
        self.agree = False  # the last ``settle`` round trips are near their median
        self.estimate: float | None = None  # the median of ``samples`` (read at every move)
        self.suspect: float | None = None  # a settled one's lone stray, until the next answer

    def sent(self, now: float) -> int:
        """A probe is sent at ``now``: its ``n``."""
        n = self.next_n
        self.next_n += 1
        self.pending[n] = now
        self.last = now
        while len(self.pending) > self.keep:
            del self.pending[next(iter(self.pending))]
        return n

    def answered(self, n: int, now: float, strays: Strays | None = None) -> float | None:
        """The answer to probe ``n`` came at ``now``: the round trip, or None for an ``n`` that is
        not in flight (unknown, too old, or answered already: it counts once). ``strays``: the
        server's settled answers lately (a slow stray while many stray is not counted)."""
        sent = self.pending.pop(n, None)
        if sent is None:
            return None
        rtt = max(0.0, now - sent)
        samples = self.samples
        if self.agree:
            mid = median_of(samples[-self.settle :])
            strayed = not near(rtt, mid)
            if strays is not None and strays.saw(now, strayed) and strayed and rtt > mid:
                self.suspect = None  # a common cause, not this link: not counted
                return rtt
            if self.suspect is None and strayed:
                self.suspect = rtt  # held back: the next answer, due at once, tells which
                self.next_due = now
                return rtt
            if self.suspect is not None and strayed:
                samples.append(self.suspect)  # two in a row: both count
            self.suspect = None  # else it was a lone stray: forgotten
        samples.append(rtt)
        del samples[: -self.keep]
        recent = samples[-self.settle :]
        mid = median_of(recent)
        self.agree = len(recent) == self.settle and all(near(x, mid) for x in recent)
        estimate = median_of(samples)
        if self.agree and not near(estimate, mid):
            del samples[: -self.settle]  # the link changed: only its new round trips count
            estimate = mid
        self.estimate = estimate
        return rtt

    def uncounted(self, n: int) -> None:
        """The answer to probe ``n`` came while the server was behind: not counted."""
        self.pending.pop(n, None)

    def median(self) -> float | None:
        return self.estimate

    def settled(self) -> bool:
        """The last ``settle`` round trips agree (a stray answer makes fast ones due until
        ``settle`` in a row agree again)."""
        return self.agree

    def quick(self) -> bool:
        """Whether the next probe is due within ``probe_every_s``: not settled, or a lone stray
        waits for the next answer."""
        return not self.agree or self.suspect is not None


#: An answer strays from the median when it is more than twice or less than half of it, and
#: more than 20 ms away (10 ms of allowance: the jitter of a good link is not a change).
STRAY_FACTOR = 2.0
STRAY_ABS_S = 0.02


#: Strays have a common cause when more than ``COMMON_SHARE`` of a server's settled answers
#: strayed in the current and the previous ``COMMON_SPAN_S`` (at least ``COMMON_MIN`` answers).
COMMON_SHARE = 0.125
COMMON_MIN = 16
COMMON_SPAN_S = 1.0


class Strays:
    """A server's settled answers lately, and how many strayed. Many links do not change at once:
    when many answers stray together, the cause is common (the server's own lag, its network, a
    host that runs many phones), and such a stray, if slower than the estimate, is not counted (a
    common cause delays; a faster one says the estimate is too high). Counted, such strays would
    unsettle the connections, whose quicker probes add to the load that delays the answers (at
    2,000 rooms, a third of the messages)."""

    __slots__ = ("answers", "before", "start", "strays")

    def __init__(self) -> None:
        self.start = 0.0  # when the current span began
        self.answers = 0  # settled answers in the current span
        self.strays = 0  # ... of which strayed
        self.before = (0, 0)  # (answers, strays) of the previous span

    def saw(self, now: float, strayed: bool) -> bool:
        """A settled answer at ``now``, which ``strayed`` or not: whether the strays of the
        spans before it had a common cause."""
        if now - self.start >= COMMON_SPAN_S:
            recent = now - self.start < 2 * COMMON_SPAN_S
            self.before = (self.answers, self.strays) if recent else (0, 0)
            self.answers = self.strays = 0
            self.start = now
        answers, strays = self.answers + self.before[0], self.strays + self.before[1]
        self.answers += 1
        self.strays += strayed
        return answers >= COMMON_MIN and strays > COMMON_SHARE * answers


#: A server whose timers ran later than this lately (``Clock.behind``) sends no probe at its
#: rooms' ticks and counts no answer: the answers would time its own lag, and the probes add to
#: the load behind it. Probes are the one load a room may put off.
SHED_BEHIND_S = 0.05
#: A settled connection's next probe is due this share of ``probe_settled_every_s`` after its
#: last, at random (so a room's connections do not come due in step) ...
SETTLED_DUE = (0.875, 1.125)
#: ... and the room's tick comes this share of it after the first is due: time for the room's
#: messages to take the due probes along (at human pace a room sends every 2 s or so), so that
#: a room in play most often wakes for none and sends none in a frame of its own.
ALONG_GRACE = 0.125


def near(rtt: float, median: float) -> bool:
    if abs(rtt - median) <= STRAY_ABS_S:
        return True
    return median / STRAY_FACTOR <= rtt <= median * STRAY_FACTOR


def allowance_ms(rtt: float | None, speed: float, cap_ms: int) -> int:
    """Half the round trip ``rtt`` (real seconds), in game milliseconds at ``speed`` game seconds
    per real second, rounded, at most ``cap_ms``; 0 without a measure."""
    if rtt is None:
        return 0
    return min(cap_ms, round(rtt * speed * 1000 / 2))


class Probes:
    """The round trips of a room's connections: probes sent, answers timed on the room's clock,
    and the allowance of a move sent over a connection."""

    def __init__(
        self,
        clock: Clock,
        samples: int,
        cap_ms: int,
        settled_every_s: float | None = None,
        rng: random.Random | None = None,
        settle: int | None = None,
    ) -> None:
        self.clock = clock
        self.samples = samples
        self.cap_ms = cap_ms
        self.settled_every_s = settled_every_s  # None: every probe_every_s, settled or not
        self.settle = settle  # answers near the median that settle it (None: ``samples``)
        self.trips: dict[Peer, RoundTrips] = {}
        # the server's, given by the hub (None: no common cause told, no budget)
        self.strays: Strays | None = None  # its settled answers lately
        self.budget: ProbeBudget | None = None  # its probes at the rooms' ticks
        self.rng = rng or random.Random()  # the jitter of settled probes (not a secret)
        # no settled connection is due a probe before this (at most the earliest ``next_due``):
        # the room's messages look at none of them before it
        self.along_from = math.inf

    def afford(self) -> bool:
        """Whether the server's budget (``probe_budget_per_s``) has a probe left now: one taken.
        A connection skipped is probed at a later tick."""
        return self.budget is None or self.budget.take(self.clock.now())

    def in_turn(self, conns: list[Peer]) -> list[Peer]:
        """``conns`` in the order a tick probes them: the longest unprobed first (when the
        budget runs out, the ones skipped come first at the next tick)."""
        trips = self.trips
        return sorted(conns, key=lambda conn: trips[conn].last if conn in trips else 0.0)

    def shed(self) -> bool:
        """Whether the server is too far behind to probe at a tick (``SHED_BEHIND_S``); the
        budget sees how late it runs (probebudget.py: it eases off before this)."""
        behind = self.clock.behind()
        if self.budget is not None:
            self.budget.saw(self.clock.now(), behind)
        return behind > SHED_BEHIND_S

    def due(self, conn: Peer) -> bool:
        """Whether ``conn`` is probed at this tick of the room's ``probe_every_s``: always
        unless its estimate is settled, then when its next settled probe is due."""
        trips = self.trips.get(conn)
        if trips is None or self.settled_every_s is None or not trips.settled():
            return True
        return self.clock.now() >= trips.next_due

    def due_along(self, conn: Peer, now: float) -> bool:
        """Whether a settled ``conn`` is due a probe at ``now``, to go with the messages it is
        sent now; if so it is not due again for a while (``probe`` sets when, once sent)."""
        trips = self.trips.get(conn)
        every = self.settled_every_s
        if trips is None or every is None or not trips.settled() or now < trips.next_due:
            return False
        trips.next_due = now + every
        return True

    def along(self, conns: list[Peer], now: float) -> list[Peer]:
        """The settled ``conns`` due a probe at ``now`` (``due_along``), to go with the
        messages the room sends them now; none is looked at before the earliest is due."""
        if now < self.along_from:
            return []
        due = [conn for conn in conns if self.due_along(conn, now)]
        self.along_from = min(
            (trips.next_due for trips in self.trips.values() if trips.settled()), default=math.inf
        )
        return due

    def _due_by(self, trips: RoundTrips) -> None:
        """``trips.next_due`` was set: it may be the earliest."""
        self.along_from = min(self.along_from, trips.next_due)

    def probe(self, conn: Peer) -> None:
        """Send ``conn`` a probe now."""
        trips = self.trips.get(conn)
        if trips is None:
            trips = self.trips[conn] = RoundTrips(self.samples, self.settle)
        now = self.clock.now()
        if self.settled_every_s is not None:
            trips.next_due = now + self.settled_every_s * self.rng.uniform(*SETTLED_DUE)
            self._due_by(trips)
        conn.send(encode({"type": "probe", "n": trips.sent(now)}))

    def answered(self, conn: Peer, n: int) -> bool:
        """``conn`` answered probe ``n`` now (an unknown or repeated ``n`` is ignored): whether
        its next probe is due within ``probe_every_s`` (``RoundTrips.quick``)."""
        trips = self.trips.get(conn)
        if trips is None:
            return False
        if self.shed():  # the server's own lag would be in it
            trips.uncounted(n)
            return False
        trips.answered(n, self.clock.now(), self.strays)
        self._due_by(trips)  # a lone stray makes the next probe due at once
        return trips.quick()

    def next_tick(self, conns: list[Peer], soonest: float) -> float:
        """When the room's probe tick is next needed: at ``soonest`` while one of ``conns`` is
        not settled, else ``ALONG_GRACE`` after the first of their settled probes is due (for
        the ones no message took along), never before ``soonest``."""
        every = self.settled_every_s
        if every is None:
            return soonest
        first: float | None = None
        for conn in conns:
            trips = self.trips.get(conn)
            if trips is None or trips.quick():
                return soonest
            if first is None or trips.next_due < first:
                first = trips.next_due
        return soonest if first is None else max(soonest, first + every * ALONG_GRACE)

    def forget(self, conn: Peer) -> None:
        self.trips.pop(conn, None)

    def rtt(self, conn: Peer) -> float | None:
        """The connection's estimate (real seconds), None before a measure."""
        trips = self.trips.get(conn)
        return trips.median() if trips is not None else None

    def allowance_ms(self, conn: Peer, speed: float) -> int:
        """The allowance of a move sent over ``conn``, in game ms at ``speed``."""
        return allowance_ms(self.rtt(conn), speed, self.cap_ms)
