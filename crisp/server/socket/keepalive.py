"""Keepalive pings, only on a quiet socket.

A peer that sent anything within ``interval`` seconds is alive (and its NAT and proxies have
seen traffic): it is not pinged, and the next check is an interval after what it sent. A quiet
one is pinged; its pong (the same payload) must come within ``timeout`` seconds, else
``expired`` is called (the socket closes with 1011). Pinging every socket on a fixed period
would cost 400 pings and pongs a second at 1,000 rooms of 8; the traffic of a phone in a game
(its probes' answers) proves it alive at no cost."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable


class Keepalive:
    __slots__ = ("expired", "heard", "interval", "loop", "payload", "ping", "timeout", "timer")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        interval: float,
        timeout: float,
        ping: Callable[[bytes], None],
        expired: Callable[[], None],
    ) -> None:
        self.loop = loop
        self.interval = interval
        self.timeout = timeout
        self.ping = ping
        self.expired = expired
        self.heard = loop.time()  # when the peer last sent anything (loop time); set by the socket
        self.payload: bytes | None = None  # the ping waiting for its pong
        self.timer: asyncio.TimerHandle | None = loop.call_later(interval, self.check)

    def check(self) -> None:
        """The interval is up: ping the peer if it has been quiet that long, else wait on."""
        quiet = self.loop.time() - self.heard
        if quiet < self.interval:
            self.timer = self.loop.call_later(self.interval - quiet, self.check)
            return
        self.payload = os.urandom(4)
        self.timer = self.loop.call_later(self.timeout, self.expire)
        self.ping(self.payload)

    def pong(self, data: bytes) -> None:
        """A pong from the peer: the awaited one restarts the interval; any other is ignored."""
        if self.payload is None or data != self.payload:
            return
        self.payload = None
        self.stop()
        self.timer = self.loop.call_later(self.interval, self.check)

    def expire(self) -> None:
        self.timer = None
        self.payload = None
        self.expired()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
