"""Print what one frame costs the server's WebSocket protocol, in process (no network noise).

    .venv/bin/python tests/server/wire/frame_cost.py [--frames 20000] [--repeats 40]

A socket opened by hand (``SocketPair``: a fake transport, websockets' client protocol), its app
on the direct path (a receiver given, the socket detached). Timed: a masked text frame of a
typical action read (``data_received`` to the receiver), and a direct write of one server frame
(``write_frames``); each the best of ``--repeats`` loops of ``--frames`` calls, in µs a call,
with the Python function calls each makes (cProfile's count: steady where times are not). A
benchmark that prints numbers, not a test: compare two trees in one sitting, interleaved."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from crisp.server.settings import Settings
from crisp.server.socket.direct import EXTENSION, DirectSocket
from tests.support.socketpair import SocketPair

ACTION = '{"type":"act","v":123,"action":{"type":"flip","seat":3,"slot":1}}'


def direct_app(sockets: list[DirectSocket], received: list[str]) -> Any:
    """An app that accepts, gives the socket a receiver and detaches."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        socket: DirectSocket = scope["extensions"][EXTENSION]["socket"]
        socket.deliver(received.append)
        sockets.append(socket)

        async def ending() -> None:
            return None

        socket.detach(lambda _data: None, ending)

    return app


def best_us(call: Callable[[], object], frames: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(frames):
            call()
        best = min(best, time.perf_counter() - start)
    return best / frames * 1e6


def calls_each(call: Callable[[], object], times: int = 1000) -> float:
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(times):
        call()
    profile.disable()
    return float(pstats.Stats(profile).total_calls) / times  # type: ignore[attr-defined]


async def measure(frames: int, repeats: int) -> dict[str, tuple[float, float]]:
    sockets: list[DirectSocket] = []
    received: list[str] = []
    pair = SocketPair(direct_app(sockets, received), Settings())
    await pair.open()
    pair.client.send_text(ACTION.encode())
    frame = pair.client_sends()
    out = b"\x81" + bytes([len(ACTION)]) + ACTION.encode()  # final, text, unmasked
    socket = sockets[0]

    def read() -> None:
        pair.server.data_received(frame)
        received.clear()

    def write() -> None:
        socket.write_frames(out)
        pair.transport.written.clear()

    return {
        "read a text frame": (best_us(read, frames, repeats), calls_each(read)),
        "write a frame (direct)": (best_us(write, frames, repeats), calls_each(write)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    for name, (us, calls) in asyncio.run(measure(args.frames, args.repeats)).items():
        print(f"{name:24} {us:6.2f} µs  {calls:4.0f} Python calls")


if __name__ == "__main__":
    main()
