"""A store that cannot be reached (PostgreSQL stopped, its network gone): ``StoreUnavailable``,
which the routes answer with a typed 503 ``unavailable`` and the rooms with an ``unavailable``
error, and ``Outage``, which logs one line when an outage starts and one when it ends (not a
traceback a request). The store reconnects by itself on the next call once the database is back."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("crisp.server")


class StoreUnavailable(Exception):
    """The store cannot be reached now; nothing was changed. Try again later."""


class Outage:
    """Whether the store is reachable, from the outcome of each call, logged on each change."""

    def __init__(self, what: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.clock = clock
        self.down_since: float | None = None
        self.outages = 0

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, err: BaseException) -> None:
        if self.down_since is None:
            self.down_since = self.clock()
            self.outages += 1
            reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
            log.error(
                "the %s is unreachable; requests that need it answer 503 unavailable until it "
                "is back: %s",
                self.what,
                reason,
            )

    def ok(self) -> None:
        if self.down_since is not None:
            log.warning(
                "the %s is reachable again (after %.1f s)",
                self.what,
                self.clock() - self.down_since,
            )
            self.down_since = None
