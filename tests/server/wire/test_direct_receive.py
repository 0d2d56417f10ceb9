"""The direct receive path (crisp/server/socket/websocket.py ``deliver``, socket/inbox.py): our
WebSocket protocol hands each text message to the app's receiver as it is parsed, in the order sent,
after whatever was queued as ASGI events before the receiver was given; binary messages and the
disconnect still come as ASGI events; a text that is not UTF-8 closes with 1007 either way. And
the inbox: a message that finds its room held waits, and so does every later one of its socket,
in order; the rate limit is the ASGI path's."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from roomkit import Kit
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from crisp.server.limits.room_limits import HelloTimer
from crisp.server.settings import Settings
from crisp.server.socket.connection import Connection
from crisp.server.socket.direct import EXTENSION
from crisp.server.socket.inbox import Inbox
from crisp.server.socket.websocket import websocket_protocol
from tests.support.inthread import serving

Event = tuple[str, Any]


def receiving_app(events: list[Event], early: int) -> Any:
    """An ASGI app that takes ``early`` messages as ASGI events, then gives the socket a
    receiver; every message and event is recorded in ``events`` as (path, what)."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        await ws.send_text("ready")
        for _ in range(early):
            events.append(("asgi", (await ws.receive()).get("text")))
        socket = scope["extensions"][EXTENSION]["socket"]
        socket.deliver(lambda text: events.append(("direct", text)))
        await ws.send_text("direct")
        while True:
            message = await ws.receive()
            events.append(("asgi", message.get("text", message.get("bytes", message["type"]))))
            if message["type"] == "websocket.disconnect":
                return

    return app


def run_client(port: int, script: list[str | bytes]) -> None:
    async def client() -> None:
        async with connect(f"ws://127.0.0.1:{port}/") as ws:
            assert await ws.recv() == "ready"
            for item in script[:2]:
                await ws.send(item)  # taken as ASGI events (the receiver is not given yet)
            assert await ws.recv() == "direct"
            for item in script[2:]:
                await ws.send(item)
            await ws.send("last")  # then the close: the server reads them in that order

    asyncio.run(client())


def test_text_messages_reach_the_receiver_in_order_after_the_queued_ones(
    tmp_path: Path,
) -> None:
    events: list[Event] = []
    script: list[str | bytes] = ["one", "two", "three", "クリスプ 🃏", b"\x00bin", "four"]
    with serving(
        receiving_app(events, 2), ws=websocket_protocol(Settings(data_dir=tmp_path))
    ) as port:
        run_client(port, script)
    assert events[:4] == [
        ("asgi", "one"),
        ("asgi", "two"),
        ("direct", "three"),
        ("direct", "クリスプ 🃏"),
    ]
    # The binary one is an ASGI event; the texts after it wait behind it until the app has taken
    # it (then they are direct again): either way, the app sees every message in the order sent.
    assert ("asgi", b"\x00bin") in events
    assert [e[1] for e in events] == [*script, "last", "websocket.disconnect"]


