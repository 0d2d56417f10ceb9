"""A store that cannot be used (PostgreSQL stopped or its network gone, a full or read-only disk
under SQLite): ``StoreUnavailable``, which the routes answer with a typed 503 ``unavailable`` and
the rooms with an ``unavailable`` error, and ``Outage``, which logs one line when an outage starts
and one when it ends, with how many changes were refused meanwhile (not a traceback a request or
a write). The store recovers by itself on the next call that works."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("crisp.server")


class Outage:
    """Whether the store can be used, from the outcome of each call, logged when that changes.

    ``down`` and ``up`` say what happened in the log's words (``"is unreachable"``, ``"is
    reachable again"``)."""

    def __init__(
        self,
        what: str,
        clock: Callable[[], float] = time.monotonic,
        *,
        down: str = "is unreachable",
        up: str = "is reachable again",
    ) -> None:
        self.what = what
        self.clock = clock
        self.down_words = down
        self.up_words = up
        self.down_since: float | None = None
        self.outages = 0
        self.refused_changes = 0  # in the current outage

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, err: BaseException) -> None:
        """A call failed for want of the store: the first of an outage logs one line."""
        if self.down_since is not None:
            return
        self.down_since = self.clock()
        self.outages += 1
        self.refused_changes = 0
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
        log.error(
            "the %s %s; changes are refused and requests that need it answer 503 unavailable "
            "until it is back: %s",
            self.what,
            self.down_words,
            reason,
        )

    def refused(self, changes: int) -> None:
        """``changes`` changes of rooms were refused (undone) because the store failed."""
        self.refused_changes += changes

    def ok(self) -> None:
        """A call worked: the end of an outage logs one line."""
        if self.down_since is None:
            return
        log.warning(
            "the %s %s (after %.1f s; %d changes were refused meanwhile)",
            self.what,
            self.up_words,
            self.clock() - self.down_since,
            self.refused_changes,
        )
        self.down_since = None


class StoreUnavailable(Exception):
    """The store cannot be used now; nothing was changed. Try again later. ``outage``, when
    given, is the store's: told how many changes the failure refused (``refused``)."""

    def __init__(self, message: str, outage: Outage | None = None) -> None:
        super().__init__(message)
        self.outage = outage

    def refused(self, changes: int) -> None:
        if self.outage is not None:
            self.outage.refused(changes)
