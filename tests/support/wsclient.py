"""WebSocket clients for server tests: a raw ``Client`` that records everything it receives, and
a ``Player`` that plays its seat by the rules from its own messages only (as a phone would)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from typing import Any

import websockets
from serverproc import ServerProcess

ENGINE_TYPES = frozenset(
    {
        "game",
        "round",
        "look",
        "ready",
        "turn",
        "draw",
        "recycle",
        "swap",
        "discard",
        "jack",
        "queen",
        "king",
        "take",
        "timeout",
        "turn_end",
        "window_closed",
        "crisp",
        "reveal",
        "round_story",  # R-SEE-STORY
        "game_over",
        "clock",
    }
)
SLOTS = ("left", "middle", "right")


def messages_of(raw: str | bytes) -> list[dict[str, Any]]:
    """The messages of one server frame: one JSON object, or an array of them, in order
    (docs/protocol.md, Frames). An empty or nested array is a protocol error."""
    frame = json.loads(raw)
    if not isinstance(frame, list):
        return [frame]
    assert frame, "an empty array frame"
    assert all(isinstance(m, dict) for m in frame), f"an array frame of non-messages: {frame!r}"
    return frame


class Client:
    def __init__(
        self,
        server: ServerProcess,
        code: str,
        token: str | None = None,
        label: str = "",
        arrays: bool = True,
    ) -> None:
        self.server = server
        self.code = code
        self.token = token
        self.label = label
        self.arrays = arrays  # hello with frames "array": several messages a frame
        self.frames = 0  # text frames received
        self.frame_of: list[int] = []  # for each message received, the number of its frame
        self.ws: Any = None
        self.received: list[dict[str, Any]] = []  # every message, in order, over all connections
        self.v = 0
        self.seat: int | None = None
        self.member: int | None = None
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self._news = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, hello: bool = True, headers: dict[str, str] | None = None) -> Client:
        self.closed = asyncio.Event()
        self.close_code = None
        self.ws = await websockets.connect(
            f"{self.server.ws_base}/ws/{self.code}",
            compression=None,
            max_size=2**22,
            additional_headers=headers,
            open_timeout=10,
            # A server behind TLS names the context that trusts its certificate (wss://).
            **getattr(self.server, "ws_options", {}),
        )
        self._reader = asyncio.get_running_loop().create_task(self._read())
        if hello:
            start = len(self.received)
            await self.send(self.hello())
            await self.wait(lambda m: m["type"] in ("state", "error"), since=start)
        return self

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.take_frame(raw)
        except websockets.ConnectionClosed:
            pass
        finally:
            with contextlib.suppress(Exception):
                self.close_code = self.ws.close_code
            self.closed.set()
            self._news.set()

    def hello(self) -> dict[str, Any]:
        """The hello this client says (with frames "array" unless told not to)."""
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        return {**hello, "frames": "array"} if self.arrays else hello

    def take_frame(self, raw: str | bytes) -> None:
        """One frame received: its messages, each taken in order (docs/protocol.md, Frames)."""
        self.frames += 1
        for msg in messages_of(raw):
            self.take(msg)

    def take(self, msg: dict[str, Any]) -> None:
        """One message received: kept, and the seat, member and version it tells followed."""
        self.received.append(msg)
        self.frame_of.append(self.frames)
        if msg.get("type") in ("welcome", "state"):
            you = msg["you"]
            self.seat, self.member = you["seat"], you["member"]
        elif msg.get("type") == "room":
            mine = [m for m in msg["members"] if m["id"] == self.member]
            if mine:
                self.seat = mine[0]["seat"]
        if isinstance(msg.get("v"), int) and msg.get("type") != "error":
            self.v = max(self.v, msg["v"])
        self._news.set()

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(msg if isinstance(msg, str | bytes) else json.dumps(msg))

    async def act(self, do: str, v: int | None = None, **fields: Any) -> None:
        await self.send({"type": "act", "v": self.v if v is None else v, "do": do, **fields})

    async def wait(self, pred: Any, timeout: float = 10.0, since: int = 0) -> dict[str, Any]:
        """The first message from index ``since`` on for which ``pred(msg)`` holds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        i = since
        while True:
            while i < len(self.received):
                msg = self.received[i]
                i += 1
                if pred(msg):
                    return msg
            if self.closed.is_set():
                raise AssertionError(f"{self.label}: closed ({self.close_code}) while waiting")
            left = end - loop.time()
            if left <= 0:
                tail = self.received[-5:]
                kinds = [m.get("type") for m in self.received]
                raise AssertionError(f"{self.label}: timed out waiting; last: {tail}; {kinds}")
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), left)

    async def wait_type(
        self, typ: str, since: int = 0, timeout: float = 10.0, **match: Any
    ) -> dict[str, Any]:
        return await self.wait(
            lambda m: m.get("type") == typ and all(m.get(k) == v for k, v in match.items()),
            timeout,
            since,
        )

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.closed.wait(), 5)

    def engine_stream(self) -> list[dict[str, Any]]:
        """The engine's messages received, without the server's version stamp."""
        return [
            {k: v for k, v in m.items() if k != "v"}
            for m in self.received
            if m.get("type") in ENGINE_TYPES
        ]

    def errors(self, code: str | None = None) -> list[dict[str, Any]]:
        return [
            m
            for m in self.received
            if m.get("type") == "error" and (code is None or m.get("code") == code)
        ]


