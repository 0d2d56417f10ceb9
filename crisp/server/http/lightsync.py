"""Two small stand-ins for what uvicorn's WebSocket protocol keeps per socket (issue 22, memory):
its ``asyncio.Queue`` of ASGI receive events (3.3 KB: three deques and an Event) and its
``writable`` ``asyncio.Event`` (0.9 KB: a deque of waiters). A socket lives as long as its phone;
these hold the same state in a list and a future made only while someone waits (about 0.2 KB
each). They do what the protocol asks of them, and no more: one consumer of the queue (the ASGI
app's ``receive``), any number of waiters on the flag."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class ReceiveQueue(Generic[T]):
    """``put_nowait``, ``get`` (one consumer) and ``empty``, in order."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: list[T] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        while not self._items:
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def get_nowait(self) -> T:
        """The oldest item, now (the queue must not be empty)."""
        return self._items.pop(0)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)


class Routed(Generic[T]):
    """In place of the queue once a WebSocket is detached (``uvguard.py``): nothing waits in it,
    each item is handed to ``route`` as it is put."""

    __slots__ = ("_route",)

    def __init__(self, route: Callable[[T], None]) -> None:
        self._route = route

    def put_nowait(self, item: T) -> None:
        self._route(item)

    async def get(self) -> T:
        raise RuntimeError("a detached WebSocket has no ASGI receive")

    def empty(self) -> bool:
        return True

    def qsize(self) -> int:
        return 0


class Flag:
    """``set``, ``clear``, ``is_set`` and ``wait``, as ``asyncio.Event``."""

    __slots__ = ("_loop", "_set", "_waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop, is_set: bool = False) -> None:
        self._loop = loop
        self._set = is_set
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if self._set:
            return
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = self._loop.create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True
