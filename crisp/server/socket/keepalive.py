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
not answer closes between ``timeout`` and ``timeout + step`` after its ping."""

from __future__ import annotations

import asyncio
import os
from typing import Protocol

SWEEPS = 4  # looks per the shorter duration


class Pingable(Protocol):
    """What the sweep reads and writes on a socket."""

    heard: float  # when the peer last sent anything (loop time); set by the socket
    ping_payload: bytes | None  # the ping waiting for its pong
    pong_due: float  # when that pong is due (loop time)

    def ping(self, payload: bytes) -> None: ...

    def ping_expired(self) -> None: ...


class Keepalive:
    """The sweep of one server: sockets join it at their accept and leave it when lost."""

    __slots__ = ("interval", "loop", "sockets", "step", "timeout", "timer")

    def __init__(self, interval: float, timeout: float) -> None:
        self.interval = interval
        self.timeout = timeout
        self.step = min(interval, timeout) / SWEEPS
        self.sockets: set[Pingable] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.timer: asyncio.TimerHandle | None = None

    def add(self, socket: Pingable, loop: asyncio.AbstractEventLoop) -> None:
        if loop is not self.loop:  # a server's first socket, or a new loop (the old one ended)
            self.sockets = set()
            self.loop, self.timer = loop, None
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

    def sweep(self) -> None:
        loop = self.loop
        assert loop is not None
        now = loop.time()
        for socket in list(self.sockets):
            self.check(socket, now)
        self.timer = loop.call_later(self.step, self.sweep) if self.sockets else None

    def check(self, socket: Pingable, now: float) -> None:
        """One socket at ``now``: its awaited pong overdue (expired), or quiet long enough to be
        pinged, or nothing to do."""
        if socket.ping_payload is not None:
            if now >= socket.pong_due:
                socket.ping_payload = None
                socket.ping_expired()
        elif now - socket.heard >= self.interval:
            socket.ping_payload = payload = os.urandom(4)
            socket.pong_due = now + self.timeout
            socket.ping(payload)

    @staticmethod
    def pong(socket: Pingable, data: bytes) -> None:
        """A pong from the peer: the awaited one is answered (being heard, the socket's quiet
        starts again); any other is ignored."""
        if socket.ping_payload is not None and data == socket.ping_payload:
            socket.ping_payload = None
