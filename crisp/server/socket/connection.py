"""One WebSocket connection: its own send queue (a slow phone never stalls its room), its
identity (member and seat, from the token of its ``hello``), and its rate limit.

Everything queued in one turn of the event loop goes out in one write, at the end of that turn:
one frame of them all to a phone that asked for arrays, else a frame each. Where the server
offers the direct path (``direct.py``) the connection frames them itself and writes them to
the transport from a callback, with no task of its own: a task runs only while the transport is
full (until it drains) and to close. Elsewhere a writer task sends them through the ASGI
``send``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine

from starlette.websockets import WebSocket

from crisp.server.limits.bucket import TokenBucket
from crisp.server.socket.direct import EXTENSION, DirectSocket
from crisp.server.socket.flusher import Flusher
from crisp.server.socket.frames import text_frame, text_frames
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.frames import frame

log = logging.getLogger("crisp.server")


class Connection:
    # One per socket, alive as long as its phone: no per-instance dict.
    __slots__ = (
        "arrays",
        "bucket",
        "close_code",
        "closed",
        "direct",
        "flusher",
        "greeted",
        "loop",
        "member",
        "pending",
        "queue",
        "queue_max",
        "refused",
        "seat",
        "waiting",
        "wakeup",
        "writer",
        "ws",
    )

    def __init__(
        self,
        ws: WebSocket,
        *,
        queue_max: int,
        rate: float,
        burst: int,
        flusher: Flusher | None = None,
    ) -> None:
        self.ws: WebSocket | None = ws  # the ASGI side; dropped where the direct path serves
        # The send queue: a list taken whole (cheaper per message than an asyncio.Queue, and per
        # socket than a deque's 760 bytes); None, queued by close(), ends it.
        self.queue: list[str | None] = []
        self.queue_max = queue_max
        self.bucket = TokenBucket(rate, burst)
        self.refused = 0  # messages refused by the rate limit in a row
        self.member: int | None = None  # None: not said hello yet, or a watcher
        self.greeted = False
        self.arrays = False  # hello's frames "array": several messages per frame
        self.seat: int | None = None  # the seat in the current game, or None (spectator)
        self.closed = False
        self.close_code: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # set by start()
        self.direct: DirectSocket | None = None  # the server's direct path, if it offers one
        self.pending = False  # direct: a flush is due at the end of this turn
        self.flusher = flusher or Flusher()  # the server's: one callback a turn for all
        self.waiting = False  # direct: the transport is full, a task waits for it to drain
        self.wakeup: asyncio.Future[None] | None = None  # ASGI: the idle writer task waits on it
        self.writer: asyncio.Task[None] | None = None  # the ASGI writer, a drain or the close

    def start(self) -> None:
        self.loop = loop = asyncio.get_running_loop()
        assert self.ws is not None
        self.direct = self.ws.scope.get("extensions", {}).get(EXTENSION, {}).get("socket")
        if self.direct is None:
            self.writer = loop.create_task(self._write())
            return
        # Sends and closes go through the direct path: the ASGI socket, its scope and the
        # middlewares' copies of it are not kept for the socket's life (memory per socket).
        self.ws = None
        if self.queue:
            self._due()

    def send(self, text: str) -> None:
        """Queue one message; never waits. A phone that stops reading is cut off."""
        if self.closed:
            return
        queue = self.queue
        if len(queue) >= self.queue_max:
            log.info("closing a connection that stopped reading (%d queued)", len(queue))
            self.abort(CloseCode.TOO_SLOW)
            return
        if self.pending:  # the direct path's flush is due already: nothing more to do
            queue.append(text)
            return
        self._put(text)

    def _put(self, text: str | None) -> None:
        self.queue.append(text)
        if self.direct is not None:
            if not self.pending:
                self._due()
            return
        wakeup = self.wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    def _due(self) -> None:
        assert self.loop is not None
        self.pending = True
        self.flusher.add(self, self.loop)

    def close(self, code: int) -> None:
        """Send what is queued, then close with ``code``."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self._put(None)

    def abort(self, code: int) -> None:
        """Close now, dropping what is queued (the transport may be full)."""
        self.closed = True
        self.close_code = code
        self.queue = []
        if self.writer is not None:
            self.writer.cancel()
        if self.direct is not None:
            self.direct.send_close(code)
        else:
            asyncio.get_running_loop().create_task(self._close_now(code))

    async def _close_now(self, code: int) -> None:
        assert self.ws is not None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code), 5)

    def flush_due(self) -> None:
        """Direct: everything queued in one write (the turn that queued it is over), or a task
        that waits for a full transport to drain; a close queued by close() starts the close."""
        self.pending = False
        direct = self.direct
        if self.waiting or not self.queue or direct is None:
            return
        if not direct.can_write():
            self.waiting = True
            self.writer = self._task(self._drain(direct))
            return
        texts, end = self._take()
        try:
            if texts and not direct.write_frames(self._framed(texts)):
                raise ConnectionResetError("the socket is closing")
        except Exception:  # the peer went away; the reader notices too
            self.closed = True
            self.queue = []
            return
        if end:
            direct.send_close(self.close_code or 1000)

    def _take(self) -> tuple[list[str], bool]:
        """Everything queued, taken at once (what comes meanwhile waits for the next write), and
        whether close() ended it."""
        taken, self.queue = self.queue, []
        texts = [text for text in taken if text is not None]
        return texts, len(texts) < len(taken)

    def _framed(self, texts: list[str]) -> bytes:
        """The messages as one frame of them all to a phone that said hello with frames "array"
        (docs/protocol.md, Frames: a change's messages are queued in one turn), else a frame
        each."""
        return text_frame(frame(texts).encode()) if self.arrays else text_frames(texts)

    def _task(self, work: Coroutine[None, None, None]) -> asyncio.Task[None]:
        assert self.loop is not None
        return self.loop.create_task(work)

    async def _drain(self, direct: DirectSocket) -> None:
        await direct.drained()
        self.waiting = False
        self.flush_due()

    async def _close_ws(self) -> None:
        assert self.ws is not None
        with contextlib.suppress(Exception):
            await self.ws.close(self.close_code or 1000)

    async def _write(self) -> None:
        """ASGI: each time it runs, everything queued as one frame (arrays) or a frame each."""
        ws = self.ws
        assert ws is not None
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not self.queue:
                    self.wakeup = loop.create_future()
                    await self.wakeup
                    self.wakeup = None
                    continue
                texts, end = self._take()
                if texts and self.arrays:
                    await ws.send_text(frame(texts))
                else:
                    for text in texts:
                        await ws.send_text(text)
                if end:
                    break
        except Exception:  # the peer went away; the reader notices too
            self.closed = True
            return
        await self._close_ws()

    async def finish(self) -> None:
        """At the socket's end: once closed, until what close() queued (the last error and the
        close frame) is out."""
        if not self.closed:
            return
        if self.pending:
            self.flush_due()
        while (writer := self.writer) is not None and not writer.done():
            await asyncio.wait([writer])

    async def stop(self) -> None:
        self.closed = True
        self.queue = []
        if self.writer is not None and not self.writer.done():
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
