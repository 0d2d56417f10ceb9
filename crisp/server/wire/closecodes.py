"""WebSocket close codes: the RFC 6455 ones the server uses, and its own (4000-4999)."""

from __future__ import annotations

from enum import IntEnum


class CloseCode(IntEnum):
    NORMAL = 1000
    GOING_AWAY = 1001  # the server is shutting down: reconnect
    POLICY = 1008  # a flood of messages
    INVALID_TEXT = 1007  # a text frame that is not UTF-8
    TOO_BIG = 1009  # a message over the size cap
    UNAUTHORIZED = 4401  # a wrong or removed seat token
    NO_ROOM = 4404  # the room does not exist (or expired)
    TOO_SLOW = 4408  # the send queue overflowed: reconnect and resync
    REMOVED = 4409  # the host removed this member, or it left
    MOVED = 4301  # the room is served by another node now (a handover, a lost lease): reconnect
    HELLO_TIMEOUT = 4410  # no hello within hello_timeout_s
    ROOM_FULL = 4429  # a watcher beyond room_watchers_max
    ROOM_CLOSED = 4405  # an operator closed the room (crisp rooms close): it is gone
