"""The WebSocket protocol of ``crisp serve``: RFC 6455 on websockets' sans-I/O ``ServerProtocol``
(``receive_data``, ``events_received``, ``data_to_send``, ``send_*``, ``accept``), as the asyncio
protocol uvicorn hands an upgraded connection to (its ``ws=`` setting: the class is built with
``config``, ``server_state`` and ``app_state``, then given the transport and the request's bytes).

The handshake goes through the ASGI app (routing, the origin check, a denial); once it is
accepted the socket offers the app the direct path (``direct.py``): text messages handed to its
receiver as they are parsed, frames written by the app in batches, and a detached socket that
outlives the app's call. What the protocol adds to RFC 6455:

- ping and pong frames within a per-socket budget (``ws_control_per_s``, ``ws_control_burst``):
  a read whose pings go over it gets no pongs, and ``ws_control_flood`` control frames over it
  close the socket with 1008;
- a text message not in UTF-8 closes the socket with 1007, one line in the log;
- a read is parsed in slices of ``READ_SLICE`` bytes, and the rest dropped once the socket is
  closing (a read of 256 KB of pings is ~43,000 frames);
- keepalive pings only on a quiet socket, by one sweep of the server's sockets (``keepalive.py``);
- the handshake's request and headers are not kept: the frames are parsed by a fresh
  ``ServerProtocol`` started in the OPEN state (about 2 KB a socket, for the socket's life);
- registered in uvicorn's ``server_state``: its ``shutdown()`` closes the socket with 1012, and
  a detached socket's ending runs in a task of ``server_state.tasks``, which a graceful shutdown
  waits for."""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from typing import Any, ClassVar, cast

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from crisp.server.limits.bucket import TokenBucket
from crisp.server.settings import Settings
from crisp.server.socket.direct import EXTENSION, Binary, Ending, Receiver
from crisp.server.socket.events import Event, Events
from crisp.server.socket.handshake import Denial, accepted_headers, websocket_scope
from crisp.server.socket.keepalive import Keepalive

log = logging.getLogger("crisp.server")
READ_SLICE = 8192  # bytes of a read parsed before the next slice (a message is at most 4 KB)
ABNORMAL = 1006  # the connection was lost without a close frame
SERVICE_RESTART = 1012
# The enum members the frame loop compares with, read once: on Python 3.11 a member's lookup on
# its class costs about 150 ns (a descriptor call), and every frame makes several.
OP_TEXT, OP_BINARY, OP_CONT = Opcode.TEXT, Opcode.BINARY, Opcode.CONT
OP_PING, OP_PONG, OP_CLOSE = Opcode.PING, Opcode.PONG, Opcode.CLOSE
OPEN = State.OPEN


class SocketGone(OSError):
    """An ASGI ``send`` on a socket that is closed (ASGI 2.4: an ``OSError``)."""


class SocketLimits:
    """The settings a socket reads, once per server."""

    __slots__ = (
        "close_timeout",
        "control_burst",
        "control_flood",
        "control_rate",
        "max_size",
    )

    def __init__(self, settings: Settings) -> None:
        self.max_size = settings.max_message_bytes
        self.control_rate = settings.ws_control_per_s
        self.control_burst = settings.ws_control_burst
        self.control_flood = settings.ws_control_flood
        self.close_timeout = settings.ws_close_timeout_s


