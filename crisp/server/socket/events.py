"""The ASGI events a WebSocket holds for its app's ``receive``, until the app detaches: a list
and a future made only while the app waits (an ``asyncio.Queue`` is three deques and an Event,
about 3 KB, for a socket that lives as long as its phone)."""

from __future__ import annotations

import asyncio
from typing import Any

Event = dict[str, Any]


class Events:
    """``put``, ``get`` (one consumer), ``take_all`` and ``empty``, in order."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: list[Event] = []
        self.waiter: asyncio.Future[None] | None = None

    def put(self, event: Event) -> None:
        self.items.append(event)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Event:
        while not self.items:
            waiter = self.waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self.waiter = None
        return self.items.pop(0)

    def take_all(self) -> list[Event]:
        items, self.items = self.items, []
        return items

    def empty(self) -> bool:
        return not self.items
