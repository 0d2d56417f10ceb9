"""The connections that queued messages in this turn of the event loop, each written at the end of
the turn from ONE callback for them all (a callback each cost a handle, scheduled and run, per
connection per change: eight for a room's every change).

One per server (the app makes it; a connection without one makes its own). A turn's connections
are written in the order they queued their first message. If the loop a flush was scheduled in
closed before it ran (a test's loop), the next connection to queue starts afresh in its own."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

log = logging.getLogger("crisp.server")


class Flushable(Protocol):
    def flush_due(self) -> None:
        """Write what was queued (the turn that queued it is over)."""


class Flusher:
    __slots__ = ("due", "loop")

    def __init__(self) -> None:
        self.due: list[Flushable] = []
        self.loop: asyncio.AbstractEventLoop | None = None  # where the pending flush runs

    def add(self, conn: Flushable, loop: asyncio.AbstractEventLoop) -> None:
        """Write ``conn``'s queue at the end of this turn (it is not in this turn's list yet)."""
        if self.loop is not loop:
            self.due = []  # a closed loop's, whose flush will never run
            self.loop = loop
        if not self.due:
            loop.call_soon(self.flush)
        self.due.append(conn)

    def flush(self) -> None:
        due, self.due = self.due, []
        for conn in due:
            try:
                conn.flush_due()
            except Exception:  # one connection's bug does not keep the others' messages back
                log.exception("a connection's write failed")
