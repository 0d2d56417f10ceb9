"""Keepalive pings only on a quiet socket (crisp/server/http/uvguard.py, ``ws_ping_after_s``;
issue 22): a peer that sent anything within the interval is not pinged (a phone in a game
answers its probes every few seconds), a silent one is pinged as uvicorn does, and closed if
it does not answer (``ws_ping_timeout_s``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.protocol import State

from crisp.server.http.uvguard import guarded_ws
from crisp.server.settings import Settings

PING = 0x89  # FIN + opcode 9: a server's ping frame starts with this byte


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return False


def protocol(tmp_path: Path, after_s: float) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("not called")

    config = Config(app, ws="websockets-sansio", lifespan="off", ws_ping_interval=after_s)
    config.load()
    proto = guarded_ws(Settings(data_dir=tmp_path))(config, ServerState(), {})
    proto.transport = FakeTransport()
    proto.conn.state = State.OPEN  # as after the handshake
    return proto


def test_a_socket_heard_within_the_interval_is_not_pinged_until_an_interval_after(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        proto = protocol(tmp_path, after_s=20)
        loop = asyncio.get_running_loop()
        proto.heard = loop.time() - 5  # it spoke 5 s ago
        proto.send_keepalive_ping()
        assert proto.transport.writes == [] and proto.pong_timer is None
        assert 14 < proto.ping_timer.when() - loop.time() <= 15  # 20 s after it spoke
        proto.ping_timer.cancel()

    asyncio.run(main())


def test_a_silent_socket_is_pinged_and_waits_for_its_pong(tmp_path: Path) -> None:
    async def main() -> None:
        proto = protocol(tmp_path, after_s=20)
        proto.heard = asyncio.get_running_loop().time() - 25
        proto.send_keepalive_ping()
        assert [data[0] for data in proto.transport.writes] == [PING]
        assert proto.pong_timer is not None  # unanswered within the timeout: closed (1011)
        proto.pong_timer.cancel()

    asyncio.run(main())


def test_what_the_peer_sends_counts_as_heard(tmp_path: Path) -> None:
    async def main() -> None:
        proto = protocol(tmp_path, after_s=20)
        proto.heard = 0.0
        proto.data_received(b"")
        assert abs(proto.heard - asyncio.get_running_loop().time()) < 1

    asyncio.run(main())


def test_the_server_takes_its_ping_interval_and_timeout_from_the_settings(tmp_path: Path) -> None:
    from crisp.server.run import serve

    settings = Settings(data_dir=tmp_path, ws_ping_after_s=45, ws_ping_timeout_s=7)
    config = serve.uvicorn_config(settings, app=None)
    assert (config.ws_ping_interval, config.ws_ping_timeout) == (45, 7)
