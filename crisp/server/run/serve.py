"""``crisp serve``: the app on uvicorn, with the address phones on the same network can open."""

from __future__ import annotations

import contextlib
import errno
import gc
import ipaddress
import json
import logging
import os
import socket
import sqlite3
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from crisp.games import DEFAULT_GAMES
from crisp.server.http.accesslog import skip_health_checks
from crisp.server.settings import DB_FILE, Settings

if TYPE_CHECKING:
    from uvicorn import Config

ANY_ADDRESS = ("0.0.0.0", "::", "")


class StartError(Exception):
    """The server cannot start (its data directory or database is unusable): one line to show."""


def lan_address() -> str | None:
    """This machine's address on its local network (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address: str = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def loopback_only(host: str) -> bool:
    """Whether a server listening on ``host`` can be reached from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def urls(settings: Settings, port: int) -> list[str]:
    """The addresses to open: the network's first (phones can open them), this machine's last."""
    if settings.host in ANY_ADDRESS:
        found = [_url(a, port) for a in filter(None, [lan_address()])]
        return [*found, _url("127.0.0.1", port)]
    return [_url(settings.host, port)]


def banner(settings: Settings, port: int) -> str:
    """What ``crisp serve`` prints once it listens: who can open which address, and the data.
    Each address ends its line (scripts and the benchmarks read the port from it)."""
    data = f"Data: {data_location(settings)}"
    here = _url("127.0.0.1", port)
    if loopback_only(settings.host):
        return (
            f"Crisp is serving for this machine only (it listens on {settings.host}: phones "
            f"cannot open it):\n  {_url(settings.host, port)}\n"
            "To let phones on the same network in, start it with --host 0.0.0.0 "
            "(or CRISP_HOST=0.0.0.0).\n" + data
        )
    if settings.host not in ANY_ADDRESS:
        return (
            f"Crisp is serving. Phones that can reach {settings.host} open:\n"
            f"  {_url(settings.host, port)}\n" + data
        )
    found = urls(settings, port)[:-1]
    if not found:
        return (
            f"Crisp is serving on every network interface, on port {port}, but this machine has "
            "no network address now: phones cannot reach it until it joins a network.\n"
            f"On this machine: {here}\n" + data
        )
    lines = "\n".join(f"  {u}" for u in found)
    return (
        f"Crisp is serving. Open on a phone on the same network:\n{lines}\n"
        f"On this machine: {here}\n" + data
    )


def data_location(settings: Settings) -> str:
    """Where the rooms are kept, to print (a database URL without its password)."""
    if not settings.database_url:
        return str(settings.db_path.resolve())
    parts = urlsplit(settings.database_url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    workers = f", {settings.workers} workers behind HAProxy" if settings.workers > 1 else ""
    return f"PostgreSQL {host}{port}{parts.path} (node {settings.node_id or 'auto'}{workers})"


def check_data_dir(path: Path) -> None:
    """Make the data directory if needed (mode 0700, whatever the umask: the database holds every
    running game's server seed, hence its deck) and prove it writable, or raise ``StartError``.
    A directory that exists already and that every account can read is refused (its seeds would
    be readable), unless it is this server's own from an older version
    (``_made_by_an_older_server``): that one is made private, and a line on stderr says so."""
    if path.exists() and not path.is_dir():
        raise StartError(f"the data directory {path} is a file, not a directory")
    if path.is_dir():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o007 and _made_by_an_older_server(path):
            os.chmod(path, 0o700)
            print(
                f"crisp serve: made the data directory {path} private (mode {mode:04o} -> 0700): "
                "it holds this server's database",
                file=sys.stderr,
            )
        elif mode & 0o007:
            raise StartError(
                f"the data directory {path} can be read by every account on this machine "
                f"(mode {mode:04o}); make it private with: chmod 700 {path}"
            )
    else:
        try:
            path.mkdir(mode=0o700, parents=True)  # the parents: the umask's mode
            os.chmod(path, 0o700)  # mkdir's mode is masked by the umask
        except OSError as err:
            if path.is_dir():  # made by another process meanwhile: checked as it is
                return check_data_dir(path)
            raise StartError(f"cannot create the data directory {path}: {_reason(err)}") from err
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".crisp-probe-") as probe:
            probe.write(b"crisp")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as err:
        raise StartError(f"cannot write in the data directory {path}: {_reason(err)}") from err


