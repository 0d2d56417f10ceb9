"""A slow link for browser tests: a TCP proxy on 127.0.0.1 (a free port) in front of a server that
delivers every chunk, in each direction, a fixed delay after it was read, in order, like a long
cable. A page loaded from ``link.base`` then has a round trip of twice ``one_way_s`` to the server,
HTTP and WebSocket alike. Run as ``with DelayLink(server.base, 0.4) as link: ...``."""

from __future__ import annotations

import asyncio
import threading
import time
from types import TracebackType
from urllib.parse import urlsplit


class DelayLink:
    def __init__(self, target_base: str, one_way_s: float) -> None:
        target = urlsplit(target_base)
        self.target = (target.hostname or "127.0.0.1", target.port or 80)
        self.one_way_s = one_way_s
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self.server: asyncio.Server | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> DelayLink:
        self.thread.start()
        assert self.ready.wait(10), "the delay link did not start"
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        asyncio.run_coroutine_threadsafe(self._shut(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    async def _shut(self) -> None:
        """Every connection's pumps end before the loop stops."""
        if self.server is not None:
            self.server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()
        server.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Read chunks as they come; each goes out one_way_s after it was read, in order."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if not chunk:
                    writer.close()
                    return
                writer.write(chunk)
                await writer.drain()

        sender = asyncio.ensure_future(deliver())
        try:
            while True:
                chunk = await reader.read(65536)
                queue.put_nowait((time.monotonic() + self.one_way_s, chunk))
                if not chunk:
                    break
            await sender
        except (ConnectionError, OSError):
            sender.cancel()
            writer.close()
