"""The baseline of ``crisp bench load``: a bare broadcast server on Crisp's stack.

FastAPI + uvicorn with the same uvicorn settings as ``crisp serve`` (no per-message-deflate, the
same message cap and pings, no access log), and no game logic: a WebSocket at ``/ws/{room}`` joins
the room of that name, and each text message it sends is re-sent to every socket of its room (its
8 players, itself included). What the game server adds on top of this is the price of the game.

Run as ``python -m crisp.bench.load_baseline --port 0``; it prints ``http://127.0.0.1:PORT/``
when ready, as ``crisp serve`` does.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys

from fastapi import FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from crisp.server.settings import Settings


def create_app() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None)
    rooms: dict[str, list[WebSocket]] = {}

    @app.get("/healthz")
    async def healthz() -> dict[str, int]:
        return {"rooms": len(rooms)}

    @app.websocket("/ws/{code}")
    async def websocket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        peers = rooms.setdefault(code, [])
        peers.append(ws)
        try:
            while True:
                text = await ws.receive_text()
                for peer in list(peers):
                    with contextlib.suppress(Exception):
                        await peer.send_text(text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            peers.remove(ws)
            if not peers:
                rooms.pop(code, None)

    return app


def main(argv: list[str] | None = None) -> int:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m crisp.bench.load_baseline")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    settings = Settings()  # the same CRISP_* settings as the game server's
    config = uvicorn.Config(
        create_app(),
        host=args.host,
        port=args.port,
        log_level=settings.log_level,
        access_log=settings.access_log,
        # CRISP_BENCH_WS: uvicorn's WebSocket implementation (auto: websockets-sansio, as the
        # game server's guarded one; websockets; wsproto if installed), to compare them
        ws=os.environ.get("CRISP_BENCH_WS", "auto"),
        ws_max_size=settings.max_message_bytes,
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=False,
        server_header=False,
    )
    server = uvicorn.Server(config)
    original_startup = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original_startup(sockets)
        for srv in getattr(server, "servers", []):
            for sock in srv.sockets:
                port = sock.getsockname()[1]
                print(f"baseline serving on http://{args.host}:{port}/", flush=True)

    server.startup = startup  # type: ignore[method-assign]
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
