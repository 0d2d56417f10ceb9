"""Keepalive pings only on a quiet socket (crisp/server/socket/keepalive.py, ``ws_ping_after_s``):
a peer that sent anything within the interval is not pinged (a phone in a game answers its
probes every few seconds), a silent one is pinged, and closed with 1011 if its pong does not
come within ``ws_ping_timeout_s``; one sweep of the server looks at every socket a quarter of
the shorter duration apart (a slice of them at a time), so each is a quarter late at most. The
pong is read from websockets' frame events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.frames import Close, Opcode
from websockets.protocol import State

from crisp.server.settings import Settings
from crisp.server.socket.keepalive import SLICES, Keepalive
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
        """Every timer due within ``seconds`` fires at its time, in order (those it schedules
        too), then the clock stands at the end."""
        end = self.now + seconds
        while due := [t for t in self.timers if not t.cancelled and t.at <= end]:
            timer = min(due, key=lambda t: t.at)
            self.timers.remove(timer)
            self.now = timer.at
            timer.callback()
        self.now = end

    def pending(self) -> list[FakeTimer]:
        return [t for t in self.timers if not t.cancelled]


class FakeTimer:
    def __init__(self, at: float, callback: Callable[[], None]) -> None:
        self.at = at
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Peer:
    """A socket as the sweep sees it, recording its pings and its expiry."""

    def __init__(self) -> None:
        self.heard = 0.0
        self.ping_payload: bytes | None = None
        self.pong_due = 0.0
        self.pings: list[bytes] = []
        self.expired = 0

    def ping(self, payload: bytes) -> None:
        self.pings.append(payload)

    def ping_expired(self) -> None:
        self.expired += 1


def sweep(loop: FakeLoop, peers: int = 1) -> tuple[Keepalive, list[Peer]]:
    """A sweep of interval 20 s and timeout 10 s (a look every 2.5 s) with ``peers`` sockets
    opened at the fake loop's now."""
    alive = Keepalive(20, 10)
    made = [Peer() for _ in range(peers)]
    for peer in made:
        alive.add(peer, loop)  # type: ignore[arg-type]
    return alive, made


def test_a_new_loop_starts_the_sweep_anew() -> None:
    """Sockets of a loop that has ended are not swept on the next one (a server restarted in
    the same process, a test's next loop): the new loop gets a timer of its own."""
    old, new = FakeLoop(), FakeLoop()
    alive, _ = sweep(old)
    peer = Peer()
    alive.add(peer, new)  # type: ignore[arg-type]
    assert len(new.pending()) == 1 and alive.sockets == {peer}
    new.advance(20)
    assert len(peer.pings) == 1


def test_a_socket_heard_within_the_interval_is_not_pinged_until_an_interval_after() -> None:
    loop = FakeLoop()
    _alive, (peer,) = sweep(loop)
    loop.advance(15)
    peer.heard = loop.now  # it spoke 15 s in
    loop.advance(5)  # 20 s after the open: it spoke 5 s ago
    assert peer.pings == []
    loop.advance(12.5)  # 17.5 s after it spoke
    assert peer.pings == []
    loop.advance(2.5)  # 20 s after
    assert len(peer.pings) == 1


def test_a_silent_socket_is_pinged_and_its_pong_restarts_the_interval() -> None:
    loop = FakeLoop()
    alive, (peer,) = sweep(loop)
    loop.advance(20)
    assert len(peer.pings) == 1 and len(peer.pings[0]) == 4
    Keepalive.pong(peer, b"another")  # type: ignore[arg-type]  # not the awaited payload
    assert peer.ping_payload == peer.pings[0]
    peer.heard = loop.now  # the pong's frame was heard
    Keepalive.pong(peer, peer.pings[0])  # type: ignore[arg-type]
    assert peer.ping_payload is None
    loop.advance(17.5)
    assert len(peer.pings) == 1  # quiet since the pong for less than the interval
    loop.advance(2.5)
    assert len(peer.pings) == 2
    assert peer.expired == 0
    assert alive.timer is not None


def test_a_ping_unanswered_within_the_timeout_expires_within_a_step() -> None:
    loop = FakeLoop()
    _alive, (peer,) = sweep(loop)
    loop.advance(20)
    loop.advance(7.5)
    assert peer.expired == 0
    loop.advance(2.5)  # 10 s after the ping
    assert len(peer.pings) == 1 and peer.expired == 1
    assert peer.ping_payload is None


def test_one_timer_serves_every_socket_and_stops_with_the_last() -> None:
    loop = FakeLoop()
    alive, peers = sweep(loop, peers=3)
    assert len(loop.pending()) == 1
    loop.advance(20 + alive.step)  # each looked at within a step of the interval
    assert [len(p.pings) for p in peers] == [1, 1, 1]
    assert len(loop.pending()) == 1
    for peer in peers:
        alive.remove(peer)  # type: ignore[arg-type]
    assert loop.pending() == [] and alive.timer is None


def test_a_look_is_spread_over_its_step_in_slices() -> None:
    """Sockets gone quiet together are not all pinged in one turn (their pongs would come back
    in the next): a tenth of them every tenth of a step, and every one within the step."""
    loop = FakeLoop()
    alive, peers = sweep(loop, peers=100)
    loop.advance(20)
    pinged = [sum(len(p.pings) for p in peers)]
    for _ in range(SLICES - 1):
        loop.advance(alive.step / SLICES)
        pinged.append(sum(len(p.pings) for p in peers))
    assert pinged == [10 * (i + 1) for i in range(SLICES)]
    assert len({p.ping_payload for p in peers}) == 100  # each pong names its own ping
    assert len(loop.pending()) == 1


async def waiting_app(scope: Any, receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


def test_what_the_peer_sends_counts_as_heard(tmp_path: Path) -> None:
    async def main() -> None:
        pair = SocketPair(waiting_app, Settings(data_dir=tmp_path, ws_ping_after_s=20))
        await pair.open()
        server = pair.server
        server.heard = 0.0
        pair.text("hello")
        assert abs(server.heard - asyncio.get_running_loop().time()) < 1
        server.keepalive.remove(server)

    asyncio.run(main())


async def pinged(tmp_path: Path) -> tuple[SocketPair, float]:
    """An open socket quiet for 25 s, looked at by the sweep now (so pinged), and that now."""
    pair = SocketPair(waiting_app, Settings(data_dir=tmp_path, ws_ping_after_s=20))
    await pair.open()
    now = asyncio.get_running_loop().time()
    pair.server.heard = now - 25
    pair.server.keepalive.check(pair.server, now)
    return pair, now


def test_the_protocol_pings_a_silent_peer_and_closes_it_1011_without_a_pong(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        pair, now = await pinged(tmp_path)
        server = pair.server
        (ping,) = pair.pump()
        assert ping.opcode is Opcode.PING and ping.data == server.ping_payload
        server.keepalive.check(server, now + server.keepalive.timeout)  # no pong by then
        (close,) = pair.pump()
        assert close.opcode is Opcode.CLOSE and Close.parse(close.data).code == 1011
        assert pair.transport.closed

    asyncio.run(main())


def test_the_pong_of_the_peer_is_read_from_its_frame(tmp_path: Path) -> None:
    async def main() -> None:
        pair, now = await pinged(tmp_path)
        server = pair.server
        payload = server.ping_payload
        assert payload is not None
        pair.client.send_pong(payload)
        pair.send(pair.client_sends())
        assert server.ping_payload is None  # answered: quiet again from now
        assert server.heard >= now
        assert pair.server.proto.state is State.OPEN
        server.keepalive.remove(server)

    asyncio.run(main())
