"""Keepalive pings only on a quiet socket (crisp/server/socket/keepalive.py, ``ws_ping_after_s``):
a peer that sent anything within the interval is not pinged (a phone in a game answers its
probes every few seconds), a silent one is pinged, and closed with 1011 if its pong does not
come within ``ws_ping_timeout_s``. The pong is read from websockets' frame events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.frames import Close, Opcode
from websockets.protocol import State

from crisp.server.settings import Settings
from crisp.server.socket.keepalive import Keepalive
from tests.support.socketpair import SocketPair


class FakeLoop:
    """``time`` and ``call_later`` on a clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[FakeTimer] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer(self.now + delay, callback)
        self.timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for timer in sorted(self.timers, key=lambda t: t.at):
            if timer.at <= self.now and not timer.cancelled:
                self.timers.remove(timer)
                timer.callback()

    def pending(self) -> list[FakeTimer]:
        return [t for t in self.timers if not t.cancelled]


class FakeTimer:
    def __init__(self, at: float, callback: Callable[[], None]) -> None:
        self.at = at
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def keepalive(loop: FakeLoop) -> tuple[Keepalive, list[bytes], list[str]]:
    pings: list[bytes] = []
    expired: list[str] = []
    alive = Keepalive(loop, 20, 10, pings.append, lambda: expired.append("expired"))  # type: ignore[arg-type]
    return alive, pings, expired


def test_a_socket_heard_within_the_interval_is_not_pinged_until_an_interval_after() -> None:
    loop = FakeLoop()
    alive, pings, _ = keepalive(loop)
    loop.advance(15)
    alive.heard = loop.now  # it spoke 15 s in
    loop.advance(5)  # the first check: it spoke 5 s ago
    assert pings == []
    assert [t.at - loop.now for t in loop.pending()] == [15]  # 20 s after it spoke
    loop.advance(15)
    assert len(pings) == 1


def test_a_silent_socket_is_pinged_and_its_pong_restarts_the_interval() -> None:
    loop = FakeLoop()
    alive, pings, expired = keepalive(loop)
    loop.advance(20)
    assert len(pings) == 1 and len(pings[0]) == 4
    alive.pong(b"another")  # not the awaited payload: ignored
    assert [t.at - loop.now for t in loop.pending()] == [10]  # the pong's deadline
    alive.pong(pings[0])
    assert [t.at - loop.now for t in loop.pending()] == [20]  # the next interval
    loop.advance(20)
    assert len(pings) == 2
    assert expired == []


def test_a_ping_unanswered_within_the_timeout_expires() -> None:
    loop = FakeLoop()
    _alive, pings, expired = keepalive(loop)
    loop.advance(20)
    loop.advance(10)
    assert len(pings) == 1 and expired == ["expired"]
    assert loop.pending() == []


async def waiting_app(scope: Any, receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


def test_what_the_peer_sends_counts_as_heard(tmp_path: Path) -> None:
    async def main() -> None:
        pair = SocketPair(waiting_app, Settings(data_dir=tmp_path, ws_ping_after_s=20))
        await pair.open()
        alive = pair.server.keepalive
        assert alive is not None
        alive.heard = 0.0
        pair.text("hello")
        assert abs(alive.heard - asyncio.get_running_loop().time()) < 1
        alive.stop()

    asyncio.run(main())


def test_the_protocol_pings_a_silent_peer_and_closes_it_1011_without_a_pong(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        pair = SocketPair(waiting_app, Settings(data_dir=tmp_path, ws_ping_after_s=20))
        await pair.open()
        alive = pair.server.keepalive
        assert alive is not None
        alive.heard -= 25
        alive.check()
        (ping,) = pair.pump()
        assert ping.opcode is Opcode.PING and ping.data == alive.payload
        alive.expire()
        (close,) = pair.pump()
        assert close.opcode is Opcode.CLOSE and Close.parse(close.data).code == 1011
        assert pair.transport.closed

    asyncio.run(main())


def test_the_pong_of_the_peer_is_read_from_its_frame(tmp_path: Path) -> None:
    async def main() -> None:
        pair = SocketPair(waiting_app, Settings(data_dir=tmp_path, ws_ping_after_s=20))
        await pair.open()
        alive = pair.server.keepalive
        assert alive is not None
        alive.heard -= 25
        alive.check()
        payload = alive.payload
        assert payload is not None
        pair.client.send_pong(payload)
        pair.send(pair.client_sends())
        assert alive.payload is None  # answered: the next check an interval on
        assert pair.server.proto.state is State.OPEN
        alive.stop()

    asyncio.run(main())
