"""uvicorn's HTTP and WebSocket protocols with the limits uvicorn lacks (docs/limits.md).

uvicorn 0.54 has a keep-alive timeout (after a response) and ``limit_concurrency`` (a 503 once
the headers are in), but nothing bounds a connection that never finishes its headers: each one
holds a file descriptor forever, and ~1,000 of them make ``accept`` fail. ``guarded_http`` adds:

- a header deadline: a request's headers must be complete ``http_header_timeout_s`` after its
  connection opened (or, on a kept-alive connection, after its first byte); else ``408`` and close;
- a cap on connections still sending headers (``http_pending_max``, kept below the file limit):
  one more closes the oldest of them, so a slow-header flood evicts itself and a real client, whose
  headers come in one packet, gets through.

uvicorn's WebSocket answers every ping at once, outside any budget. ``guarded_ws`` counts ping and
pong frames against a per-connection bucket (``ws_control_per_s``, ``ws_control_burst``): a ping
over it gets no pong, and ``ws_control_flood`` frames over it close the socket with 1008. It also
parses a read in slices of ``READ_SLICE`` bytes and drops the rest once the socket is closing.
And it offers the app a direct path both ways (``directsend.py``): its text frames framed by the
writer, in one ``transport.write``, instead of one ASGI ``send`` per message; and the text
messages it receives handed to the app's receiver as they are parsed, instead of queued as ASGI
events for the app's task to await one by one (with the reads paused until it has); and once the
app has its receiver, the app's call may return with the socket left open (``detach``): a socket
lives as long as its phone, and so did every suspended frame of that call. Its
keepalive pings go only to a socket that has sent nothing for ``ws_ping_after_s``: the traffic
of a phone in a game (its probes' answers) proves it alive, at no cost (uvicorn pinged every
socket every 20 s: 400 pings and pongs a second at 1,000 rooms of 8).

Each factory makes a new class per server (its state lives there, not in a module global).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import Protocol as FrameProtocol

from crisp.server.http.directsend import EXTENSION, Binary, Ending, Receiver
from crisp.server.http.lightsync import Flag, ReceiveQueue, Routed
from crisp.server.limits.bucket import TokenBucket
from crisp.server.settings import Settings

log = logging.getLogger("crisp.server")
MIN_AGE_S = 1.0  # a connection waiting for its headers this long may be evicted
FD_MARGIN = 64  # file descriptors kept for the database, logs and listening sockets
_TIMEOUT_BODY = b'{"error": "the request headers took too long", "code": "timeout"}'
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_TIMEOUT_BODY), _TIMEOUT_BODY)
)
READ_SLICE = 8192  # bytes of a read parsed before the next slice (a message is at most 4 KB)
PONG_FIRST_BYTE = 0x8A  # FIN + opcode 0xA, unmasked: one pong frame the server is about to send


def file_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_file_limit() -> int:
    """Lift the process's soft limit on open files to its hard limit (at most 2**20): a socket
    is a file, and the usual soft limit of 1,024 would cap a server at about 120 rooms of 8.
    Returns the limit now in force (unchanged if the system refuses)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1 << 20 if hard == resource.RLIM_INFINITY else min(hard, 1 << 20)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return file_limit()


def concurrency_limit(settings: Settings, fds: int | None = None) -> int:
    """uvicorn's ``limit_concurrency``: the setting, at most the file limit less a margin."""
    fds = file_limit() if fds is None else fds
    return max(16, min(settings.http_concurrency_max, fds - FD_MARGIN))


