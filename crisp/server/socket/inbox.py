"""A socket's text messages as the protocol parses them (the direct path, ``direct.py``).

Each message is rate-limited, then handled at once if its room is free (``Hub.receive_now``):
no ASGI event, no await, no wake-up of the socket's task. While someone holds the room's lock (a
join awaiting its commit, a timer), the message waits in the inbox, and so does every later one
of this socket: one task takes them in order, as the ASGI path's loop would, then the inbox is
direct again. What the connection's messages do is the same on either path; only the cost
differs (docs/performance.md, "The direct receive path")."""

from __future__ import annotations

import asyncio
import logging

from crisp.server.limits.room_limits import HelloTimer
from crisp.server.rooms.hub import Hub
from crisp.server.rooms.room import Room
from crisp.server.socket.connection import Connection
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.errors import Refused

log = logging.getLogger("crisp.server")
FLOOD_LIMIT = 200  # frames refused in a row by the rate limit before the connection is closed
FLOOD_REPORT_EVERY = 20  # after the first refusal, one error for every 20 refused in a row


def admitted(conn: Connection, room: Room) -> bool:
    """Whether a frame is within the connection's rate. One over it is dropped unread: the
    first of a run, and every 20th, is answered ``rate_limited``; 200 in a row close the
    connection (1008)."""
    if conn.bucket.take():
        conn.refused = 0
        return True
    conn.refused += 1
    if conn.refused >= FLOOD_LIMIT:
        conn.close(CloseCode.POLICY)
    elif conn.refused == 1 or conn.refused % FLOOD_REPORT_EVERY == 0:
        room.error(conn, Refused("rate_limited", "too many messages: slow down"), None)
    return False


def refuse_binary(conn: Connection, room: Room) -> None:
    """A binary message: counted by the rate limit, answered ``bad_message``."""
    if admitted(conn, room):
        room.error(conn, Refused("bad_message", "send JSON in text frames"), None)


class Inbox:
    """The receiver the endpoint gives its socket (``DirectSocket.deliver``)."""

    __slots__ = ("conn", "deadline", "hub", "room", "task", "waiting")

    def __init__(
        self, hub: Hub, room: Room, conn: Connection, deadline: HelloTimer | None = None
    ) -> None:
        self.hub = hub
        self.room = room
        self.conn = conn
        # the socket's hello deadline, cancelled once it said hello (nothing of it kept then)
        self.deadline = deadline
        # messages that came while the room was held, in order (None: none, the usual case)
        self.waiting: list[str] | None = None
        self.task: asyncio.Task[None] | None = None  # the one that handles them

    def __call__(self, text: str) -> None:
        if self.conn.closed or not admitted(self.conn, self.room):
            return
        waiting = self.waiting
        if waiting is not None:
            waiting.append(text)
        elif not self.hub.receive_now(self.room, self.conn, text):
            self.waiting = [text]
            if self.task is None:
                self.task = asyncio.get_running_loop().create_task(self._in_order())
        elif self.deadline is not None:
            self.handled()

    def handled(self) -> None:
        """A message was handled: once the socket has said hello, its deadline is over."""
        deadline = self.deadline
        if deadline is not None and self.conn.greeted:
            deadline.cancel()
            self.deadline = None

    def binary(self, _data: bytes) -> None:
        """A detached socket's binary message (``DirectSocket.detach``)."""
        if not self.conn.closed:
            refuse_binary(self.conn, self.room)

    async def _in_order(self) -> None:
        try:
            while (waiting := self.waiting) and not self.conn.closed:
                await self.hub.receive(self.room, self.conn, waiting[0])
                del waiting[0]
                self.handled()
        except Exception:  # a bug: the next message of the socket starts again
            log.exception("room %s: a waiting message failed", self.room.code)
        finally:
            self.waiting = None
            self.task = None

    async def stop(self) -> None:
        """At the socket's end: the deadline cancelled; until the message being handled is done,
        the rest dropped."""
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        task = self.task
        if task is not None and not task.done():
            if self.waiting is not None:
                self.waiting[1:] = []
            await asyncio.wait([task])
