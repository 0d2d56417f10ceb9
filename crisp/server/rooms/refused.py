"""A message refused with an ``error``: nothing changed."""

from __future__ import annotations


class Refused(Exception):
    """A message refused with an ``error``: nothing changed."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
