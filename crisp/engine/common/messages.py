"""Who is sent what: every change of a game yields addressed messages, ``Out(to, msg)``.

``to`` is None for everyone (every seat and every watcher), a seat ``s >= 0`` for that seat alone
(a private message), ``~s`` (negative) for everyone but seat ``s`` (the public twin of a private
message, such as a draw without its card), or ``WATCHERS`` for watchers only (no seat gets it).
Always filter with ``for_seat(seat)`` (None: a watcher). ``msg`` is the wire form of the message:
what a server sends and what ``stream`` returns.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol

Message = dict[str, Any]
#: The ``to`` of a message for watchers only (no seat gets it; far below any ``~seat``).
WATCHERS = -1024

__all__ = ["WATCHERS", "Addressed", "Message", "Out", "dumps_stream", "encode", "reaches", "stream"]


def reaches(to: int | None, seat: int | None) -> bool:
    """Whether a message addressed ``to`` is sent to ``seat`` (None: a watcher)."""
    if to is None:
        return True
    if to >= 0:
        return to == seat
    if to == WATCHERS:
        return seat is None
    return seat is None or seat != ~to


class Addressed(Protocol):
    """An addressed message of any game: its wire form and who is sent it."""

    @property
    def msg(self) -> Message: ...

    def for_seat(self, seat: int | None) -> bool: ...


class Out(NamedTuple):
    """An addressed message: ``msg`` sent to ``to`` (see the module's docstring)."""

    to: int | None
    msg: Message

    def for_seat(self, seat: int | None) -> bool:
        """Whether ``seat`` (None: a watcher) is sent this message."""
        return reaches(self.to, seat)


def stream(outs: Iterable[Addressed], seat: int | None) -> list[Message]:
    """The messages ``seat`` (None: a watcher) receives, in order."""
    return [o.msg for o in outs if o.for_seat(seat)]


def encode(msg: Message) -> str:
    """One message as compact JSON, the same bytes every time (the form of ``crisp replay
    --seat``)."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def dumps_stream(messages: Iterable[Message]) -> str:
    """One JSON object a line, as ``crisp replay --seat N`` prints it."""
    return "".join(encode(m) + "\n" for m in messages)