def test_a_text_not_in_utf8_closes_with_1007_on_the_direct_path(tmp_path: Path) -> None:
    events: list[Event] = []
    codes: list[int | None] = []

    async def client(port: int) -> None:
        async with connect(f"ws://127.0.0.1:{port}/") as ws:
            assert await ws.recv() == "ready"
            assert await ws.recv() == "direct"
            await ws.send("fine")
            # a text frame (opcode 1) whose bytes are not UTF-8, sent raw past the client's check
            ws.protocol.send_text(b"\xff\xfe")
            ws.send_data()
            with contextlib.suppress(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
        codes.append(ws.close_code)

    with serving(
        receiving_app(events, 0), ws=websocket_protocol(Settings(data_dir=tmp_path))
    ) as port:
        asyncio.run(client(port))
    assert ("direct", "fine") in events
    assert codes == [1007]
    assert not [e for e in events if e[0] == "direct" and e[1] != "fine"]


class Recorded(Connection):
    """A connection whose messages land in ``sent`` (parsed), on no socket."""

    def __init__(self, burst: int = 100, rate: float = 100) -> None:
        ws: Any = type("Ws", (), {"scope": {"type": "websocket"}})()
        super().__init__(ws, queue_max=1000, rate=rate, burst=burst)
        self.sent: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def test_the_inbox_keeps_messages_in_order_while_the_room_is_held(tmp_path: Path) -> None:
    """A socket's messages keep their order: while the room's lock is held (a join awaiting its
    commit), the socket's messages wait; the one after the lock is free still waits behind them;
    all are handled in the order sent once the room is free."""

    async def main() -> list[str]:
        kit = Kit(tmp_path)
        room = kit.hub.create_room()
        _, token = room.join("Ana")
        conn = Recorded()
        room.conns.add(conn)
        inbox = Inbox(kit.hub, room, conn)
        await room.lock.acquire()
        inbox(json.dumps({"type": "hello", "token": token}))
        inbox(json.dumps({"type": "ping", "n": 1}))
        assert conn.sent == [] and len(inbox.waiting or ()) == 2  # nothing handled while it is held
        room.lock.release()
        inbox(json.dumps({"type": "bogus"}))  # free now, but behind the two waiting
        assert len(inbox.waiting or ()) == 3
        assert inbox.task is not None
        await inbox.task
        assert inbox.task is None and inbox.waiting is None
        direct = json.dumps({"type": "hello", "token": token})
        assert kit.hub.receive_now(room, conn, direct)  # free and nothing waits: at once
        return [m["type"] + ":" + m.get("about", "") for m in conn.sent]

    sent = asyncio.run(main())
    # hello (welcome, the room, its state), ping (pong), the bogus one, the second hello
    assert sent == ["welcome:", "room:", "state:", "pong:", "error:bogus", "error:hello"]


def test_the_inbox_refuses_over_the_rate_as_the_asgi_path_does(tmp_path: Path) -> None:
    async def main() -> list[dict[str, Any]]:
        kit = Kit(tmp_path)
        room = kit.hub.create_room()
        conn = Recorded(burst=2, rate=0.001)
        inbox = Inbox(kit.hub, room, conn)
        for _ in range(5):
            inbox(json.dumps({"type": "ping"}))
        return conn.sent

    sent = asyncio.run(main())
    codes = [m.get("code") for m in sent if m["type"] == "error"]
    assert codes.count("rate_limited") == 1, codes  # the first of a run is answered, once
    assert codes.count("unauthorized") == 2, codes  # the two within the burst were handled


def test_the_hello_deadline_is_cancelled_at_the_hello_and_at_the_end(tmp_path: Path) -> None:
    """docs/limits.md, the hello deadline: nothing of it is kept once the socket has said hello,
    whether the hello was handled at once or waited for its held room; a socket that ends
    without one has it cancelled by its end."""

    async def main() -> list[bool]:
        kit = Kit(tmp_path)
        room = kit.hub.create_room()
        _, token = room.join("Ana")
        hello = json.dumps({"type": "hello", "token": token})
        cancelled: list[bool] = []
        for held in (False, True):
            conn = Recorded()
            room.conns.add(conn)
            deadline = HelloTimer(lambda conn=conn: conn.greeted, conn.close, 60)
            inbox = Inbox(kit.hub, room, conn, deadline)
            inbox(json.dumps({"type": "ping", "n": 1}))  # no hello yet: the deadline stands
            assert deadline.when() is not None
            if held:
                await room.lock.acquire()
            inbox(hello)
            if held:
                assert deadline.when() is not None  # waiting with its message
                room.lock.release()
                assert inbox.task is not None
                await inbox.task
            cancelled.append(deadline.when() is None and inbox.deadline is None)
        silent = Inbox(kit.hub, room, Recorded(), HelloTimer(lambda: False, print, 60))
        timer = silent.deadline
        await silent.stop()
        cancelled.append(timer is not None and timer.when() is None)
        return cancelled

    assert asyncio.run(main()) == [True, True, True]
