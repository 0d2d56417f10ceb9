"""Who is sent what: every change of the game yields ``Out(to, msg, event)`` records.

``event`` is the typed message (``crisp.engine.crisp.events``) and ``msg`` its wire form, made once
with
the event (read-only: ``event.to_wire()`` gives a copy to change): what a server sends and what
``stream`` returns. ``to`` is None for everyone (every seat and every spectator), a seat number
``s >= 0`` for that seat alone (a private message), or ``~s`` (negative) for everyone but seat
``s``: the public twin of a private message, such as a draw without its card.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from crisp.engine.crisp.events import Event, Message

__all__ = ["Message", "Out", "deliver", "dumps_stream", "encode", "stream"]


_tuple_new = tuple.__new__  # NamedTuple's own __new__ is a Python call: twice the cost


class Out(NamedTuple):
    to: int | None
    msg: Message
    event: Event

    @classmethod
    def of(cls, to: int | None, event: Event) -> Out:
        """The event addressed to ``to``, with its wire form: the event's own dict (made once,
        when the event was), so ``msg`` is read-only like the event; copy it to change it."""
        return _tuple_new(cls, (to, event._wire, event))

    def for_seat(self, seat: int | None) -> bool:
        """Whether ``seat`` (None: a spectator) is sent this message."""
        to = self.to
        if to is None:
            return True
        if to >= 0:
            return to == seat
        return seat is None or seat != ~to


def stream(outs: Iterable[Out], seat: int | None) -> list[Message]:
    """The messages ``seat`` (None: a spectator) receives, in order."""
    return [o.msg for o in outs if o.for_seat(seat)]


def deliver(outs: Iterable[Out], inboxes: list[list[Message]]) -> None:
    """Append each message to the inbox of every recipient: ``inboxes[s]`` for seat ``s``, and the
    inboxes past the last seat for spectators. The same audiences as ``Out.for_seat``, in one pass.
    """
    seats = len(inboxes)
    for to, msg, _ in outs:
        if to is None:
            for box in inboxes:
                box.append(msg)
        elif to >= 0:
            if to < seats:
                inboxes[to].append(msg)
        else:
            skip = ~to
            for i, box in enumerate(inboxes):
                if i != skip:
                    box.append(msg)


def encode(msg: Message) -> str:
    """One message as compact JSON, the same bytes every time."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def dumps_stream(messages: Iterable[Message]) -> str:
    """One JSON object a line, as ``crisp replay --seat N`` prints it."""
    return "".join(encode(m) + "\n" for m in messages)
