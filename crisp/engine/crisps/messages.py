"""Who is sent what: every change yields ``Out(to, msg)``. ``to`` is None (every seat and every
watcher), a seat ``s >= 0`` (that seat alone), ``~s`` (everyone but seat ``s``: the public twin of
a private message) or ``WATCHERS`` (watchers only: the ``round`` message without a hand). Always
filter with ``Out.for_seat(seat)`` (None: a watcher)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple

Message = dict[str, Any]
#: The ``to`` of a message for watchers only (no seat gets it).
WATCHERS = -1024


class Out(NamedTuple):
    to: int | None
    msg: Message

    def for_seat(self, seat: int | None) -> bool:
        """Whether ``seat`` (None: a watcher) is sent this message."""
        to = self.to
        if to is None:
            return True
        if to == WATCHERS:
            return seat is None
        if to >= 0:
            return to == seat
        return seat is None or seat != ~to


def stream(outs: Iterable[Out], seat: int | None) -> list[Message]:
    """The messages ``seat`` (None: a watcher) receives, in order."""
    return [o.msg for o in outs if o.for_seat(seat)]


def encode(msg: Message) -> str:
    """A message as one compact JSON line (the form of ``crisp replay --seat``)."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def dumps_stream(msgs: Iterable[Message]) -> str:
    return "".join(encode(m) + "\n" for m in msgs)
