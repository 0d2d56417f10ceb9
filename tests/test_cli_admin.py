"""The operator's tools (a backup, a way to list or close rooms, a schema version):
``crisp backup`` of a running server, ``crisp restore`` (refused while a server runs), ``crisp
rooms list`` and ``crisp rooms close`` through the admin routes (loopback and the admin token
only), and ``crisp serve`` refusing a database newer than it knows, each in one line."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from crisp_cmd import crisp
from paths import TESTS
from serverproc import ServerProcess
from wsclient import Client

from crisp.server.app import create_app
from crisp.server.settings import Settings
from crisp.server.store.migrations import SCHEMA_VERSION
from crisp.server.wire.closecodes import CloseCode

OLD = TESTS / "fixtures" / "v60d8d72"


def one_line(done: Any) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return str(lines[0])


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def rooms_of(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {code for (code,) in db.execute("SELECT code FROM rooms")}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    data = tmp_path / "data"
    srv = ServerProcess(data).start()
    try:
        yield srv
    finally:
        srv.stop()


def test_backup_of_a_running_server_is_a_checked_private_copy(
    server: ServerProcess, tmp_path: Path
) -> None:
    """The copy holds every room, passes integrity_check, is 0600 and one file
    (no WAL); the line says how many rooms and bytes; an existing file is kept unless --force."""
    codes = {server.create_room(f"P{i}")["code"] for i in range(3)}
    target = tmp_path / "backup.sqlite3"
    done = crisp("backup", str(target), "--data-dir", str(server.data_dir))
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("backed up 3 rooms (") and f"to {target}" in line, line
    assert f"{target.stat().st_size} bytes" in line and f"version {SCHEMA_VERSION}" in line
    assert mode(target) == 0o600
    assert rooms_of(target) == codes
    with sqlite3.connect(target) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not target.with_name(target.name + "-wal").exists()
    server.create_room("Late")
    again = crisp("backup", str(target), "--data-dir", str(server.data_dir))
    assert "exists" in one_line(again) and "--force" in one_line(again)
    assert rooms_of(target) == codes  # untouched
    forced = crisp("backup", str(target), "--data-dir", str(server.data_dir), "--force")
    assert forced.returncode == 0 and forced.stdout.startswith("backed up 4 rooms")
    assert mode(target) == 0o600


@pytest.mark.parametrize(
    ("target", "data", "says"),
    [
        ("{tmp}/nodir/b.sqlite3", "{data}", "there is no directory"),
        ("{tmp}", "{data}", "is a directory"),
        ("{tmp}/b.sqlite3", "{tmp}/nothere", "there is no data directory"),
        ("{tmp}/b.sqlite3", "{tmp}", "there is no database"),
    ],
)
def test_backup_bad_paths_one_line_exit_2(
    tmp_path: Path, target: str, data: str, says: str
) -> None:
    """A bad target or data directory is one line and exit 2, nothing written."""
    (tmp_path / "data").mkdir()
    shutil.copy(OLD / "crisp.sqlite3", tmp_path / "data" / "crisp.sqlite3")
    fill = {"tmp": str(tmp_path), "data": str(tmp_path / "data")}
    done = crisp("backup", target.format(**fill), "--data-dir", data.format(**fill))
    assert says in one_line(done)
    assert not (tmp_path / "b.sqlite3").exists()


def test_restore_is_refused_while_a_server_runs_then_puts_the_backup_back(
    server: ServerProcess, tmp_path: Path
) -> None:
    """While the server holds the data directory, restore is one line and exit 2
    (nothing changed); stopped, the backup goes back (0600), the replaced database is kept as
    crisp.sqlite3.before-restore (with its WAL), and the next server serves the backup's rooms."""
    kept = server.create_room("Kept")["code"]
    target = tmp_path / "backup.sqlite3"
    assert crisp("backup", str(target), "--data-dir", str(server.data_dir)).returncode == 0
    lost = server.create_room("After")["code"]
    refused = crisp("restore", str(target), "--data-dir", str(server.data_dir))
    assert "a Crisp server is running" in one_line(refused)
    server.kill()  # SIGKILL: its last commits are in the WAL, which is kept with it
    done = crisp("restore", str(target), "--data-dir", str(server.data_dir))
    assert done.returncode == 0, done.stderr
    assert "restored 1 rooms" in done.stdout and "before-restore" in done.stdout
    db = server.data_dir / "crisp.sqlite3"
    before = server.data_dir / "crisp.sqlite3.before-restore"
    assert mode(db) == 0o600 and mode(before) == 0o600
    assert rooms_of(db) == {kept}
    assert rooms_of(before) == {kept, lost}
    again = ServerProcess(server.data_dir).start()
    try:
        assert again.request("GET", f"/api/rooms/{kept}")[0] == 200
        assert again.request("GET", f"/api/rooms/{lost}")[0] == 404
    finally:
        again.stop()


