"""A detached WebSocket (crisp/server/socket/websocket.py ``detach``; memory per socket):
the app's ASGI call returns at once and the socket stays open; its text messages reach the
receiver, its binary ones the binary handler, both in the order sent and after whatever was
queued before; its end (the peer's close, or the app's own) runs the app's ending once, and the
transport is closed after it. And the game server's sockets are detached: a room's players keep
playing with no call of the app suspended for them."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from cluster import http
from starlette.websockets import WebSocket
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request

from crisp.server.app import create_app
from crisp.server.settings import Settings
from crisp.server.socket.direct import EXTENSION
from crisp.server.socket.websocket import websocket_protocol
from tests.support.inthread import serving

Event = tuple[str, Any]


def detaching_app(events: list[Event], close_on: str | None = None) -> Any:
    """Accepts, takes one message as an ASGI event, then detaches and returns. Every message
    and step is recorded in ``events``; a text equal to ``close_on`` makes the app close."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        await ws.send_text("ready")
        events.append(("asgi", (await ws.receive()).get("text")))
        socket = scope["extensions"][EXTENSION]["socket"]
        loop = asyncio.get_running_loop()
        answers: set[asyncio.Task[None]] = set()

        def text(message: str) -> None:
            events.append(("text", message))
            answer = ws.close(4000) if message == close_on else ws.send_text("echo:" + message)
            task = loop.create_task(answer)
            answers.add(task)
            task.add_done_callback(answers.discard)

        async def ending() -> None:
            events.append(("ending", None))
            await asyncio.sleep(0)  # it may await (the room's goodbye, the last frames)
            events.append(("ended", None))

        socket.deliver(text)
        assert socket.detach(lambda data: events.append(("binary", data)), ending)
        assert not socket.detach(lambda data: None, ending)  # once
        events.append(("returned", None))
        await ws.send_text("detached")

    return app


def test_the_call_returns_and_the_socket_plays_on_until_the_peer_closes(tmp_path: Path) -> None:
    events: list[Event] = []

    async def client(port: int) -> list[str]:
        heard = []
        async with connect(f"ws://127.0.0.1:{port}/") as ws:
            assert await ws.recv() == "ready"
            await ws.send("first")  # an ASGI event: the app reads it before it detaches
            for item in ("one", b"\x01bin", "クリスプ 🃏"):
                await ws.send(item)
            assert await asyncio.wait_for(ws.recv(), 5) == "detached"
            heard.append(str(await asyncio.wait_for(ws.recv(), 5)))
            heard.append(str(await asyncio.wait_for(ws.recv(), 5)))
            assert ("returned", None) in events  # the app's call is over, the socket is not
            await ws.send("two")
            heard.append(str(await asyncio.wait_for(ws.recv(), 5)))
        return heard

    with serving(detaching_app(events), ws=websocket_protocol(Settings(data_dir=tmp_path))) as port:
        heard = asyncio.run(client(port))
        for _ in range(100):  # the ending runs in the server's thread once the close is read
            if ("ended", None) in events:
                break
            asyncio.run(asyncio.sleep(0.01))
    assert heard == ["echo:one", "echo:クリスプ 🃏", "echo:two"]
    messages = [e for e in events if e[0] in ("asgi", "text", "binary")]
    assert messages == [
        ("asgi", "first"),
        ("text", "one"),
        ("binary", b"\x01bin"),
        ("text", "クリスプ 🃏"),
        ("text", "two"),
    ]
    assert events.count(("ending", None)) == 1 and events[-1] == ("ended", None)


def close_code(
    app: Any, tmp_path: Path, then: Callable[[ClientConnection], Awaitable[None]]
) -> int:
    """The code a detached socket closes with, once the client has sent "first", heard that the
    app detached, and done ``then``."""
    codes: list[int | None] = []

    async def client(port: int) -> None:
        async with connect(f"ws://127.0.0.1:{port}/") as ws:
            assert await ws.recv() == "ready"
            await ws.send("first")
            assert await asyncio.wait_for(ws.recv(), 5) == "detached"
            await then(ws)
            with pytest.raises(ConnectionClosed):
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
        codes.append(ws.close_code)

    with serving(app, ws=websocket_protocol(Settings(data_dir=tmp_path))) as port:
        asyncio.run(client(port))
    assert len(codes) == 1 and codes[0] is not None
    return codes[0]


def test_the_apps_own_close_ends_a_detached_socket_with_its_code(tmp_path: Path) -> None:
    events: list[Event] = []

    async def bye(ws: ClientConnection) -> None:
        await ws.send("bye")

    assert close_code(detaching_app(events, close_on="bye"), tmp_path, bye) == 4000
    assert events.count(("ending", None)) == 1


def test_a_detached_socket_keeps_a_text_not_in_utf8_closing_with_1007(tmp_path: Path) -> None:
    events: list[Event] = []

    async def not_utf8(ws: ClientConnection) -> None:
        ws.protocol.send_text(b"\xff\xfe")  # sent raw, past the client's own check
        ws.send_data()

    assert close_code(detaching_app(events), tmp_path, not_utf8) == 1007
    assert events.count(("ending", None)) == 1


def test_the_game_servers_sockets_are_detached(tmp_path: Path) -> None:
    """Through the whole app on uvicorn with our protocol: a player's socket is served with no
    ASGI call of the app left running, and it plays (hello, ping); nor does the server keep the
    handshake's request (only the client's own is left in the process), the ASGI socket or its
    scope."""
    settings = Settings(data_dir=tmp_path)
    app = create_app(settings)
    running: list[int] = []

    async def client(port: int) -> list[str]:
        base = f"http://127.0.0.1:{port}"
        status, room = await asyncio.to_thread(http, base, "POST", "/api/rooms", {"name": "Ana"})
        assert status == 201, room
        async with connect(f"ws://127.0.0.1:{port}/ws/{room['code']}") as ws:
            await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
            await ws.send(json.dumps({"type": "ping", "n": 7}))
            kinds = []
            while "pong" not in kinds:
                kinds.append(json.loads(await asyncio.wait_for(ws.recv(), 5))["type"])
            running.append(len(server_tasks()))
            gc.collect()
            requests = [o for o in gc.get_objects() if isinstance(o, Request)]
            kept.append([r for r in requests if r is not ws.request] != [])  # the client's own
            # nor the ASGI socket, nor any copy of its scope (the middlewares make some)
            kept.append(any(isinstance(o, WebSocket) for o in gc.get_objects()))
            scopes = [
                o for o in gc.get_objects() if isinstance(o, dict) and o.get("type") == "websocket"
            ]
            kept.append(scopes != [])
            return kinds

    tasks_of: list[Any] = []
    kept: list[bool] = []

    def server_tasks() -> list[Any]:
        return [t for t in tasks_of[0] if not t.done()] if tasks_of else []

    class Spy(websocket_protocol(settings)):  # type: ignore[misc]
        __slots__ = ()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            tasks_of[:] = [self.server_state.tasks]

    with serving(app, ws=Spy) as port:
        kinds = asyncio.run(client(port))
    assert kinds[0] == "welcome" and "pong" in kinds
    assert running == [0]  # no app call (nor anything else) running for the open socket
    assert kept == [False, False, False]
