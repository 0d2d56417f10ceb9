"""The writer's own text frames (crisp/server/socket/frames.py, direct.py): frames that
websockets itself parses back to the same texts, a writer that puts everything queued in one
write where the server offers the direct path (after the transport has drained), the ASGI
``send`` where it does not, and a real uvicorn with our WebSocket protocol whose frames a real
client reads."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedOK
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from crisp.server.settings import Settings
from crisp.server.socket.connection import Connection
from crisp.server.socket.direct import EXTENSION
from crisp.server.socket.frames import text_frame, text_frames
from crisp.server.socket.websocket import websocket_protocol
from tests.support.inthread import serving

# Every length class of RFC 6455 §5.2 (7 bits, 16 bits, 64 bits) at its edges, and UTF-8.
TEXTS = ["", "a" * 125, "b" * 126, "c" * 65535, "d" * 65536, "クリスプ 🃏 Zoë"]


def parse(data: bytes) -> list[Frame]:
    """The frames in ``data``, parsed by websockets as a client reads a server's."""
    reader = StreamReader()
    reader.feed_data(data)
    frames = []
    while reader.buffer:
        parser = Frame.parse(reader.read_exact, mask=False)
        with pytest.raises(StopIteration) as done:
            while True:
                next(parser)  # all the data is there: it never waits
        frames.append(done.value.value)
    return frames


def test_text_frames_of_every_length_parse_back_to_their_texts() -> None:
    frames = parse(text_frames(TEXTS))
    assert [(f.opcode, f.fin) for f in frames] == [(Opcode.TEXT, True)] * len(TEXTS)
    assert [bytes(f.data).decode() for f in frames] == TEXTS
    assert parse(text_frame("hé".encode()))[0].data == "hé".encode()


class FakeSocket:
    """A guarded protocol's direct path: its writes kept, its buffer full until ``drain``, the
    code of its close."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed_with: int | None = None
        self.writable = asyncio.Event()
        self.writable.set()
        self.open = True

    def can_write(self) -> bool:
        return self.writable.is_set()

    async def drained(self) -> None:
        await self.writable.wait()

    def write_frames(self, data: bytes) -> bool:
        if self.open:
            self.writes.append(data)
        return self.open

    def send_close(self, code: int) -> None:
        if self.open:
            self.closed_with = code


class FakeWs:
    """What the connection uses of Starlette's WebSocket; ``sent``: texts given to ``send``."""

    def __init__(self, socket: FakeSocket | None) -> None:
        extensions = {EXTENSION: {"socket": socket}} if socket else {}
        self.scope: dict[str, Any] = {"type": "websocket", "extensions": extensions}
        self.sent: list[str] = []
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        self.closed_with = code


def writer_of(ws: FakeWs, arrays: bool) -> Connection:
    conn = Connection(ws, queue_max=100, rate=100, burst=100)  # type: ignore[arg-type]
    conn.arrays = arrays
    return conn


def test_a_writer_offered_the_direct_path_writes_what_is_queued_in_one_write() -> None:
    async def main() -> None:
        for arrays in (False, True):
            socket = FakeSocket()
            ws = FakeWs(socket)
            conn = writer_of(ws, arrays)
            for text in ('{"n":1}', '{"n":2}', '{"n":3}'):
                conn.send(text)
            conn.start()
            assert conn.writer is None  # no task of its own: a callback at the end of the turn
            conn.close(1000)
            await conn.finish()
            # written and closed through the direct path, not the ASGI socket
            assert len(socket.writes) == 1 and socket.closed_with == 1000
            assert ws.sent == [] and ws.closed_with is None
            payloads = [bytes(f.data).decode() for f in parse(socket.writes[0])]
            want = ['[{"n":1},{"n":2},{"n":3}]'] if arrays else ['{"n":1}', '{"n":2}', '{"n":3}']
            assert payloads == want

    asyncio.run(main())


def test_a_full_transport_holds_the_writer_until_it_drains_and_loses_nothing() -> None:
    async def main() -> None:
        socket = FakeSocket()
        socket.writable.clear()
        conn = writer_of(FakeWs(socket), arrays=True)
        conn.start()
        conn.send('{"n":1}')
        await asyncio.sleep(0)  # the loop turns: the writer waits for the drain
        conn.send('{"n":2}')
        for _ in range(3):
            await asyncio.sleep(0)
        assert socket.writes == [] and conn.writer is not None  # a task waits for the drain
        socket.writable.set()
        for _ in range(3):
            await asyncio.sleep(0)
        texts = [json.loads(bytes(f.data)) for data in socket.writes for f in parse(data)]
        assert texts in ([{"n": 1}, {"n": 2}], [[{"n": 1}, {"n": 2}]], [{"n": 1}, [{"n": 2}]])
        await conn.stop()

    asyncio.run(main())


def test_a_socket_that_is_closing_closes_the_connection_and_takes_nothing_more() -> None:
    async def main() -> None:
        socket = FakeSocket()
        socket.open = False
        ws = FakeWs(socket)
        conn = writer_of(ws, arrays=False)
        conn.start()
        conn.send('{"n":1}')
        await asyncio.sleep(0)
        assert conn.closed and socket.writes == []
        conn.send('{"n":2}')  # nothing more is queued; the reader sees the socket go
        assert conn.queue == [] and ws.closed_with is None and socket.closed_with is None

    asyncio.run(main())


def test_without_the_direct_path_the_writer_sends_through_asgi() -> None:
    async def main() -> None:
        for arrays, want in ((False, ['{"n":1}', '{"n":2}']), (True, ['[{"n":1},{"n":2}]'])):
            ws = FakeWs(None)
            conn = writer_of(ws, arrays)
            conn.send('{"n":1}')
            conn.send('{"n":2}')
            conn.start()
            assert conn.writer is not None  # the ASGI path's writer task
            conn.close(1000)
            await conn.finish()
            assert ws.sent == want and ws.closed_with == 1000

    asyncio.run(main())


def test_a_real_client_reads_the_frames_of_our_websocket_protocol(tmp_path: Path) -> None:
    offered: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        offered.append(EXTENSION in scope.get("extensions", {}))
        conn = Connection(ws, queue_max=100, rate=100, burst=100)
        for text in TEXTS:
            conn.send(text)
        conn.start()
        conn.close(1000)
        await conn.finish()

    async def read() -> tuple[list[str], int | None]:
        got: list[str] = []
        async with connect(f"ws://127.0.0.1:{port}/", max_size=None) as client:
            with pytest.raises(ConnectionClosedOK):
                while True:
                    got.append(str(await client.recv()))
        return got, client.close_code

    ws_class = websocket_protocol(Settings(data_dir=tmp_path))
    with serving(app, ws=ws_class, lifespan="off") as port:
        got, code = asyncio.run(read())
    assert offered == [True]
    assert got == TEXTS and code == 1000