def test_restore_checks_the_file_first(tmp_path: Path) -> None:
    """Not SQLite, SQLite but not Crisp's, or a newer schema: one line, exit 2, the
    data directory untouched; a 60d8d72 database is accepted (the server migrates it)."""
    data = tmp_path / "data"
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database" * 100)
    assert "not" in one_line(crisp("restore", str(junk), "--data-dir", str(data)))
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    assert "not Crisp's" in one_line(crisp("restore", str(other), "--data-dir", str(data)))
    newer = tmp_path / "newer.sqlite3"
    shutil.copy(OLD / "crisp.sqlite3", newer)
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    assert "newer than this release" in one_line(
        crisp("restore", str(newer), "--data-dir", str(data))
    )
    assert not (data / "crisp.sqlite3").exists()
    missing = crisp("restore", str(tmp_path / "none"), "--data-dir", str(data))
    assert "is not a file" in one_line(missing)
    old = crisp("restore", str(OLD / "crisp.sqlite3"), "--data-dir", str(data))
    assert old.returncode == 0 and "migrates it" in old.stdout, old.stderr
    assert mode(data) == 0o700 and mode(data / "crisp.sqlite3") == 0o600


def test_serve_refuses_a_database_newer_than_it_knows_in_one_line(tmp_path: Path) -> None:
    """A newer schema version is refused at start, one line naming it, exit 2."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shutil.copy(OLD / "crisp.sqlite3", data / "crisp.sqlite3")
    with sqlite3.connect(data / "crisp.sqlite3") as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    done = crisp("serve", "--data-dir", str(data), "--port", "0", "--host", "127.0.0.1")
    line = one_line(done)
    assert line.startswith("crisp serve: the database ") and "newer than this release" in line


def test_rooms_list_and_close_a_running_server(server: ServerProcess) -> None:
    """List shows every room (code, game, phase, seats, members, age); close
    closes the room's sockets with 4405 (ROOM_CLOSED) and the room is gone (404)."""
    host = server.create_room("Ann")
    code = host["code"]
    server.join(code, "Bob")
    other = server.create_room("Cy")["code"]
    data = str(server.data_dir)
    listed = crisp("rooms", "list", "--data-dir", data, "--url", server.base)
    assert listed.returncode == 0, listed.stderr
    header, *rows, total = listed.stdout.strip().splitlines()
    assert header.split() == ["CODE", "GAME", "PHASE", "SEATS", "MEMBERS", "AGE"]
    assert total == "2 rooms"
    assert {r.split()[0] for r in rows} == {code, other}
    row = next(r.split() for r in rows if r.startswith(code))
    assert row[1:5] == ["crisp", "lobby", "2", "2"]
    rows_json = json.loads(
        crisp("rooms", "list", "--json", "--data-dir", data, "--url", server.base).stdout
    )
    assert {r["code"] for r in rows_json} == {code, other}

    async def phone() -> int | None:
        ann = await Client(server, code, host["token"], "Ann").connect()
        closed = await asyncio.to_thread(
            crisp, "rooms", "close", code.lower(), "--data-dir", data, "--url", server.base
        )
        assert closed.returncode == 0, closed.stderr
        assert closed.stdout.strip() == f"closed room {code} (1 connections closed)"
        await asyncio.wait_for(ann.closed.wait(), 10)
        return ann.close_code

    assert asyncio.run(phone()) == CloseCode.ROOM_CLOSED == 4405
    assert server.request("GET", f"/api/rooms/{code}")[0] == 404
    assert server.request("GET", f"/api/rooms/{other}")[0] == 200
    gone = crisp("rooms", "close", code, "--data-dir", data, "--url", server.base)
    assert f"no room {code}" in one_line(gone)
    assert rooms_of(server.data_dir / "crisp.sqlite3") == {other}


def test_rooms_list_and_close_without_a_server_read_the_database(tmp_path: Path) -> None:
    """No server on the data directory: list reads the file; close removes the
    room under the restore lock."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shutil.copy(OLD / "crisp.sqlite3", data / "crisp.sqlite3")
    codes = json.loads((OLD / "rooms.json").read_text())
    listed = crisp("rooms", "list", "--json", "--data-dir", str(data))
    assert listed.returncode == 0, listed.stderr
    rows = {r["code"]: r for r in json.loads(listed.stdout)}
    assert set(rows) == {r["code"] for r in codes.values()}
    crisps = rows[codes["crisps_playing"]["code"]]
    assert (crisps["game"], crisps["phase"], crisps["seats"]) == ("crisps", "playing", 2)
    lobby = codes["lobby"]["code"]
    done = crisp("rooms", "close", lobby, "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert lobby not in rooms_of(data / "crisp.sqlite3")
    assert "no room" in one_line(crisp("rooms", "close", lobby, "--data-dir", str(data)))


def test_rooms_without_the_token_or_a_server_one_line(tmp_path: Path) -> None:
    """No admin.token, or no server at the URL: one line, exit 2."""
    data = tmp_path / "data"
    data.mkdir()
    no_token = crisp("rooms", "list", "--data-dir", str(data), "--url", "http://127.0.0.1:9")
    assert "admin.token" in one_line(no_token)
    (data / "admin.token").write_text("x" * 43)
    unreachable = crisp("rooms", "list", "--data-dir", str(data), "--url", "http://127.0.0.1:9")
    assert "cannot reach the server" in one_line(unreachable)


# -- the admin routes ------------------------------------------------------------------------


def admin_call(
    app: Any, path: str, headers: dict[str, str], client: tuple[str, int], method: str = "GET"
) -> int:
    """One request straight into the ASGI app, from the TCP peer ``client``: its status."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": client,
        "server": ("127.0.0.1", 8000),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status: int = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status


