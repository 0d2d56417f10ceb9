"""One WebSocket connection: its own send queue and writer task (a slow phone never stalls its
room; each time it runs, the writer sends everything queued in one write: one frame of them all to
a phone that asked for arrays, else a frame each, framed by the writer itself where the server
offers it, ``directsend.py``), its
identity (member and seat, from the token of its ``hello``), and its rate limit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from starlette.websockets import WebSocket

from crisp.server.http.directsend import EXTENSION, DirectSocket, text_frame, text_frames
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.frames import frame

log = logging.getLogger("crisp.server")


class TokenBucket:
    """``rate`` messages a second, ``burst`` at once."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    # One per socket, alive as long as its phone: no per-instance dict (issue 22, memory).
    __slots__ = (
        "arrays",
        "bucket",
        "close_code",
        "closed",
        "greeted",
        "member",
        "queue",
        "queue_max",
        "refused",
        "seat",
        "wakeup",
        "writer",
        "ws",
    )

    def __init__(self, ws: WebSocket, *, queue_max: int, rate: float, burst: int) -> None:
        self.ws = ws
        # The send queue: a list the writer takes whole, and a future the idle writer waits on
        # (cheaper per message than an asyncio.Queue, and per socket than a deque's 760 bytes:
        # the writer sends every queued message before it waits again).
        self.queue: list[str | None] = []
        self.wakeup: asyncio.Future[None] | None = None
        self.queue_max = queue_max
        self.bucket = TokenBucket(rate, burst)
        self.refused = 0  # messages refused by the rate limit in a row
        self.member: int | None = None  # None: not said hello yet, or a watcher
        self.greeted = False
        self.arrays = False  # hello's frames "array": several messages per frame
        self.seat: int | None = None  # the seat in the current game, or None (spectator)
        self.closed = False
        self.close_code: int | None = None
        self.writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, text: str) -> None:
        """Queue one message; never waits. A phone that stops reading is cut off."""
        if self.closed:
            return
        if len(self.queue) >= self.queue_max:
            log.info("closing a connection that stopped reading (%d queued)", len(self.queue))
            self.abort(CloseCode.TOO_SLOW)
            return
        self._put(text)

    def _put(self, text: str | None) -> None:
        self.queue.append(text)
        wakeup = self.wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    def close(self, code: int) -> None:
        """Send what is queued, then close with ``code``."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self._put(None)

    def abort(self, code: int) -> None:
        """Close now, dropping what is queued (the writer may be stuck on a full socket)."""
        self.closed = True
        self.close_code = code
        if self.writer is not None:
            self.writer.cancel()
        asyncio.get_running_loop().create_task(self._close_now(code))

    async def _close_now(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code), 5)

    async def _write(self) -> None:
        ws = self.ws
        direct: DirectSocket | None = (
            ws.scope.get("extensions", {}).get(EXTENSION, {}).get("socket")
        )
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not self.queue:
                    self.wakeup = loop.create_future()
                    await self.wakeup
                    self.wakeup = None
                    continue
                # Everything queued is taken at once (what comes meanwhile waits for the next
                # turn); None, queued by close(), ends it.
                taken, self.queue = self.queue, []
                end = None in taken
                texts: list[str] = taken[: taken.index(None)] if end else taken  # type: ignore[assignment]
                if not texts:
                    pass
                elif direct is not None:
                    if not direct.can_write():
                        await direct.drained()
                    self._write_direct(direct, texts)
                elif self.arrays:
                    await ws.send_text(frame(texts))
                else:
                    for text in texts:
                        await ws.send_text(text)
                if end:
                    break
        except Exception:  # the peer went away; the reader notices too
            self.closed = True
            return
        with contextlib.suppress(Exception):
            await ws.close(self.close_code or 1000)

    def _write_direct(self, direct: DirectSocket, texts: list[str]) -> None:
        """The messages in one write: one frame of them all to a phone that said hello with
        frames "array" (docs/protocol.md, Frames: a change's messages are queued together, before
        the writer runs again), else a frame each."""
        data = text_frame(frame(texts).encode()) if self.arrays else text_frames(texts)
        if not direct.write_frames(data):
            raise ConnectionResetError("the socket is closing")

    async def stop(self) -> None:
        self.closed = True
        if self.writer is not None and not self.writer.done():
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
