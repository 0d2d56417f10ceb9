"""What a room needs of a connection: who it is, and a way to send. The WebSocket connection
(``connection.py``) is one; tests use their own."""

from __future__ import annotations

from typing import Protocol

from crisp.server.wire.closecodes import CloseCode


class Peer(Protocol):
    member: int | None  # None: a watcher (or not greeted yet)
    seat: int | None  # the seat in the current game, or None
    greeted: bool
    closed: bool
    arrays: bool  # frames of several messages, as JSON arrays (hello's ``frames``)

    def send(self, text: str) -> None:
        """Queue one message; never waits."""

    def close(self, code: CloseCode) -> None:
        """Send what is queued, then close."""
