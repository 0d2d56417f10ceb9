"""A real server in a thread of the test process (uvicorn on a free port of 127.0.0.1), and a
TCP proxy on 127.0.0.1 that delays every byte by a fixed time each way (a slow network)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn


@contextlib.contextmanager
def serving(app: Any, **options: Any) -> Iterator[int]:
    """The app on uvicorn in a thread of this process: its port on 127.0.0.1 (``options``: more
    of uvicorn's ``Config``, e.g. ``ws``)."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    port: int = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


class DelayProxy:
    """Every byte from either side reaches the other ``delay`` seconds after it arrived, in
    order (a constant one-way delay, no bandwidth limit). Runs on the caller's event loop."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self.port = 0
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> DelayProxy:
        self.server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.get_running_loop().create_task(self._pipe(src, dst))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    dst.close()
                    return
                dst.write(data)
                await dst.drain()

        delivering = loop.create_task(deliver())
        try:
            while True:
                data = await src.read(65536)
                queue.put_nowait((loop.time() + self.delay, data))
                if not data:
                    break
            await delivering
        finally:
            delivering.cancel()
