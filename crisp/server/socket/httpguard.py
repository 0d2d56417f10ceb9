"""uvicorn's HTTP protocol with a deadline on request headers (docs/limits.md).

uvicorn has a keep-alive timeout (after a response) and ``limit_concurrency`` (a 503 once the
headers are in), but nothing bounds a connection that never finishes its headers: each one holds
a file descriptor forever, and ~1,000 of them make ``accept`` fail. ``guarded_http`` adds:

- a header deadline: a request's headers must be complete ``http_header_timeout_s`` after its
  connection opened (or, on a kept-alive connection, after its first byte); else ``408`` and close;
- a cap on connections still sending headers (``http_pending_max``, kept below the file limit):
  one more closes the oldest of them, so a slow-header flood evicts itself and a real client, whose
  headers come in one packet, gets through.

It is an asyncio protocol of its own, handed to uvicorn as its ``http=`` class, that wraps
uvicorn's httptools protocol (built with the same arguments uvicorn gives any ``http=`` class)
and forwards it every call. It watches the bytes with a parser of its own (httptools'
``HttpRequestParser``: message begin, headers complete) to know when headers are pending; the
inner protocol serves the requests, hands upgrades to the ``ws=`` class, and registers itself for
the graceful shutdown. The cost is a second parse of each HTTP request's bytes; a WebSocket's
frames never pass here (after the upgrade the transport belongs to the WebSocket protocol)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar, cast

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from crisp.server.settings import Settings
from crisp.server.socket.files import pending_limit
from crisp.server.socket.pending import PendingHeaders

_TIMEOUT_BODY = b'{"error": "the request headers took too long", "code": "timeout"}'
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_TIMEOUT_BODY), _TIMEOUT_BODY)
)


class GuardedHttp(asyncio.Protocol):
    headers_pending: ClassVar[PendingHeaders]

    def __init__(self, **uvicorn_args: Any) -> None:
        self.inner = HttpToolsProtocol(**uvicorn_args)
        self.parser: httptools.HttpRequestParser | None = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None

    # -- the transport's calls, forwarded --------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not its subclasses
        self.inner.connection_made(self.transport)
        self.await_headers()

    def data_received(self, data: bytes) -> None:
        parser = self.parser
        if parser is not None:
            try:
                parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                self.stop_watching()  # the headers are in; the WebSocket takes the transport
            except httptools.HttpParserError:
                self.stop_watching()  # the inner protocol answers 400 and closes
        self.inner.data_received(data)

    def eof_received(self) -> None:
        self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_watching()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    # -- httptools' callbacks (the parser's own, on this object) ---------------------------------

    def on_message_begin(self) -> None:
        self.await_headers()

    def on_headers_complete(self) -> None:
        self.headers_done()

    # -- the deadline ----------------------------------------------------------------------------

    def await_headers(self) -> None:
        if self.timer is None and self.transport is not None:
            pending = self.headers_pending
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(pending.timeout, self.header_deadline_passed)
            pending.add(self)

    def headers_done(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.headers_pending.remove(self)

    def stop_watching(self) -> None:
        self.headers_done()
        self.parser = None

    def header_deadline_passed(self, evicted: bool = False) -> None:
        self.headers_done()
        if not evicted:
            self.headers_pending.timed_out += 1
        transport = self.transport
        if transport is not None and not transport.is_closing():
            with contextlib.suppress(Exception):
                transport.write(REQUEST_TIMEOUT)
            transport.close()


def guarded_http(settings: Settings) -> type[GuardedHttp]:
    """The ``http=`` class of one server: its own table of pending headers (no module global)."""
    pending = PendingHeaders(pending_limit(settings), settings.http_header_timeout_s)
    return type("GuardedHttp", (GuardedHttp,), {"headers_pending": pending})
