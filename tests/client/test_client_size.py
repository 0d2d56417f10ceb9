"""The phone client stays light: the first load of a room link, as served (gzip), under 100 KB
(HTML, CSS, JS, icons: everything), no CDN, no build step; and the pages a phone needs exist."""

from __future__ import annotations

import gzip
import os
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT
from serverproc import ServerProcess

STATIC = ROOT / "crisp" / "static"
BUDGET = 100 * 1024
IMPORT = re.compile(r"""^(?:import|export)\s.*?from\s+["'](\.\.?/[^"']+)["']""", re.M)
# app.js loads the rest of the shell with dynamic imports (its WebSocket opens meanwhile).
DYNAMIC = re.compile(r"""\bimport\(["'](\.\.?/[^"']+)["']\)""")
# The table module of the first screen's game, loaded by the shell with a dynamic import.
FIRST_GAME = "games/crisp/index.js"
OPTIONAL = {"games/crisp/cardart.js", "games/crisp/fairness.js"}  # loaded when needed, if there


def _modules(entry: str) -> list[str]:
    """``entry`` and every module it imports statically, as /static paths."""
    seen: list[str] = []
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen or (name in OPTIONAL and not (STATIC / name).exists()):
            continue  # (an optional module that is not there: the client imports it guarded)
        seen.append(name)
        text = (STATIC / name).read_text(encoding="utf-8")
        base = Path(name).parent
        found = IMPORT.findall(text) + (DYNAMIC.findall(text) if name == "app.js" else [])
        todo += [os.path.normpath((base / m).as_posix()) for m in found]
    return [f"/static/{n}" for n in seen]


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()


@pytest.fixture(scope="module")
def server(tmp_path_factory: Any) -> Any:
    with ServerProcess(tmp_path_factory.mktemp("size")) as srv:
        yield srv


def test_first_load_of_a_room_link_is_under_100_kb_compressed(server: ServerProcess) -> None:
    """Everything a phone fetches to open a room link and see the lobby (the
    page, its CSS, every module, the English catalogue, the manifest, the icons and the room's QR
    code), measured as served with gzip: under 100 KB. Prints the breakdown."""
    code = server.create_room("Ana")["code"]
    modules = dict.fromkeys(_modules("app.js") + _modules(FIRST_GAME))
    paths = [
        f"/r/{code}",
        "/static/style.css",
        *modules,
        "/manifest.webmanifest",
        "/static/icons/icon.svg",
        "/static/icons/icon-192.png",
        f"/api/rooms/{code}/qr.svg",
    ]
    total = 0
    lines = []
    for path in paths:
        status, headers, body = _get(server.base + path)
        assert status == 200, path
        assert "//cdn" not in body.decode("latin-1"), path
        size = len(body)
        gzipped = headers.get("content-encoding") == "gzip"
        raw = len(gzip.decompress(body)) if gzipped else size
        total += size
        lines.append(f"{path:40} {raw:7} B raw {size:7} B sent")
    print("\n".join([*lines, f"{'total':40} {total:7} B sent (budget {BUDGET})"]))
    assert total < BUDGET


def test_text_assets_are_served_compressed(server: ServerProcess) -> None:
    """The CSS and the largest module go out gzip-compressed (the budget counts what is sent)."""
    for path in ("/static/style.css", "/static/games/crisp/table.js"):
        _, headers, _ = _get(server.base + path)
        assert headers.get("content-encoding") == "gzip", path


def test_the_page_shell_is_a_phone_page(server: ServerProcess) -> None:
    """No ``user-scalable=no`` nor a maximum scale; a manifest and icons for the home screen; one
    module entry point and no external script."""
    _, _, body = _get(server.base + "/")
    page = gzip.decompress(body).decode() if body[:2] == b"\x1f\x8b" else body.decode()
    viewport = re.search(r'<meta name="viewport" content="([^"]+)"', page)
    assert viewport is not None
    assert "user-scalable" not in viewport.group(1)
    assert "maximum-scale" not in viewport.group(1)
    assert 'rel="manifest"' in page
    assert re.findall(r"<script[^>]*src=\"([^\"]+)\"", page) == ["/static/app.js"]
    assert "http://" not in page
    assert "https://" not in page


def test_the_tv_view_is_the_same_page(server: ServerProcess) -> None:
    """The shared screen: /r/CODE/tv serves the client's page (which connects as a watcher); 404
    for a room that does not exist."""
    code = server.create_room("Ana")["code"]
    status, _, body = _get(f"{server.base}/r/{code}/tv")
    page = gzip.decompress(body).decode() if body[:2] == b"\x1f\x8b" else body.decode()
    assert status == 200
    assert '<script type="module" src="/static/app.js"></script>' in page
    try:
        _get(f"{server.base}/r/AAAAA/tv")
        raise AssertionError("a TV view of no room")
    except urllib.error.HTTPError as err:
        assert err.code == 404