def _made_by_an_older_server(path: Path) -> bool:
    """A directory this account owns that holds the database (``DB_FILE``, owned by it too):
    made by a version of this server that left it world-readable, so tightening it is safe."""
    db = path / DB_FILE
    uid = os.getuid()
    return path.stat().st_uid == uid and db.is_file() and db.stat().st_uid == uid


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def check_games(settings: Settings) -> None:
    """The games of ``CRISP_GAMES`` can be loaded, or ``StartError`` naming the variable."""
    from crisp.server.registry import Registry

    try:
        Registry.load(settings.games)
    except (ImportError, AttributeError, ValueError, TypeError) as err:
        raise StartError(
            f"CRISP_GAMES: {err} (the default: {json.dumps(list(DEFAULT_GAMES))})"
        ) from None


def listen(settings: Settings) -> socket.socket:
    """The listening socket of ``--host``/``--port`` (bound as uvicorn binds it), or
    ``StartError`` in one line: the port in use, a port that needs privileges, an unknown host."""
    host, port = settings.host, settings.port
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except socket.gaierror as err:
        sock.close()
        raise StartError(
            f"--host {host} (CRISP_HOST): not an address or a name this machine resolves "
            f"({err.strerror}); "
            "0.0.0.0 listens on every network, 127.0.0.1 on this machine only"
        ) from None
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            why = (
                f"port {port} is in use on {host} (another server?): "
                "choose another with --port (CRISP_PORT)"
            )
        elif err.errno == errno.EACCES:
            why = (
                f"port {port} needs privileges this user lacks (ports below 1024): choose "
                "one from 1024 with --port, e.g. 8000, and a proxy in front (docs: Caddy)"
            )
        elif err.errno == errno.EADDRNOTAVAIL:
            why = f"--host {host} (CRISP_HOST) is not an address of this machine"
        else:
            why = f"cannot listen on {host} port {port}: {_reason(err)}"
        raise StartError(why) from None
    sock.set_inheritable(True)
    return sock


def uvicorn_config(settings: Settings, app: Any) -> Config:
    """uvicorn's ``Config`` for ``app``: our protocols (crisp/server/socket), limits and logs."""
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from crisp.server.observe import logs
    from crisp.server.socket.files import concurrency_limit
    from crisp.server.socket.httpguard import guarded_http
    from crisp.server.socket.websocket import websocket_protocol

    json_logs = settings.log_format == "json"
    return uvicorn.Config(
        app,
        log_config=logs.json_config(settings.log_level) if json_logs else LOGGING_CONFIG,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=settings.access_log,
        http=guarded_http(settings),  # header deadline, cap on header-pending connections
        ws=websocket_protocol(settings),  # its size cap, pings and control budget: settings
        proxy_headers=False,  # ClientAddress (limits/clientaddr.py) reads X-Forwarded-For
        server_header=False,
        limit_concurrency=concurrency_limit(settings),
        timeout_keep_alive=settings.http_keep_alive_s,
        backlog=settings.http_backlog,
    )


def serve(settings: Settings) -> int:
    check_games(settings)
    from crisp.server.socket.files import raise_file_limit

    raise_file_limit()  # a socket is a file: the usual 1,024 would hold about 120 rooms
    if settings.workers > 1:
        from crisp.server.run.workers import Workers, WorkersError

        try:
            workers = Workers(settings)
            return workers.run(banner(settings, workers.port))
        except WorkersError as err:
            raise StartError(str(err)) from err
    import uvicorn

    from crisp.server.app import create_app

    # the tail at 1,000 rooms (docs/performance.md): full collections walk every socket's objects
    gc.set_threshold(*(int(n) for n in settings.gc_thresholds.split(",")))

    if settings.database_url:
        import psycopg

        try:
            app = create_app(settings)
        except psycopg.Error as err:
            raise StartError(f"cannot use the PostgreSQL database: {err}".strip()) from err
    else:
        check_data_dir(settings.data_dir)
        try:
            app = create_app(settings)
        except (sqlite3.Error, OSError) as err:
            raise StartError(
                f"cannot open the database {settings.db_path}: {err} "
                "(is its disk full or read-only?)"
            ) from err
    config = uvicorn_config(settings, app)  # configures the log: the line below uses it
    from crisp.server.run.untested import untested_here, warn_if_untested

    warn_if_untested(logging.getLogger("crisp.server"), untested_here())
    if not settings.access_log_healthz:
        skip_health_checks()
    sock = listen(settings)
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
        if settings.log_format == "json":  # one JSON line too
            logging.getLogger("crisp.server").info("%s", banner(settings, port))
        else:
            print(banner(settings, port), flush=True)

    server.startup = startup  # type: ignore[method-assign]
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down cleanly
        server.run(sockets=[sock])
    return 0 if server.started else 1


def main() -> int:  # pragma: no cover - python -m crisp.server.run.serve
    try:
        return serve(Settings())
    except StartError as err:
        print(f"crisp serve: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