def pending_limit(settings: Settings, fds: int | None = None) -> int:
    """Connections still sending headers at most: the setting, at most a quarter of the files
    (twice it, the hard cap of a burst, stays below half)."""
    fds = file_limit() if fds is None else fds
    return max(8, min(settings.http_pending_max, fds // 4))


class PendingHeaders:
    """The connections whose request headers are not complete, oldest first. Over ``cap``, the
    oldest are closed if they have waited ``min_age`` seconds at least (a burst of new
    connections, e.g. a restart's reconnections accepted before any is read, is not a flood);
    over twice the cap, whatever their age (the file descriptors must not run out)."""

    def __init__(
        self,
        cap: int,
        timeout: float,
        min_age: float = MIN_AGE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = cap
        self.timeout = timeout
        self.min_age = min_age
        self.clock = clock
        self.waiting: OrderedDict[int, tuple[float, Any]] = OrderedDict()
        self.timed_out = 0
        self.evicted = 0

    def add(self, proto: Any) -> None:
        now = self.clock()
        self.waiting[id(proto)] = (now, proto)
        while len(self.waiting) > self.cap:
            since, oldest = next(iter(self.waiting.values()))
            if now - since < self.min_age and len(self.waiting) <= 2 * self.cap:
                break  # a burst, up to twice the cap; beyond that, the oldest go whatever age
            self.waiting.popitem(last=False)
            self.evicted += 1
            oldest.header_deadline_passed(evicted=True)

    def remove(self, proto: Any) -> None:
        self.waiting.pop(id(proto), None)

    def __len__(self) -> int:
        return len(self.waiting)


def guarded_http(settings: Settings) -> type[HttpToolsProtocol]:
    pending = PendingHeaders(pending_limit(settings), settings.http_header_timeout_s)

    class GuardedHttp(HttpToolsProtocol):
        headers_pending = pending
        header_timer: asyncio.TimerHandle | None = None

        def _await_headers(self) -> None:
            if self.header_timer is None:
                self.header_timer = self.loop.call_later(
                    pending.timeout, self.header_deadline_passed
                )
                pending.add(self)

        def _headers_done(self) -> None:
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None
            pending.remove(self)

        def header_deadline_passed(self, evicted: bool = False) -> None:
            self._headers_done()
            if not evicted:
                pending.timed_out += 1
            if not self.transport.is_closing():
                with contextlib.suppress(Exception):
                    self.transport.write(REQUEST_TIMEOUT)
                self.transport.close()

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._await_headers()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._await_headers()

        def on_headers_complete(self) -> None:
            self._headers_done()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._headers_done()
            super().connection_lost(exc)

    return GuardedHttp


def guarded_ws(settings: Settings) -> type[WebSocketsSansIOProtocol]:
    rate, burst = settings.ws_control_per_s, settings.ws_control_burst
    flood = settings.ws_control_flood

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # 4 KB a socket less than the asyncio.Queue and Event they replace (lightsync.py)
            self.queue = ReceiveQueue(self.loop)  # type: ignore[assignment]
            self.writable = Flag(self.loop, is_set=True)  # type: ignore[assignment]
            self.control = TokenBucket(rate, burst, time.monotonic())
            self.control_refused = 0
            self.heard = self.loop.time()  # when the peer last sent anything (loop time)
            self.receiver: Receiver | None = None  # the app's direct path for text messages
            self.detached: tuple[Binary, Ending] | None = None  # the app's call has returned
            self.ended = False  # detached: the app's ending has been started

        def _spend(self) -> bool:
            if self.control.take(time.monotonic()):
                self.control_refused = 0
                return True
            self.control_refused += 1
            if self.control_refused == flood:
                log.info("closing a WebSocket that sent a flood of ping/pong frames")
                self.conn.send_close(1008, "too many control frames")
                self.handle_parser_exception()
            return False

        def data_received(self, data: bytes) -> None:
            # In slices: a read of 256 KB of pings is ~43,000 frames, parsed at once before any
            # is handled (~1 s of the loop); a slice is at most a few hundred, and once the flood
            # has closed the socket the rest is dropped unparsed.
            self.heard = self.loop.time()
            for i in range(0, len(data), READ_SLICE):
                if self.transport.is_closing():
                    return
                super().data_received(data[i : i + READ_SLICE])

        def send_receive_event_to_app(self) -> None:
            # uvicorn logs a traceback for a text message that is not UTF-8 (client input):
            # close with 1007 and one line instead.
            if self.curr_msg_data_type != "text" or self.close_sent:
                if self.detached is not None and not self.close_sent:
                    data, self.frames = b"".join(self.frames), []
                    self.detached[0](data)  # no ASGI event: its reads would stay paused
                    return
                super().send_receive_event_to_app()
                return
            try:
                text = b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                log.info("closing a WebSocket that sent a text message not in UTF-8")
                self.conn.send_close(1007, "text messages are UTF-8")
                self.handle_parser_exception()
                return
            receiver = self.receiver
            if receiver is None or not self.queue.empty():  # after what is queued, in order
                super().send_receive_event_to_app()
                return
            self.frames = []
            receiver(text)  # no queue, no wake-up of the app's task, no pause of the reads

        def deliver(self, receiver: Receiver | None) -> None:
            self.receiver = receiver

        def detach(self, binary: Binary, ending: Ending) -> bool:
            if self.receiver is None or self.detached is not None or self.close_sent:
                return False
            if self.disconnected or self.transport.is_closing():
                return False
            self.detached = (binary, ending)
            queued, self.queue = self.queue, Routed(self._route)  # type: ignore[assignment]
            while not queued.empty():  # what came before, in order (the app no longer reads)
                self._route(queued.get_nowait())
            if self.read_paused:
                self.read_paused = False
                self.transport.resume_reading()
            return True

        def _route(self, event: Any) -> None:
            """Detached: an event uvicorn would have queued for the app's ``receive``."""
            if event["type"] == "websocket.disconnect":
                self._end()
            elif event["type"] == "websocket.receive" and self.detached is not None:
                text = event.get("text")
                if text is None:
                    self.detached[0](event["bytes"])
                elif self.receiver is not None:
                    self.receiver(text)

        def _end(self) -> None:
            if self.detached is None or self.ended:
                return
            self.ended = True
            task = self.loop.create_task(self._ending(self.detached[1]))
            task.add_done_callback(self.on_task_complete)
            self.tasks.add(task)  # a graceful shutdown waits for it, as for an app's call

        async def _ending(self, ending: Ending) -> None:
            try:
                await ending()
            except Exception:
                log.exception("a detached WebSocket's ending failed")
            if self.close_timer is None:  # as uvicorn does when an app's call returns
                self.transport.close()

        async def run_asgi(self) -> None:
            # uvicorn's, but a detached socket stays open when the app's call returns
            try:
                result = await self.app(self.scope, self.receive, self.send)
            except ClientDisconnected:
                pass
            except BaseException:
                self.logger.exception("Exception in ASGI application\n")
                self.send_500_response()
            else:
                if not self.handshake_complete:
                    self.logger.error("ASGI callable returned without completing handshake.")
                    self.send_500_response()
                elif result is not None:
                    self.logger.error("ASGI callable should return None, but returned %r.", result)
            if self.detached is None and self.close_timer is None:
                self.transport.close()

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            if not self.close_sent:  # the app's writer may frame and write itself (directsend)
                self.scope["extensions"][EXTENSION] = {"socket": self}
                self._forget_request()

        def _forget_request(self) -> None:
            """websockets' parser is a generator that keeps the request it parsed (its headers:
            about 2 KB) in a local for the socket's life. Once it is parsed and nothing else
            is buffered, a fresh frame parser is the same state without it."""
            conn = self.conn
            if conn.reader.buffer or conn.parser_exc is not None:
                return
            conn.parser = FrameProtocol.parse(conn)
            next(conn.parser)

        async def send(self, message: Any) -> None:
            await super().send(message)
            if self.handshake_complete and self.response is not None:
                # The handshake's request and response (their headers) are not read again once
                # it is done: kept, they would cost about 2 KB a socket for its whole life.
                self.request = self.response = None  # type: ignore[assignment]

        def can_write(self) -> bool:
            return self.writable.is_set()

        async def drained(self) -> None:
            await self.writable.wait()

        def write_frames(self, data: bytes) -> bool:
            if self.close_sent or self.disconnected or self.transport.is_closing():
                return False
            self.transport.write(data)
            return True

        def send_keepalive_ping(self) -> None:
            # A peer that sent anything within the interval is alive (and its NAT and proxies
            # have seen traffic): no ping then, the next check an interval after what it sent.
            # A silent one is pinged as by uvicorn, closed if it does not answer in the timeout.
            quiet = self.loop.time() - self.heard
            interval = self.ping_interval or 0.0
            if quiet < interval and not self.close_sent:
                self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
                return
            super().send_keepalive_ping()

        def handle_ping(self) -> None:
            # The protocol queued one pong per ping received; send those within the budget.
            kept = []
            for chunk in self.conn.data_to_send():
                if chunk[:1] == bytes([PONG_FIRST_BYTE]) and not self._spend():
                    continue
                kept.append(chunk)
            if kept and not self.transport.is_closing():
                self.transport.write(b"".join(kept))

        def handle_pong(self, event: Any) -> None:
            if self._spend():
                super().handle_pong(event)

    return GuardedWebSocket
