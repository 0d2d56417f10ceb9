"""``crisp rooms list`` and ``crisp rooms close CODE``: against a running server, through its
admin routes (``crisp/server/http/admin.py``: loopback, the token of ``DATA_DIR/admin.token``),
so that a room is changed only by its server's own pipeline; with no server running on the data
directory, from its SQLite file (listing read-only; closing under the lock a restore takes, so no
server opens the file meanwhile)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from crisp.server.http.admin import TOKEN_FILE
from crisp.server.store.backup import DB_FILE, AdminError, no_server
from crisp.server.store.migrations import check_sqlite
from crisp.server.store.sqlite import in_use
from crisp.server.wire.roomcode import normalize_code

COLUMNS = ("code", "game", "phase", "seats", "members", "age")


def _token(data_dir: Path) -> str:
    path = data_dir / TOKEN_FILE
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise AdminError(f"no {path}: is the server running, with --data-dir {data_dir}?") from None
    except OSError as err:
        raise AdminError(f"cannot read {path}: {err.strerror}") from None


def _call(url: str, data_dir: Path, method: str, path: str) -> Any:
    request = urllib.request.Request(
        url.rstrip("/") + path,
        method=method,
        headers={"Authorization": f"Bearer {_token(data_dir)}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as err:
        detail = None
        with contextlib.suppress(Exception):
            detail = json.loads(err.read()).get("error")
        if err.code == 404 and detail not in (None, "Not Found"):
            raise AdminError(str(detail)) from None
        if err.code == 404:
            raise AdminError(
                f"{url} refused the admin token of {data_dir} (another server's data "
                "directory, or not from this machine)"
            ) from None
        raise AdminError(f"{url} answered {err.code}: {err.reason}") from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise AdminError(f"cannot reach the server at {url}: {reason}") from None


def _offline(data_dir: Path) -> sqlite3.Connection:
    path = data_dir / DB_FILE
    if not path.is_file():
        raise AdminError(f"there is no database in {data_dir} (no {DB_FILE})")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        check_sqlite(db, str(path))
    except Exception as err:
        raise AdminError(f"cannot read {path}: {err}") from None
    return db


def list_rooms(data_dir: Path, url: str | None) -> list[dict[str, Any]]:
    """Every room: from the server at ``url`` if given or if one runs on ``data_dir`` (at the
    default URL), else read from the database file."""
    if url is not None or in_use(data_dir):
        rows: list[dict[str, Any]] = _call(url or default_url(), data_dir, "GET", "/admin/rooms")[
            "rooms"
        ]
        return rows
    now = time.time()
    db = _offline(data_dir)
    try:
        rows = []
        for code, text, updated in db.execute("SELECT code, state, updated FROM rooms"):
            state = json.loads(text)
            seats = state.get("seats") or []
            rows.append(
                {
                    "code": code,
                    "game": state.get("game_type", "crisp"),
                    "phase": state.get("phase", "?"),
                    "seats": len(seats) if state.get("phase") != "lobby" else None,
                    "members": len(state.get("members", [])),
                    "age_s": round(max(0.0, now - float(state.get("created", now))), 1),
                    "idle_s": round(max(0.0, now - float(updated)), 1),
                }
            )
    finally:
        db.close()
    return sorted(rows, key=lambda r: r["age_s"], reverse=True)


def close_room(code: str, data_dir: Path, url: str | None) -> str:
    """Close the room ``code``: its phones are closed with 4405, it is gone. One line."""
    code = normalize_code(code)
    if url is not None or in_use(data_dir):
        done = _call(url or default_url(), data_dir, "POST", f"/admin/rooms/{code}/close")
        return f"closed room {done['closed']} ({done['connections']} connections closed)"
    _offline(data_dir).close()
    with no_server(data_dir):
        db = sqlite3.connect(data_dir / DB_FILE, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            gone = db.execute("DELETE FROM rooms WHERE code = ?", (code,)).rowcount
            db.execute("DELETE FROM log WHERE code = ?", (code,))
            db.execute("COMMIT")
        finally:
            db.close()
    if not gone:
        raise AdminError(f"no room {code} in {data_dir / DB_FILE}")
    return f"closed room {code} (no server was running: removed from {data_dir / DB_FILE})"


def default_url() -> str:
    return f"http://127.0.0.1:{os.environ.get('CRISP_PORT', '8000')}"


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m"
    if seconds < 172800:
        return f"{seconds / 3600:.0f}h"
    return f"{seconds / 86400:.0f}d"


def _aligned(values: list[str], widths: list[int]) -> str:
    """One line of the table: each value padded to its column's width, two spaces between."""
    return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()


def table(rows: list[dict[str, Any]]) -> str:
    """The rooms as aligned columns (code, game, phase, seats, members, age)."""
    lines = [list(c.upper() for c in COLUMNS)]
    for r in rows:
        seats = "-" if r.get("seats") is None else str(r["seats"])
        lines.append([r["code"], r["game"], r["phase"], seats, str(r["members"]), _age(r["age_s"])])
    widths = [max(len(line[i]) for line in lines) for i in range(len(COLUMNS))]
    text = [_aligned(line, widths) for line in lines]
    text.append(f"{len(rows)} rooms")
    return "\n".join(text)
