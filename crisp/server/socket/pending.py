"""The connections whose request headers are not complete yet, oldest first, under a cap."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

MIN_AGE_S = 1.0  # a connection waiting for its headers this long may be evicted


class Waiting(Protocol):
    def header_deadline_passed(self, evicted: bool = False) -> None:
        """Answer 408 (unless ``evicted``) and close."""
        ...


class PendingHeaders:
    """Over ``cap``, the oldest are closed if they have waited ``min_age`` seconds at least (a
    burst of new connections, e.g. a restart's reconnections accepted before any is read, is
    not a flood); over twice the cap, whatever their age (the file descriptors must not run
    out)."""

    def __init__(
        self,
        cap: int,
        timeout: float,
        min_age: float = MIN_AGE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = cap
        self.timeout = timeout
        self.min_age = min_age
        self.clock = clock
        self.waiting: OrderedDict[int, tuple[float, Waiting]] = OrderedDict()
        self.timed_out = 0
        self.evicted = 0

    def add(self, conn: Waiting) -> None:
        now = self.clock()
        self.waiting[id(conn)] = (now, conn)
        while len(self.waiting) > self.cap:
            since, oldest = next(iter(self.waiting.values()))
            if now - since < self.min_age and len(self.waiting) <= 2 * self.cap:
                break  # a burst, up to twice the cap; beyond that, the oldest go whatever age
            self.waiting.popitem(last=False)
            self.evicted += 1
            oldest.header_deadline_passed(evicted=True)

    def remove(self, conn: Waiting) -> None:
        self.waiting.pop(id(conn), None)

    def __len__(self) -> int:
        return len(self.waiting)
