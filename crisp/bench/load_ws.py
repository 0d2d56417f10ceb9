"""A lean WebSocket client for ``crisp bench load``: it speaks the frames itself (RFC 6455).

One ``asyncio.Protocol`` per socket, no task per socket and no per-message futures: the HTTP/1.1
Upgrade handshake (with a ``Sec-WebSocket-Key``, the answer's ``Sec-WebSocket-Accept`` checked),
client frames masked with a random key, server frames unmasked, no extensions (the server turns
per-message-deflate off). Pings are answered; a close frame is answered and the socket closed.
Each text (or binary) message is handed, as bytes, to ``on_text(conn, payload)``.

Measured on this project: a client built on the ``websockets`` library saturates its core before
a one-core uvicorn server does; this one does not.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import struct
from collections.abc import Callable
from typing import Any

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_H2 = struct.Struct("!H")
_Q8 = struct.Struct("!Q")


def mask(payload: bytes, key: bytes) -> bytes:
    """XOR ``payload`` with the 4-byte ``key`` repeated (one big-integer XOR: fast in Python)."""
    n = len(payload)
    if not n:
        return payload
    keys = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(keys, "little")).to_bytes(
        n, "little"
    )


def frame(opcode: int, payload: bytes) -> bytes:
    """A client frame: FIN, ``opcode``, masked ``payload``."""
    n = len(payload)
    key = os.urandom(4)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + _H2.pack(n)
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + _Q8.pack(n)
    return head + key + mask(payload, key)


class WsConn(asyncio.Protocol):
    """One client WebSocket. ``opened`` resolves when the handshake is done."""

    def __init__(
        self,
        host: str,
        port: int,
        path: str,
        on_text: Callable[[WsConn, bytes], None],
        owner: Any = None,
    ) -> None:
        self.request_key = base64.b64encode(os.urandom(16))
        self.expect = base64.b64encode(hashlib.sha1(self.request_key + GUID).digest())
        self.host, self.port, self.path = host, port, path
        self.on_text = on_text
        self.owner = owner  # the caller's object for this socket (a player)
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.upgraded = False
        self.closed = False
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- asyncio.Protocol -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {self.request_key.decode()}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed during the handshake: {exc}"))

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end]).decode("latin-1").split("\r\n")
            del buf[: end + 4]
            if " 101 " not in head[0] + " ":
                self._fail(f"handshake refused: {head[0]}")
                return
            pairs = (h.partition(":") for h in head[1:])
            headers = {k.strip().lower(): v.strip() for k, _, v in pairs}
            if headers.get("sec-websocket-accept", "").encode() != self.expect:
                self._fail("bad Sec-WebSocket-Accept")
                return
            self.upgraded = True
            if not self.opened.done():
                self.opened.set_result(None)
        self._frames()

    # -- frames -----------------------------------------------------------------------------

    def _frames(self) -> None:
        buf = self.buf
        pos, size = 0, len(buf)
        on_text = self.on_text
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            n = b1 & 0x7F
            at = pos + 2
            if n == 126:
                if size - at < 2:
                    break
                n = _H2.unpack_from(buf, at)[0]
                at += 2
            elif n == 127:
                if size - at < 8:
                    break
                n = _Q8.unpack_from(buf, at)[0]
                at += 8
            if b1 & 0x80:  # a server must not mask; tolerate it anyway
                at += 4
            if size - at < n:
                break
            payload = bytes(buf[at : at + n])
            pos = at + n
            opcode = b0 & 0x0F
            if opcode in (1, 2):  # text, or binary (the Colyseus relay's frames)
                on_text(self, payload)
            elif opcode == 9:
                self._write(frame(10, payload))
            elif opcode == 8:
                if not self.closed:
                    self._write(frame(8, payload[:2]))
                self.closed = True
                if self.transport is not None:
                    self.transport.close()
                break
        if pos:
            del buf[:pos]

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _fail(self, why: str) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(why))
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    # -- the caller's side ------------------------------------------------------------------

    def send_text(self, payload: bytes) -> None:
        if not self.closed:
            self._write(frame(1, payload))

    def send_binary(self, payload: bytes) -> None:
        if not self.closed:
            self._write(frame(2, payload))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()
        self.closed = True


async def connect(
    host: str,
    port: int,
    path: str,
    on_text: Callable[[WsConn, bytes], None],
    owner: Any = None,
    timeout: float = 30.0,
) -> WsConn:
    loop = asyncio.get_running_loop()
    _, conn = await asyncio.wait_for(
        loop.create_connection(lambda: WsConn(host, port, path, on_text, owner), host, port),
        timeout,
    )
    await asyncio.wait_for(conn.opened, timeout)
    return conn
