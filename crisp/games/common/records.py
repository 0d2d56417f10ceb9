"""What a game offers for its records, beyond the server: the ``format`` its records declare, and
``crisp replay`` and ``crisp verify`` of one. ``crisp.games.records`` finds a record's game by its
``format`` and calls these."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol


class Unverifiable(ValueError):
    """A record that cannot be checked (malformed, unfinished, or without a fairness)."""


class Verdict(NamedTuple):
    ok: bool
    message: str  # "verified", or the first difference
    rounds: int  # the decks checked


class RecordTools(Protocol):
    """A game's ``crisp replay`` and ``crisp verify``."""

    @property
    def format(self) -> str:
        """The ``format`` of the game's records, e.g. ``"crisp-record/1"``."""

    def replay(self, record: Any, seat: int | None, spectator: bool, /) -> int:
        """``crisp replay`` of one record (a value read by ``crisp.engine.common.recordfile``):
        the result, or the messages ``seat`` (or a spectator) is sent, on stdout; a refusal on
        stderr, in one line. Returns the exit code."""

    def verify(self, record: Any, /) -> Verdict:
        """``crisp verify`` of one record (a dict read from JSON); raises ``Unverifiable``."""


def replayed(work: Callable[[], int], illegal: type[Exception], malformed: type[Exception]) -> int:
    """``work``'s exit code; a record that breaks a rule (``illegal``: 1) or is malformed
    (``malformed``: 2) says so on stderr, in one line."""
    try:
        return work()
    except illegal as err:
        print(f"crisp replay: {err}", file=sys.stderr)
        return 1
    except malformed as err:
        print(f"crisp replay: malformed record: {err}", file=sys.stderr)
        return 2