class Player(Client):
    """Plays its seat from its own messages: readies, draws when due, plays the drawn card
    (swap/discard, Jack, Queen on a random opponent, King), sometimes calls crisp inside its
    window, sometimes leaves a draw to time out (with a per-draw time), and goes on after a
    reveal. ``speed`` is the server's clock speed (game seconds per real second)."""

    def __init__(
        self,
        server: ServerProcess,
        code: str,
        token: str,
        label: str,
        *,
        seed: int = 0,
        p_call: float = 0.25,
        p_timeout: float = 0.0,
        margin: float = 0.03,
    ) -> None:
        super().__init__(server, code, token, label)
        self.rng = random.Random(seed)
        self.speed = server.clock_speed
        self.p_call = p_call
        self.p_timeout = p_timeout
        self.margin = margin  # real seconds added after a game time, for clock skew
        self.options: dict[str, Any] = {}
        self.players = 0
        self.task: asyncio.Task[None] | None = None
        self.pending: set[asyncio.Task[None]] = set()
        self.top: str | None = None
        self.called = False
        self.playing = True
        self.continued = -1
        self.answer_probes = False  # answer each probe at once, as a phone does (R-WINDOW-LAG)

    def later(self, game_seconds: float, coro: Any) -> None:
        async def run() -> None:
            await asyncio.sleep(max(0.0, game_seconds / self.speed) + self.margin)
            if self.playing and not self.closed.is_set():
                with contextlib.suppress(websockets.ConnectionClosed):
                    await coro()

        task = asyncio.get_running_loop().create_task(run())
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    def start_playing(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._play())

    async def stop_playing(self) -> None:
        self.playing = False
        tasks = [task for task in [self.task, *self.pending] if task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            # asyncio.wait neither raises the tasks' errors nor swallows a cancellation of the
            # caller (suppressing CancelledError here would: the caller could never be stopped).
            await asyncio.wait(tasks)

    async def _play(self, i: int = 0) -> None:
        """React to every message from index ``i`` on, as it arrives, until stopped."""
        while self.playing:
            while i < len(self.received):
                msg = self.received[i]
                i += 1
                await self.react(msg)
            if self.closed.is_set():
                return
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), 1.0)

    async def react(self, msg: dict[str, Any]) -> None:
        typ = msg.get("type")
        me = self.seat
        if typ == "probe" and self.answer_probes:
            await self.send({"type": "probe_ack", "n": msg["n"]})
        elif typ == "game":
            self.options, self.players = msg["options"], len(msg["players"])
        elif typ == "state" and msg.get("view"):
            self.options = msg["view"]["options"]
            self.players = len(msg["view"]["players"])
        elif typ == "round":
            self.called = False
            self.top = None
            if me is not None and self.rng.random() < 0.9:
                self.later(self.rng.uniform(0, 3), lambda: self.act("ready"))
        elif typ == "crisp":
            self.called = True
        elif typ in ("swap", "discard", "jack", "queen", "king", "take", "timeout"):
            self.top = msg.get("card") or self.top
        elif typ == "turn" and msg["seat"] == me:
            if self.options.get("timer") and self.rng.random() < self.p_timeout:
                return
            wait = max(0.0, msg["at"] - msg["t"])
            if self.options.get("take_discard") and self.top and self.rng.random() < 0.2:
                slot = self.rng.choice(SLOTS)
                self.later(wait, lambda: self.act("take_discard", slot=slot))
            else:
                self.later(wait, lambda: self.act("draw"))
        elif typ == "draw" and msg["seat"] == me and "card" in msg:
            await self.play_card(msg["card"])
        elif typ == "turn_end" and msg["seat"] == me and msg.get("window_until") is not None:
            if not self.called and self.rng.random() < self.p_call:
                span = (msg["window_until"] - msg["t"]) * 0.7
                self.later(self.rng.uniform(0, span), lambda: self.act("crisp"))
        elif (
            typ == "room"
            and msg["phase"] == "between"
            and me in msg["between"]["waiting"]
            and self.continued != msg["v"]
        ):
            self.continued = msg["v"]  # once per reveal
            self.later(self.rng.uniform(0, 1), lambda: self.send({"type": "continue"}))

    async def play_card(self, card: str) -> None:
        rank, rng = card[0], self.rng
        if rank == "K":
            await self.act("king")
        elif rank == "Q":
            others = [s for s in range(self.players) if s != self.seat]
            await self.act(
                "queen",
                slot=rng.choice(SLOTS),
                target=rng.choice(others),
                target_slot=rng.choice(SLOTS),
            )
        elif rank == "J":
            await self.act("jack")
        elif rng.random() < 0.6:
            await self.act("swap", slot=rng.choice(SLOTS))
        else:
            await self.act("discard")
