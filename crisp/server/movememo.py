"""A game's check of a move's fields, remembered (``GameSpec.check_move`` checks their shape
only: the same fields always get the same answer). The same few moves come thousands of times a
second (``{"do": "draw"}``), and each check builds and dumps a model; a remembered answer is a
dictionary lookup. Moves are keyed by each field's name, type and value (``1``, ``1.0`` and
``True`` are different moves); one with a nested value (a list, an object) is checked each time,
and so is one that is refused, to be refused with its own error. At most ``size`` answers are
kept, the oldest forgotten first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crisp.server.seam import Fields


class CheckedMoves:
    def __init__(self, check: Callable[[Fields], Fields], size: int = 1024) -> None:
        self.check = check
        self.size = size
        self.known: dict[tuple[Any, ...], Fields] = {}

    def __call__(self, fields: Fields) -> Fields:
        """``check(fields)``: a copy of the remembered answer, if there is one."""
        key = tuple((name, type(value), value) for name, value in fields.items())
        try:
            known = self.known.get(key)
        except TypeError:  # a nested value: not remembered
            return self.check(fields)
        if known is not None:
            return dict(known)
        checked = self.check(fields)
        if len(self.known) >= self.size:
            del self.known[next(iter(self.known))]
        self.known[key] = dict(checked)
        return checked
