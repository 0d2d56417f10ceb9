"""The server's WebSocket protocol (crisp/server/socket/websocket.py) driven by hand: the
handshake through the ASGI app (accepted, denied, unanswered), frames sent before the accept,
the ping/pong budget, and the graceful shutdown's 1012."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Close, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from crisp.server.settings import Settings
from tests.support.socketpair import SocketPair

PING = b"\x89\x80\x00\x00\x00\x00"  # a masked ping frame, no payload


def recording_app(events: list[Any], accept: bool = True) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        events.append(await receive())
        if not accept:
            await send({"type": "websocket.close"})
            return
        await send({"type": "websocket.accept", "subprotocol": None})
        while True:
            event = await receive()
            events.append(event)
            if event["type"] == "websocket.disconnect":
                return

    return app


def test_the_app_accepts_and_gets_the_messages_as_asgi_events(tmp_path: Path) -> None:
    events: list[Any] = []

    async def main() -> None:
        pair = SocketPair(recording_app(events), Settings(data_dir=tmp_path), "/ws/AB?x=1")
        response = await pair.open()
        assert response.status_code == 101
        pair.text("hello")
        await pair.settle()
        assert events[1] == {"type": "websocket.receive", "text": "hello"}
        assert events[0] == {"type": "websocket.connect"}
        pair.server.connection_lost(None)
        await pair.settle()
        assert events[-1] == {"type": "websocket.disconnect", "code": 1006}
        assert pair.state.tasks == set() and pair.state.connections == set()

    asyncio.run(main())


def test_the_scope_names_the_path_query_and_lower_case_headers(tmp_path: Path) -> None:
    scopes: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        scopes.append(scope)
        await send({"type": "websocket.close"})

    async def main() -> None:
        pair = SocketPair(app, Settings(data_dir=tmp_path), "/ws/AB?x=1")
        await pair.open()

    asyncio.run(main())
    (scope,) = scopes
    assert scope["type"] == "websocket" and scope["path"] == "/ws/AB"
    assert scope["query_string"] == b"x=1" and scope["client"] == ("127.0.0.1", 50000)
    assert all(name == name.lower() for name, _ in scope["headers"])
    assert (b"host", b"127.0.0.1:8000") in scope["headers"]


def test_an_app_that_closes_before_accepting_denies_with_403(tmp_path: Path) -> None:
    events: list[Any] = []

    async def main() -> None:
        pair = SocketPair(recording_app(events, accept=False), Settings(data_dir=tmp_path))
        response = await pair.open()
        assert response.status_code == 403 and pair.transport.closed

    asyncio.run(main())


def test_an_app_that_returns_without_answering_gets_a_500(tmp_path: Path) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()

    async def main() -> None:
        pair = SocketPair(app, Settings(data_dir=tmp_path))
        response = await pair.open()
        assert response.status_code == 500 and pair.transport.closed

    asyncio.run(main())


def test_an_apps_own_http_response_is_the_denial(tmp_path: Path) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert "websocket.http.response" in scope["extensions"]
        await receive()
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"3")]
        await send({"type": "websocket.http.response.start", "status": 429, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": b'{"code":', "more_body": True})
        await send({"type": "websocket.http.response.body", "body": b'"slow_down"}'})

    async def main() -> None:
        pair = SocketPair(app, Settings(data_dir=tmp_path))
        response = await pair.open()
        assert response.status_code == 429 and response.headers["Retry-After"] == "3"
        assert response.body == b'{"code":"slow_down"}' and pair.transport.closed

    asyncio.run(main())


def test_frames_sent_before_the_accept_are_read_after_it_in_order(tmp_path: Path) -> None:
    events: list[Any] = []

    async def main() -> None:
        opened = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            events.append(await receive())
            await opened.wait()
            await send({"type": "websocket.accept"})
            events.append(await receive())
            events.append(await receive())

        pair = SocketPair(app, Settings(data_dir=tmp_path))
        pair.client.send_request(pair.request)
        pair.server.connection_made(pair.transport)  # type: ignore[arg-type]
        pair.server.data_received(b"".join(pair.client.data_to_send()))
        await pair.settle()
        # a client's protocol sends frames only once open: these are built by an open one
        early = ClientProtocol(parse_uri("ws://127.0.0.1:8000/"), state=State.OPEN)
        early.send_text(b"one")
        early.send_text(b"two")
        pair.server.data_received(b"".join(early.data_to_send()))
        opened.set()
        await pair.settle()

    asyncio.run(main())
    assert [e.get("text") for e in events[1:]] == ["one", "two"]


def test_pings_within_the_budget_get_pongs_and_a_read_over_it_gets_none(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, ws_control_burst=3, ws_control_flood=50)

    async def main() -> None:
        pair = SocketPair(recording_app([]), settings)
        await pair.open()
        pair.send(PING * 2)
        assert [f.opcode for f in pair.pump()] == [Opcode.PONG, Opcode.PONG]
        pair.send(PING * 3)  # one token left: this read goes over the budget
        assert pair.pump() == []
        assert pair.open_state and not pair.transport.closed

    asyncio.run(main())


def test_a_flood_of_pings_closes_the_socket_with_1008(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, ws_control_burst=3, ws_control_flood=20)

    async def main() -> None:
        pair = SocketPair(recording_app([]), settings)
        await pair.open()
        pair.send(PING * 500)
        frames = pair.pump()
        assert frames[-1].opcode is Opcode.CLOSE and Close.parse(frames[-1].data).code == 1008
        assert pair.transport.closed

    asyncio.run(main())


def test_the_graceful_shutdown_closes_with_1012_and_the_app_hears_it(tmp_path: Path) -> None:
    events: list[Any] = []

    async def main() -> None:
        pair = SocketPair(recording_app(events), Settings(data_dir=tmp_path))
        await pair.open()
        assert pair.state.connections == {pair.server}
        for connection in list(pair.state.connections):
            connection.shutdown()
        (close,) = pair.pump()
        assert Close.parse(close.data).code == 1012 and pair.transport.closed
        await pair.settle()
        assert events[-1] == {"type": "websocket.disconnect", "code": 1012}

    asyncio.run(main())


def test_a_message_over_the_size_cap_closes_with_1009(tmp_path: Path) -> None:
    async def main() -> None:
        pair = SocketPair(recording_app([]), Settings(data_dir=tmp_path, max_message_bytes=256))
        await pair.open()
        pair.text("x" * 300)
        (close,) = pair.pump()
        assert Close.parse(close.data).code == 1009 and pair.transport.closed

    asyncio.run(main())


def test_frames_before_the_accept_over_twice_the_message_cap_close_the_connection(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            await receive()
            await asyncio.Event().wait()  # never answers

        pair = SocketPair(app, Settings(data_dir=tmp_path, max_message_bytes=256))
        pair.client.send_request(pair.request)
        pair.server.connection_made(pair.transport)  # type: ignore[arg-type]
        pair.server.data_received(b"".join(pair.client.data_to_send()))
        await pair.settle()
        pair.server.data_received(b"\x81\x80\x00\x00\x00\x00" * 80)  # 480 bytes: kept
        assert not pair.transport.closed
        pair.server.data_received(b"\x81\x80\x00\x00\x00\x00" * 10)  # 540 > 512
        assert pair.transport.closed
        for task in pair.state.tasks:
            task.cancel()

    asyncio.run(main())
