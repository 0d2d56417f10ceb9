"""The protocol's error codes, and ``Refused``: a message or request refused with one of them.

``ErrorCode`` is the one list of codes: the ``error`` message's ``code`` field (``protocol.py``)
and every ``Refused`` use it, so a code the protocol does not document does not type-check.
docs/protocol.md's Errors section gives each its meaning.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "bad_json",
    "bad_message",
    "unknown_type",
    "too_large",
    "rate_limited",
    "unauthorized",
    "forbidden",
    "not_found",
    "bad_phase",
    "illegal",
    "stale",
    "bad_version",
    "unavailable",
    "room_full",
    "server_full",
    "host_not_human",
    "internal",
]


class Refused(Exception):
    """A message refused with an ``error``: nothing changed."""

    def __init__(self, code: ErrorCode, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.rule = rule
