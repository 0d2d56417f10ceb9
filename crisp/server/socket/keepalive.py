"""Keepalive pings, only on a quiet socket, by one sweep for all the sockets of a server.

A peer that sent anything within ``interval`` seconds is alive (and its NAT and proxies have
seen traffic): it is not pinged. A quiet one is pinged; its pong (the same payload) must come
within ``timeout`` seconds, else the socket is told it expired (it closes with 1011). Pinging every
socket on a fixed period would cost 400 pings and pongs a second at 1,000 rooms of 8; the traffic
of a phone in a game (its probes' answers) proves it alive at no cost.

One timer per server looks at every open socket each ``step`` (a quarter of the shorter of the
two durations), rather than a timer per socket: a socket keeps three fields and no timer handle or
callback of its own (memory per socket: docs/performance.md). So a quiet socket
is pinged between ``interval`` and ``interval + step`` after it was last heard, and one that does
not answer closes between ``timeout`` and ``timeout + step`` after its ping.

The look is spread over the step: a ``SLICES``-th of the sockets every ``SLICES``-th of it. Looked
at all at once, at 2,000 rooms the sockets that had gone quiet together were pinged in one turn
of the loop, and their pongs came back in the next: a pause of 100-180 ms every step."""

from __future__ import annotations

import asyncio
from typing import Protocol

SWEEPS = 4  # looks per the shorter duration
SLICES = 10  # each look, spread over this many turns a step apart / SLICES


class Pingable(Protocol):
    """What the sweep reads and writes on a socket."""

    heard: float  # when the peer last sent anything (loop time); set by the socket
    ping_payload: bytes | None  # the ping waiting for its pong
    pong_due: float  # when that pong is due (loop time)

    def ping(self, payload: bytes) -> None: ...

    def ping_expired(self) -> None: ...


class Keepalive:
    """The sweep of one server: sockets join it at their accept and leave it when lost."""

    __slots__ = (
        "count",
        "interval",
        "loop",
        "slice",
        "sockets",
        "step",
        "swept",
        "timeout",
        "timer",
    )

    def __init__(self, interval: float, timeout: float) -> None:
        self.interval = interval
        self.timeout = timeout
        self.step = min(interval, timeout) / SWEEPS
        self.sockets: set[Pingable] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.swept: list[Pingable] = []  # the sockets of the current look, as it began
        self.slice = 0  # the slice of it looked at next
        self.count = 0  # pings sent: the next payload (a pong names the ping it answers)

    def add(self, socket: Pingable, loop: asyncio.AbstractEventLoop) -> None:
        if loop is not self.loop:  # a server's first socket, or a new loop (the old one ended)
            self.sockets = set()
            self.loop, self.timer = loop, None
            self.swept, self.slice = [], 0
        socket.heard = loop.time()
        socket.ping_payload = None
        self.sockets.add(socket)
        if self.timer is None:
            self.timer = loop.call_later(self.step, self.sweep)

    def remove(self, socket: Pingable) -> None:
        self.sockets.discard(socket)
        if not self.sockets and self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.swept, self.slice = [], 0

    def sweep(self) -> None:
        """One slice of the current look (the first takes the open sockets as they are)."""
        loop = self.loop
        assert loop is not None
        now = loop.time()
        if self.slice == 0:
            self.swept = list(self.sockets)
        swept, sockets, n = self.swept, self.sockets, len(self.swept)
        for socket in swept[-(-self.slice * n // SLICES) : -(-(self.slice + 1) * n // SLICES)]:
            if socket in sockets:  # not lost since the look began
                self.check(socket, now)
        self.slice = (self.slice + 1) % SLICES
        if self.slice == 0:
            self.swept = []
        if sockets:
            self.timer = loop.call_later(self.step / SLICES, self.sweep)
        else:
            self.timer, self.slice = None, 0

    def check(self, socket: Pingable, now: float) -> None:
        """One socket at ``now``: its awaited pong overdue (expired), or quiet long enough to be
        pinged, or nothing to do."""
        if socket.ping_payload is not None:
            if now >= socket.pong_due:
                socket.ping_payload = None
                socket.ping_expired()
        elif now - socket.heard >= self.interval:
            self.count = (self.count + 1) & 0xFFFFFFFF
            socket.ping_payload = payload = self.count.to_bytes(4, "big")
            socket.pong_due = now + self.timeout
            socket.ping(payload)

    @staticmethod
    def pong(socket: Pingable, data: bytes) -> None:
        """A pong from the peer: the awaited one is answered (being heard, the socket's quiet
        starts again); any other is ignored."""
        if socket.ping_payload is not None and data == socket.ping_payload:
            socket.ping_payload = None
