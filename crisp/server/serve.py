"""``crisp serve``: the app on uvicorn, with the address phones on the same network can open."""

from __future__ import annotations

import contextlib
import socket
import sys

from crisp.server.settings import Settings


def lan_address() -> str | None:
    """This machine's address on its local network (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address: str = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def urls(settings: Settings, port: int) -> list[str]:
    if settings.host in ("0.0.0.0", "::", ""):
        found = [f"http://{a}:{port}/" for a in filter(None, [lan_address()])]
        return [*found, f"http://127.0.0.1:{port}/"]
    return [f"http://{settings.host}:{port}/"]


def serve(settings: Settings) -> int:
    import uvicorn

    from crisp.server.app import create_app

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings)
    from crisp.server import wire  # the limits uvicorn lacks: docs/limits.md

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=settings.access_log,
        http=wire.guarded_http(settings),  # header deadline, cap on header-pending connections
        ws=wire.guarded_ws(settings),  # ping/pong frames inside a budget
        ws_max_size=settings.max_message_bytes,
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=bool(settings.forwarded_allow_ips),
        forwarded_allow_ips=settings.forwarded_allow_ips or None,
        server_header=False,
        limit_concurrency=wire.concurrency_limit(settings),
        timeout_keep_alive=settings.http_keep_alive_s,
        backlog=settings.http_backlog,
    )
    server = uvicorn.Server(config)
    original_startup = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original_startup(sockets)
        if not server.started:
            return
        port = settings.port
        for srv in getattr(server, "servers", []):
            for sock in srv.sockets:
                port = sock.getsockname()[1]
        lines = "\n".join(f"  {u}" for u in urls(settings, port))
        print(f"Crisp is serving. Open on a phone on the same network:\n{lines}\n"
              f"Data: {settings.db_path.resolve()}", flush=True)  # fmt: skip

    server.startup = startup  # type: ignore[method-assign]
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down cleanly
        server.run()
    return 0 if server.started else 1


def main() -> int:  # pragma: no cover - python -m crisp.server.serve
    return serve(Settings())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
