"""The real server in the test process, on a virtual clock: what ``serverproc.ServerProcess`` and
``wsclient`` do over a process and sockets, with no process, no socket and no waiting.

- ``run(main)`` runs a coroutine on a ``VirtualLoop``: an asyncio loop whose clock jumps to the
  next timer whenever nothing is ready to run. The server's ``LoopClock``, the clients'
  ``asyncio.sleep`` and every ``wait`` timeout read that clock, so a 30-second per-draw time
  passes in no real time, and game times come out exact (no lag of a loaded machine).
- ``SimServer`` is ``ServerProcess``'s stand-in: the real app (``create_app``: the HTTP routes,
  the WebSocket endpoint, the hub, the rooms, SQLite in ``data_dir``). ``request``,
  ``create_room`` and ``join`` call the ASGI app (awaited); ``kill`` is a SIGKILL (nothing more
  is written, no shutdown code runs); a new ``SimServer`` on the same directory is the restart.
  ``output`` holds the server's log lines.
- ``Client``/``Player`` are ``wsclient``'s, their frames carried by ``Pipe``, a WebSocket as the
  server's endpoint sees it (``socket.endpoint`` runs for each connection: its send queue, the
  close codes, text and binary frames). What a real socket adds (the handshake's Origin check,
  the frame size cap of uvicorn, the rate limit in real time) stays on real sockets.
"""

from __future__ import annotations

import asyncio
import json
import logging
import selectors
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import anyio.to_thread
import wsclient

from crisp.server.app import create_app
from crisp.server.settings import Settings
from crisp.server.store.sqlite import Store

T = TypeVar("T")
CALM = {
    "rate_per_s": 1e6,
    "rate_burst": 10**6,  # no real time passes: no refill of a bucket
    "limit_exempt_ips": ["127.0.0.1"],
}  # the per-IP and total limits (docs/limits.md) too


# -- the virtual clock ------------------------------------------------------------------------


class _JumpingSelector:
    """A selector that never blocks: when the loop would wait for ``timeout`` seconds, the
    loop's virtual clock moves on by that much instead."""

    def __init__(self, loop: VirtualLoop, inner: selectors.BaseSelector) -> None:
        self.loop = loop
        self.inner = inner

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = self.inner.select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            raise RuntimeError("virtual loop: nothing is scheduled and nothing can happen")
        self.loop.virtual += timeout
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        selector = selectors.DefaultSelector()
        super().__init__(selector)
        self.virtual = 1000.0
        self._selector = _JumpingSelector(self, selector)  # type: ignore[assignment]

    def time(self) -> float:
        return self.virtual

    def run_in_executor(
        self, executor: Any, func: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        """In the loop's own thread: a worker's result would come back at a real time the
        virtual clock does not wait for."""
        future: asyncio.Future[T] = self.create_future()
        try:
            future.set_result(func(*args))
        except Exception as err:  # handed to the awaiting code
            future.set_exception(err)
        return future


def run(
    main: Callable[[], Coroutine[Any, Any, T]] | Coroutine[Any, Any, T], limit: float = 3600.0
) -> T:
    """Run ``main`` on a virtual loop; it fails after ``limit`` virtual seconds."""
    coro = main() if callable(main) else main
    threaded = anyio.to_thread.run_sync
    anyio.to_thread.run_sync = _inline  # type: ignore[assignment]
    try:
        with asyncio.Runner(loop_factory=VirtualLoop) as runner:
            return runner.run(asyncio.wait_for(coro, limit))
    finally:
        anyio.to_thread.run_sync = threaded


async def _inline(func: Callable[..., T], *args: Any, **_: Any) -> T:
    """``anyio.to_thread.run_sync`` on a virtual loop: in the loop's own thread (a worker
    thread's result would come back at a real time the virtual clock does not wait for)."""
    return func(*args)


async def sleep(seconds: float) -> None:
    """Let ``seconds`` of (virtual) time pass."""
    await asyncio.sleep(seconds)


# -- the server ---------------------------------------------------------------------------------


class _Lines(logging.Handler):
    def __init__(self, out: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.out = out
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.out.append(self.format(record) + "\n")


class _DeadStore:
    """The store of a killed server: nothing reaches the disk any more."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def write(self, *args: Any) -> None:
        raise OSError("the process was killed")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


ENV_FIELDS = {f"CRISP_{name.upper()}": name for name in Settings.model_fields}


class SimServer:
    """The app in this process; ``env`` takes the ``CRISP_*`` settings of ``ServerProcess``."""

    def __init__(
        self,
        data_dir: Path,
        *,
        clock_speed: float = 1.0,
        env: dict[str, str] | None = None,
        **settings: Any,
    ) -> None:
        self.data_dir = data_dir
        self.clock_speed = clock_speed
        self.env = dict(env or {})
        fields = {ENV_FIELDS[k]: v for k, v in self.env.items() if k != "CRISP_LOG_LEVEL"}
        self.settings = Settings(
            data_dir=data_dir, clock_speed=clock_speed, **{**CALM, **fields, **settings}
        )
        self.output: list[str] = []
        self.port = 0
        self.app: Any = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.pipes: set[Pipe] = set()
        self._log = _Lines(self.output)
        self._level = logging.NOTSET
        self.dead = False

    @property
    def hub(self) -> Any:
        if self.app is None:
            self.start()  # in the test's loop, at first use
        return self.app.state.hub

    def start(self) -> SimServer:
        """Open the store and load its rooms (as ``crisp serve`` does; no sweeper)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        logger = logging.getLogger("crisp")
        self._level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self._log)
        self.app = create_app(self.settings)
        self.hub.load()
        return self

    def _detach(self) -> None:
        logger = logging.getLogger("crisp")
        logger.removeHandler(self._log)
        logger.setLevel(self._level)

    def stop(self) -> None:
        """The end of a test's server: as ``kill``, but every socket is closed going away."""
        self.kill(1001)

    def kill(self, code: int = 1006) -> None:
        """SIGKILL: no shutdown code runs and nothing more is written; every socket breaks."""
        if self.app is None or self.dead:
            return
        self.dead = True
        hub = self.hub

        async def gone(*_: Any) -> None:
            return None

        hub.receive = hub.disconnected = gone  # no code of the dead process runs any more
        store = hub.store
        dead = _DeadStore(store)
        hub.store = dead
        for room in hub.rooms.values():
            room.store = dead
            room.stop_timers()
        for pipe in list(self.pipes):
            pipe.drop(code)
        for task in self.tasks:
            task.cancel()
        store.close()
        self._detach()

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- HTTP, through the ASGI app ---------------------------------------------------------

    async def request(
        self, method: str, path: str, body: Any = None, data: bytes | None = None
    ) -> tuple[int, Any]:
        raw_body = data if data is not None else b"" if body is None else json.dumps(body).encode()
        parts = urlsplit(path)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": unquote(parts.path),
            "raw_path": parts.path.encode(),
            "query_string": parts.query.encode(),
            "root_path": "",
            "server": ("127.0.0.1", 80),
            "client": ("127.0.0.1", 50000),
            "headers": [
                (b"host", b"127.0.0.1"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw_body)).encode()),
            ],
        }
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": raw_body, "more_body": False}

        status = 0
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        if self.app is None:
            self.start()
        await self.app(scope, receive, send)
        raw = b"".join(chunks)
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode()

    async def create_room(self, name: str) -> dict[str, Any]:
        status, body = await self.request("POST", "/api/rooms", {"name": name})
        assert status == 201, body
        result: dict[str, Any] = body
        return result

    async def join(self, code: str, name: str) -> dict[str, Any]:
        status, body = await self.request("POST", f"/api/rooms/{code}/join", {"name": name})
        assert status == 201, body
        result: dict[str, Any] = body
        return result


