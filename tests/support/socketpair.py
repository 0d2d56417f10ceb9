"""The server's WebSocket protocol driven by hand, in the test's event loop: a fake transport on
one side, websockets' sans-I/O client protocol on the other (what a phone's browser does), no
network. Each call moves bytes one way and lets the app's task run."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.frames import Frame
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from crisp.server.settings import Settings
from crisp.server.socket.websocket import WebSocketProtocol, websocket_protocol


class FakeTransport:
    """What the protocol asks of an asyncio transport, recorded."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closed = False
        self.paused = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "a write after the close"
        self.written += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def take(self) -> bytes:
        data, self.written = bytes(self.written), bytearray()
        return data


class SocketPair:
    """A client and the server's protocol for ``app``, connected by hand."""

    def __init__(self, app: Any, settings: Settings, path: str = "/") -> None:
        config = Config(app, lifespan="off")
        config.load()
        self.state = ServerState()
        cls = websocket_protocol(settings)
        self.server: WebSocketProtocol = cls(config=config, server_state=self.state, app_state={})
        self.transport = FakeTransport()
        self.client = ClientProtocol(parse_uri(f"ws://127.0.0.1:8000{path}"))
        self.request = self.client.connect()
        self.response: Response | None = None
        self.frames: list[Frame] = []

    async def open(self) -> Response:
        """The handshake: uvicorn's hand-over (the transport, then the request's bytes), then
        the app's answer. The server's response."""
        self.client.send_request(self.request)
        self.server.connection_made(self.transport)  # type: ignore[arg-type]
        self.server.data_received(b"".join(self.client.data_to_send()))
        await self.settle()
        self.pump()
        assert self.response is not None, "the server did not answer the handshake"
        return self.response

    async def settle(self, ticks: int = 10) -> None:
        for _ in range(ticks):
            await asyncio.sleep(0)

    def pump(self) -> list[Frame]:
        """What the server wrote, read by the client: the frames it got (also kept in
        ``frames``)."""
        data = self.transport.take()
        if data:
            self.client.receive_data(data)
        got: list[Frame] = []
        for event in self.client.events_received():
            if isinstance(event, Response):
                self.response = event
            else:
                got.append(event)
        self.frames += got
        self.client.data_to_send()  # the client's answers (pongs) are not sent back
        return got

    def send(self, data: bytes) -> None:
        """Raw bytes from the client (frames the client built)."""
        self.server.data_received(data)

    def client_sends(self) -> bytes:
        return b"".join(self.client.data_to_send())

    def text(self, text: str) -> None:
        self.client.send_text(text.encode())
        self.send(self.client_sends())

    @property
    def open_state(self) -> bool:
        return self.client.state is State.OPEN