def test_admin_routes_answer_only_loopback_with_the_token(tmp_path: Path) -> None:
    """/admin/ answers 404 without the token, with a wrong one, to a peer that is
    not loopback, or to a request that came through a proxy (a forwarding header); the token
    file is 0600 and kept across a restart (workers of one data directory share it)."""
    data = tmp_path / "data"
    app = create_app(Settings(data_dir=data))
    from crisp.server.http import admin

    admin.start(app, app.state.settings)
    token_file = data / "admin.token"
    assert mode(token_file) == 0o600
    token = token_file.read_text().strip()
    good = {"Authorization": f"Bearer {token}"}
    here = ("127.0.0.1", 5000)
    assert admin_call(app, "/admin/rooms", good, here) == 200
    assert admin_call(app, "/admin/rooms", good, ("::1", 5000)) == 200
    assert admin_call(app, "/admin/rooms", {}, here) == 404
    assert admin_call(app, "/admin/rooms", {"Authorization": "Bearer nope"}, here) == 404
    assert admin_call(app, "/admin/rooms", good, ("192.0.2.7", 5000)) == 404
    for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
        assert admin_call(app, "/admin/rooms", {**good, header: "127.0.0.1"}, here) == 404
    assert admin_call(app, "/admin/rooms/ABCDEFGHJKLM/close", {}, here, "POST") == 404
    assert admin.write_token(data) == token
    os.chmod(token_file, 0o644)  # made readable by others: not trusted, a new one is written
    assert admin.write_token(data) != token
    assert mode(token_file) == 0o600


# -- deploy/crisp.service --------------------------------------------------------------------

UNIT = TESTS.parent / "deploy" / "crisp.service"


def unit_lines() -> list[tuple[str, str, str]]:
    """(section, key, value) of every setting of the unit, in order (keys may repeat)."""
    found, section = [], ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.append((section, key, value))
    return found


def test_the_systemd_unit_is_hardened_and_runs_a_serve_crisp_accepts(tmp_path: Path) -> None:
    """The systemd unit (a deployment without Docker): its own user, StateDirectory as the data
    directory, the hardening keys, bound to 127.0.0.1 behind Caddy; its ExecStart is a command
    line crisp serve accepts and its Environment= settings are valid; systemd-analyze verify
    passes when systemd is installed (with ExecStart pointed at this checkout's crisp)."""
    import shlex
    import subprocess
    import sys

    from crisp.cli import build_parser

    lines = unit_lines()
    service = {k: v for s, k, v in lines if s == "Service"}
    assert service["User"] == "crisp" and service["StateDirectory"] == "crisp"
    expected = {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "CapabilityBoundingSet": "",
        "Restart": "on-failure",
    }
    assert {k: service[k] for k in expected} == expected
    assert service["RestrictAddressFamilies"].split() == ["AF_INET", "AF_INET6", "AF_UNIX"]
    assert ("Service", "SystemCallFilter", "@system-service") in lines
    # systemd splits an Environment= value into words as a shell does, quotes removed: a JSON
    # list's double quotes survive only inside single quotes
    env = dict(
        word.split("=", 1)
        for s, k, v in lines
        if s == "Service" and k == "Environment"
        for word in shlex.split(v)
    )
    assert env["CRISP_DATA_DIR"] == "/var/lib/crisp"
    argv = shlex.split(service["ExecStart"])
    assert argv[0].endswith("/crisp")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve" and args.host == "127.0.0.1" and args.port == 8000
    assert args.data_dir == env["CRISP_DATA_DIR"]
    settings = Settings(
        **{k: getattr(args, k) for k in ("host", "port", "data_dir")},
        forwarded_allow_ips=json.loads(env["CRISP_FORWARDED_ALLOW_IPS"]),
    )
    assert settings.forwarded_allow_ips == ["127.0.0.1"]
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    here = Path(sys.executable).parent / "crisp"
    copy = tmp_path / "crisp.service"
    copy.write_text(UNIT.read_text().replace(argv[0], str(here)))
    done = subprocess.run(
        [analyze, "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