# -- a WebSocket in the process ------------------------------------------------------------------


class Refused403(Exception):
    """The handshake was refused (the server closed before accepting): HTTP 403."""


class Pipe:
    """The server's side of one WebSocket (what ``socket.endpoint`` and ``Connection`` use)."""

    def __init__(self, client: Client, headers: dict[str, str]) -> None:
        self.client = client
        self.headers = {"host": "127.0.0.1", **{k.lower(): v for k, v in headers.items()}}
        self.scope: dict[str, Any] = {"type": "websocket"}  # no direct send: frames one by one
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.accepted = asyncio.Event()
        self.closed = False
        self.code: int | None = None

    async def accept(self) -> None:
        self.accepted.set()

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        if self.closed:
            raise RuntimeError("the socket is closed")
        self.client.take_frame(text)

    async def close(self, code: int = 1000) -> None:
        """The server closes: the client sees the code; the server's reader sees the end."""
        if not self.closed:
            self.drop(code)

    def drop(self, code: int) -> None:
        self.closed = True
        self.code = code
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": code})
        self.accepted.set()
        self.client.ended(self, code)


class Client(wsclient.Client):
    """``wsclient.Client`` over a ``Pipe`` to a ``SimServer``."""

    server: Any
    pipe: Pipe | None = None

    async def connect(self, hello: bool = True, headers: dict[str, str] | None = None) -> Client:
        from crisp.server.socket.endpoint import endpoint

        srv: SimServer = self.server
        assert not srv.dead, "the server is not running"
        self.closed = asyncio.Event()
        self.close_code = None
        pipe = self.pipe = Pipe(self, headers or {})
        srv.pipes.add(pipe)
        task = asyncio.get_running_loop().create_task(endpoint(pipe, unquote(self.code), srv.hub))
        srv.tasks.add(task)
        task.add_done_callback(srv.tasks.discard)
        await pipe.accepted.wait()
        if pipe.closed and pipe.code == 4403 and not self.received:
            raise Refused403(pipe.code)  # closed before it was accepted
        if hello:
            start = len(self.received)
            await self.send(self.hello())
            await self.wait(lambda m: m["type"] in ("state", "error"), since=start)
        return self

    def ended(self, pipe: Pipe, code: int) -> None:
        if pipe is self.pipe:
            self.close_code = code
            self.closed.set()
            self._news.set()
        self.server.pipes.discard(pipe)

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        pipe = self.pipe
        assert pipe is not None
        if pipe.closed:
            raise wsclient.websockets.ConnectionClosed(None, None)
        if isinstance(msg, bytes):
            frame = {"type": "websocket.receive", "bytes": msg}
        else:
            text = msg if isinstance(msg, str) else json.dumps(msg)
            frame = {"type": "websocket.receive", "text": text}
        pipe.inbox.put_nowait(frame)
        await asyncio.sleep(0)  # as a socket write yields

    async def close(self) -> None:
        pipe = self.pipe
        if pipe is not None and not pipe.closed:
            pipe.drop(1000)
        await asyncio.sleep(0)


class Player(Client, wsclient.Player):
    """``wsclient.Player`` in the process."""


async def settle(ticks: int = 20) -> None:
    """Let every ready task run (no time passes)."""
    for _ in range(ticks):
        await asyncio.sleep(0)


def until(pred: Callable[[], bool], limit: float = 600.0, step: float = 0.01) -> Awaitable[None]:
    """Wait (virtual time, in ``step`` s) until ``pred()``."""

    async def wait() -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + limit
        while not pred():
            assert loop.time() < end, "it never happened"
            await asyncio.sleep(step)

    return wait()
