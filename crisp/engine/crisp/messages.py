"""Crisp's addressed messages: every change of the game yields ``Out(to, msg, event)`` records.

``to`` and ``msg`` are as for every game (``crisp.engine.common.messages``: None for everyone,
``s >= 0`` for seat ``s`` alone, ``~s`` for everyone but seat ``s``). ``event`` is the typed message
(``crisp.engine.crisp.events``) and ``msg`` its wire form, made once with the event (read-only:
``event.to_wire()`` gives a copy to change). ``deliver`` routes a change to every inbox at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from crisp.engine.common.messages import Message, dumps_stream, encode, reaches, stream
from crisp.engine.crisp.events import Event

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
        return reaches(self.to, seat)


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