class WebSocketProtocol(asyncio.Protocol):
    limits: ClassVar[SocketLimits]
    keepalive: ClassVar[Keepalive]  # the server's sweep

    __slots__ = (
        "app",
        "app_state",
        "close_timer",
        "closing",
        "control",
        "control_refused",
        "denial",
        "detached",
        "drain_waiters",
        "early",
        "ended",
        "events",
        "fragment_text",
        "fragments",
        "gone",
        "heard",
        "loop",
        "opened",
        "paused",
        "ping_payload",
        "pong_due",
        "proto",
        "reading_paused",
        "receiver",
        "request",
        "response",
        "root_path",
        "scope",
        "server_state",
        "transport",
    )

    def __init__(
        self, config: Config, server_state: ServerState, app_state: dict[str, Any]
    ) -> None:
        self.app = config.loaded_app
        self.root_path = config.root_path
        self.server_state = server_state
        self.app_state = app_state
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.proto = ServerProtocol(max_size=self.limits.max_size)
        self.request: Request | None = None  # until the app answers the handshake
        self.response: Response | None = None  # the 101 waiting for the app's accept
        self.scope: dict[str, Any] | None = None
        self.opened = False  # the handshake is accepted: frames flow
        self.gone = False  # the connection is lost
        self.early: list[bytes] | None = None  # bytes that came before the accept
        self.denial: Denial | None = None
        self.events = Events()  # for the app's ASGI receive, until it detaches
        self.reading_paused = False
        self.receiver: Receiver | None = None
        self.detached: tuple[Binary, Ending] | None = None
        self.ended = False  # the disconnect has been told (event or ending)
        self.fragments: list[bytes] | None = None  # a fragmented message's parts so far
        self.fragment_text = False
        self.control: TokenBucket | None = None  # made at the first ping or pong
        self.control_refused = 0
        self.heard = 0.0  # when the peer last sent anything (loop time): the keepalive's
        self.ping_payload: bytes | None = None  # the keepalive's ping waiting for its pong
        self.pong_due = 0.0
        self.close_timer: asyncio.TimerHandle | None = None
        self.closing = False  # the server has sent its close frame (or failed the socket)
        self.paused = False  # the transport's buffer is full
        self.drain_waiters: list[asyncio.Future[None]] | None = None

    # -- asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not its subclasses
        self.server_state.connections.add(self)  # type: ignore[arg-type]

    def data_received(self, data: bytes) -> None:
        if not self.opened:
            self.before_open(data)
            return
        self.heard = self.loop.time()
        transport = self.transport
        assert transport is not None
        for i in range(0, len(data), READ_SLICE):
            if transport.is_closing():
                return
            self.read(data[i : i + READ_SLICE])

    def eof_received(self) -> bool | None:
        if self.opened:
            self.proto.receive_eof()
            self.flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self.server_state.connections.discard(self)
        self.keepalive.remove(self)
        if self.close_timer is not None:
            self.close_timer.cancel()
            self.close_timer = None
        self.resume_writing()  # a lost transport never resumes: wake who waits
        self.disconnected(ABNORMAL)  # after a close frame, its code was told already

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        waiters, self.drain_waiters = self.drain_waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def shutdown(self) -> None:
        """uvicorn's graceful shutdown: close with 1012 (reconnect); the app hears the end."""
        transport = self.transport
        if transport is None:
            return
        if self.opened:
            if self.proto.state is OPEN:
                self.closing = True
                self.proto.send_close(SERVICE_RESTART)
                self.flush()
            self.disconnected(SERVICE_RESTART)
        elif self.request is not None:
            self.deny(self.proto.reject(HTTPStatus.SERVICE_UNAVAILABLE, "shutting down\n"))
        transport.close()

    # -- the handshake ---------------------------------------------------------------------------

    def before_open(self, data: bytes) -> None:
        if self.scope is not None:
            # Frames before the accept (RFC 6455 §4.1 says a client waits for it): parsed once it
            # is given, up to twice the largest message; more closes the connection.
            early = self.early = self.early or []
            early.append(data)
            if sum(map(len, early)) > 2 * self.limits.max_size and self.transport is not None:
                self.transport.close()
            return
        proto = self.proto
        proto.receive_data(data)
        for event in proto.events_received():
            if isinstance(event, Request):
                self.connect(event)
                return
        self.flush()  # an unreadable request: websockets' answer, then the close

    def connect(self, request: Request) -> None:
        response = self.proto.accept(request)
        if response.status_code != HTTPStatus.SWITCHING_PROTOCOLS:
            self.deny(response)
            return
        assert self.transport is not None
        self.request, self.response = request, response
        self.scope = websocket_scope(
            request,
            self.transport,
            self.root_path,
            self.app_state,
            {EXTENSION: {"socket": self}},
        )
        self.events.put({"type": "websocket.connect"})
        task = self.loop.create_task(self.run_app(self.scope))
        self.server_state.tasks.add(task)
        task.add_done_callback(self.server_state.tasks.discard)

    def accept(self, message: Event) -> None:
        response = self.response
        assert response is not None and self.transport is not None
        accepted_headers(response, message)
        self.proto.send_response(response)
        self.flush()
        # The frames on a fresh protocol: the handshake's one keeps the request it parsed.
        self.proto = ServerProtocol(state=State.OPEN, max_size=self.limits.max_size)
        self.request = self.response = None
        self.opened = True
        self.keepalive.add(self, self.loop)
        early, self.early = self.early, None
        for data in early or ():
            self.data_received(data)

    def deny(self, response: Response) -> None:
        """Answer the handshake with ``response`` (not a 101) and close."""
        self.request = self.response = None
        self.proto.send_response(response)
        self.flush()
        if self.transport is not None:
            self.transport.close()

    # -- frames in -------------------------------------------------------------------------------

    def read(self, data: bytes) -> None:
        proto = self.proto
        proto.receive_data(data)
        control = 0
        frame: Any
        for frame in proto.events_received():  # frames only: the handshake is over
            opcode = frame.opcode
            if opcode is OP_TEXT or opcode is OP_BINARY or opcode is OP_CONT:
                self.message_part(frame)
            elif opcode is OP_PING:
                control += 1
            elif opcode is OP_PONG:
                control += 1
                Keepalive.pong(self, bytes(frame.data))
            elif opcode is OP_CLOSE:
                self.disconnected(Close.parse(frame.data).code)
        within = self.spend(control) if control else True
        out = proto.data_to_send()
        if not within and proto.state is OPEN:
            out = []  # an open socket's writes after a read are its pongs: none over the budget
        if out:
            self.write(out)

    def spend(self, frames: int) -> bool:
        """Whether ``frames`` ping and pong frames are within the budget; a flood over it fails
        the socket with 1008."""
        limits = self.limits
        now = self.loop.time()
        bucket = self.control
        if bucket is None:
            bucket = self.control = TokenBucket(limits.control_rate, limits.control_burst, now)
        within = True
        for _ in range(frames):
            if bucket.take(now):
                self.control_refused = 0
                continue
            within = False
            self.control_refused += 1
            if self.control_refused == limits.control_flood:
                log.info("closing a WebSocket that sent a flood of ping/pong frames")
                self.closing = True
                self.proto.fail(1008, "too many control frames")
                break
        return within

    def message_part(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is OP_CONT:
            assert self.fragments is not None  # websockets refuses a continuation of nothing
            self.fragments.append(bytes(frame.data))
            if not frame.fin:
                return
            data: bytes | bytearray | memoryview = b"".join(self.fragments)
            self.fragments = None
            is_text = self.fragment_text
        elif not frame.fin:
            self.fragments = [bytes(frame.data)]
            self.fragment_text = opcode is OP_TEXT
            return
        else:
            data, is_text = frame.data, opcode is OP_TEXT
        if self.closing or self.ended:
            return  # after our close frame, or the peer's: what comes is dropped
        if not is_text:
            self.binary(bytes(data))
            return
        try:
            text = str(data, "utf-8")
        except UnicodeDecodeError:
            log.info("closing a WebSocket that sent a text message not in UTF-8")
            self.closing = True
            self.proto.fail(1007, "text messages are UTF-8")
            return
        receiver = self.receiver
        if receiver is not None and self.events.empty():
            receiver(text)  # no event, no wake-up of the app's task, no pause of the reads
        else:
            self.queue({"type": "websocket.receive", "text": text})

    def binary(self, data: bytes) -> None:
        if self.detached is not None:
            self.detached[0](data)
        else:
            self.queue({"type": "websocket.receive", "bytes": data})

    def queue(self, event: Event) -> None:
        """An event for the app's ``receive``; the reads wait until the app has taken it."""
        self.events.put(event)
        if not self.reading_paused and self.transport is not None:
            self.reading_paused = True
            self.transport.pause_reading()

    def disconnected(self, code: int) -> None:
        """The socket's end, told once: the detached app's ending, else an ASGI event."""
        if self.ended:
            return
        self.ended = True
        if self.detached is not None:
            task = self.loop.create_task(self.run_ending(self.detached[1]))
            self.server_state.tasks.add(task)
            task.add_done_callback(self.server_state.tasks.discard)
        elif self.scope is not None:
            self.events.put({"type": "websocket.disconnect", "code": code})

    # -- frames out ------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write what the protocol has to send."""
        out = self.proto.data_to_send()
        if out:
            self.write(out)

    def write(self, out: list[bytes]) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        data = b"".join(out)
        if data:
            transport.write(data)
        if out[-1] == b"":  # websockets' end of stream: the server closes the connection
            transport.close()
        elif self.close_timer is None and self.proto.close_expected():
            self.close_timer = self.loop.call_later(self.limits.close_timeout, transport.close)

    def ping(self, payload: bytes) -> None:
        if self.proto.state is OPEN:
            self.proto.send_ping(payload)
            self.flush()

    def ping_expired(self) -> None:
        if self.proto.state is OPEN:
            self.closing = True
            self.proto.fail(1011, "keepalive ping timeout")
            self.flush()

    # -- the direct path (direct.DirectSocket) ---------------------------------------------------

    def can_write(self) -> bool:
        return not self.paused

    async def drained(self) -> None:
        while self.paused and not self.gone:
            waiter = self.loop.create_future()
            if self.drain_waiters is None:
                self.drain_waiters = []
            self.drain_waiters.append(waiter)
            await waiter

    def write_frames(self, data: bytes) -> bool:
        transport = self.transport
        if self.proto.state is not OPEN or transport is None or transport.is_closing():
            return False
        transport.write(data)
        return True

    def send_close(self, code: int) -> None:
        if self.proto.state is OPEN and not self.gone:
            self.closing = True
            self.proto.send_close(code)
            self.flush()

    def deliver(self, receiver: Receiver | None) -> None:
        self.receiver = receiver

    def detach(self, binary: Binary, ending: Ending) -> bool:
        transport = self.transport
        if self.receiver is None or self.detached is not None or not self.opened:
            return False
        if self.ended or self.proto.state is not OPEN:
            return False
        if transport is None or transport.is_closing():
            return False
        self.detached = (binary, ending)
        for event in self.events.take_all():  # what came before, in order
            self.route(event)
        if self.reading_paused:
            self.reading_paused = False
            transport.resume_reading()
        return True

    def route(self, event: Event) -> None:
        """Detached: a message queued before, handed to the app's handlers (a queued disconnect
        cannot be there: ``detach`` refuses a socket that has ended)."""
        if event["type"] == "websocket.receive":
            text = event.get("text")
            if text is None:
                self.binary(event["bytes"])
            elif self.receiver is not None:
                self.receiver(text)

    async def run_ending(self, ending: Ending) -> None:
        try:
            await ending()
        except Exception:
            log.exception("a detached WebSocket's ending failed")
        if self.close_timer is None and self.transport is not None:
            self.transport.close()  # as after an app's call; else the peer's close is awaited

    # -- ASGI ------------------------------------------------------------------------------------

    async def run_app(self, scope: dict[str, Any]) -> None:
        try:
            await self.app(scope, self.receive, self.send)
        except SocketGone:
            pass
        except Exception:
            log.exception("Exception in ASGI application")
            if self.request is not None:
                self.deny(self.proto.reject(HTTPStatus.INTERNAL_SERVER_ERROR, "server error\n"))
        else:
            if self.request is not None:
                log.error("the ASGI app returned without answering the WebSocket handshake")
                self.deny(self.proto.reject(HTTPStatus.INTERNAL_SERVER_ERROR, "server error\n"))
        finally:
            self.scope = None
        if self.detached is None:
            self.close_after_app()

    def close_after_app(self) -> None:
        """The app's call is over and the socket not detached: close it (1000 if still open)."""
        if self.proto.state is OPEN and self.opened:
            self.closing = True
            self.proto.send_close(1000)
            self.flush()
        elif self.close_timer is None and self.transport is not None:
            self.transport.close()

    async def receive(self) -> Event:
        if self.detached is not None:
            raise RuntimeError("a detached WebSocket has no ASGI receive")
        event = await self.events.get()
        if self.reading_paused and self.events.empty() and self.transport is not None:
            self.reading_paused = False
            self.transport.resume_reading()
        return event

    async def send(self, message: Event) -> None:
        kind = message["type"]
        if not self.opened:
            self.answer_handshake(kind, message)
            return
        proto = self.proto
        if kind == "websocket.send":
            if proto.state is not OPEN or self.gone:
                raise SocketGone("the WebSocket is closed")
            text = message.get("text")
            if text is not None:
                proto.send_text(text.encode())
            else:
                proto.send_binary(message["bytes"])
            self.flush()
            if self.paused:
                await self.drained()
        elif kind == "websocket.close":
            if proto.state is OPEN and not self.gone:
                self.closing = True
                proto.send_close(message.get("code") or 1000, message.get("reason") or "")
                self.flush()
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r} on an open WebSocket")

    def answer_handshake(self, kind: str, message: Event) -> None:
        if self.request is None:
            raise SocketGone("the WebSocket handshake is over")
        if kind == "websocket.accept":
            self.accept(message)
        elif kind == "websocket.close":
            self.deny(self.proto.reject(HTTPStatus.FORBIDDEN, ""))
        elif kind == "websocket.http.response.start":
            self.denial = Denial(message)
        elif kind == "websocket.http.response.body" and self.denial is not None:
            self.denial.body.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                denial, self.denial = self.denial, None
                self.deny(denial.response())
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r} during the WebSocket handshake")


def websocket_protocol(settings: Settings) -> type[WebSocketProtocol]:
    """The ``ws=`` class of one server: its limits read once from ``settings``."""
    keepalive = Keepalive(settings.ws_ping_after_s, settings.ws_ping_timeout_s)
    return type(
        "CrispWebSocket",
        (WebSocketProtocol,),
        {"limits": SocketLimits(settings), "keepalive": keepalive, "__slots__": ()},
    )
