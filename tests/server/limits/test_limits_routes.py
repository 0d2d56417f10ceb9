"""Room-code limits, in the process: every route naming a room code is limited by one
dependency (``ratelimit.CodeLimit``); a non-canonical spelling of a code is redirected (308)
before the room is claimed; the client's address behind a trusted proxy is the rightmost
untrusted X-Forwarded-For entry, ``*`` is refused; IPv6 clients are counted by their /64."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, APIWebSocketRoute
from pydantic import ValidationError

from crisp.server.app import create_app
from crisp.server.limits.clientaddr import ClientAddress, Trusted, rate_key
from crisp.server.limits.ratelimit import CodeLimit
from crisp.server.settings import Settings
from crisp.server.socket.lane import WebSocketLane

CODE = "ACFHJKMNQRWX"


def app_of(tmp_path: Path, **settings: Any) -> FastAPI:
    return create_app(Settings(data_dir=tmp_path, **settings))


def call(
    app: Any,
    path: str,
    *,
    method: str = "GET",
    raw_path: bytes | None = None,
    client: str = "192.0.2.1",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request through the ASGI application (no lifespan: the routes used here do not
    need the store open): status, headers, body."""
    from urllib.parse import unquote

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path),
        "raw_path": raw_path if raw_path is not None else path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver"), *(headers or [])],
        "client": (client, 4000),
        "server": ("testserver", 80),
    }
    out: dict[str, Any] = {"body": b""}
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"{}", "more_body": False}
        await asyncio.sleep(3600)  # pragma: no cover - nothing reads twice
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            out["headers"] = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    asyncio.run(app(scope, receive, send))
    return out["status"], out["headers"], out["body"]


def _calls(dependant: Any) -> list[Any]:
    found = [dependant.call]
    for sub in dependant.dependencies:
        found += _calls(sub)
    return found


# -- every route naming a code is limited ----------------------------------------------------------


def test_every_route_naming_a_code_has_the_code_limit(tmp_path: Path) -> None:
    """Walks ``app.routes``: each route whose path has ``{code}`` depends on a ``CodeLimit``.
    The one exemption is ``/admin/``: the operator's routes (list and close rooms) are served to
    the loopback only and need the admin token, so no anonymous client reaches them, and an
    operator closing rooms must not be refused by the limits its own players spent."""
    app = app_of(tmp_path)
    coded, unlimited = [], []
    for route in app.routes:
        path = getattr(route, "path", "")
        if "{code}" not in path or path.startswith("/admin/"):
            continue
        assert isinstance(route, APIRoute | APIWebSocketRoute), path
        coded.append(path)
        if not any(isinstance(c, CodeLimit) for c in _calls(route.dependant)):
            unlimited.append(path)
    assert unlimited == [], f"routes naming a code without the code limit: {unlimited}"
    for path in ("/r/{code}", "/r/{code}/tv", "/api/rooms/{code}"):
        assert path in coded
    # /ws/{code} is no route: the WebSocket lane (memory per socket) serves it, inside
    # the client-address layer, with its own CodeLimit
    layers = [m.cls for m in app.user_middleware]
    lanes = [m for m in app.user_middleware if m.cls is WebSocketLane]
    assert len(lanes) == 1 and isinstance(lanes[0].kwargs["limit"], CodeLimit)
    assert layers.index(ClientAddress) < layers.index(WebSocketLane)  # outer to inner
    assert not any(getattr(r, "path", "").startswith("/ws/") for r in app.routes)
    assert {"/api/rooms/{code}/join", "/api/rooms/{code}/qr.svg", "/api/rooms/{code}/record"} <= {
        *coded
    }


def test_tv_page_guesses_are_refused_after_the_miss_budget(
    tmp_path: Path,
) -> None:
    """1,000 guesses on /r/CODE/tv from one address: 10 answered (the miss budget, plus one a
    minute of the real time the loop took), the rest 429 (before: every one answered, ~1,900 a
    second against a real server)."""
    import time

    app = app_of(tmp_path)
    answered = refused = 0
    start = time.monotonic()
    for i in range(1000):
        status, _, _ = call(app, f"/r/QRWXQRWX{i:04d}/tv".replace("0", "A"))
        answered += status in (200, 404)
        refused += status == 429
    elapsed = time.monotonic() - start
    print(
        f"\n/tv guesses from one address: {answered} answered, {refused} refused (429), "
        f"{1000 / elapsed:.0f} requests/s, {answered / elapsed:.2f} answered guesses/s"
    )
    assert 10 <= answered <= 10 + int(elapsed / 60) + 1 and answered + refused == 1000


def test_ipv6_clients_are_counted_by_their_slash_64(tmp_path: Path) -> None:
    """Another address of the same /64 is the same client; another /64 is not."""
    assert rate_key("2001:db8:1:2::1") == rate_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert rate_key("2001:db8:1:3::1") != rate_key("2001:db8:1:2::1")
    assert rate_key("::ffff:192.0.2.7") == rate_key("192.0.2.7") == "192.0.2.7"
    app = app_of(tmp_path)
    for i in range(10):
        assert (
            call(app, f"/r/QRWXQRWXQRW{'ACFHJKMNQR'[i]}/tv", client=f"2001:db8::{i + 1}")[0] == 404
        )
    assert call(app, "/r/QRWXQRWXQRWX/tv", client="2001:db8::ffff")[0] == 429
    assert call(app, "/r/QRWXQRWXQRWX/tv", client="2001:db8:0:1::1")[0] == 404


# -- one spelling of a code ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        (f"/r/{CODE.lower()}", None),
        (f"/r/{CODE[:4]} {CODE[4:]}/tv", f"/r/{CODE[:4]}%20{CODE[4:]}/tv".encode()),
        (f"/api/rooms/{CODE[:4]}-{CODE[4:]}", f"/api/rooms/{CODE[:4]}%2D{CODE[4:]}".encode()),
        (
            f"/api/rooms/{CODE[:4]}\t{CODE[4:]}/qr.svg",
            f"/api/rooms/{CODE[:4]}%09{CODE[4:]}/qr.svg".encode(),
        ),
        (f"/api/rooms/{CODE}/record", f"/api/rooms/%41{CODE[1:]}/record".encode()),
    ],
)
def test_a_code_spelled_otherwise_is_redirected_before_any_claim(
    tmp_path: Path, path: str, raw: bytes | None
) -> None:
    """308 to the canonical path, and the room was not claimed (``hub.find`` never called): a
    balancer hashing another spelling cannot make a node take the room."""
    app = app_of(tmp_path)
    finds: list[str] = []

    async def find(code: str) -> None:
        finds.append(code)

    app.state.hub.find = find
    status, headers, _ = call(app, path, raw_path=raw)
    assert status == 308
    canonical = path.replace(path.split("/")[3 if path.startswith("/api/") else 2], CODE)
    assert headers["location"] == canonical
    assert finds == []
    status, _, _ = call(app, canonical)
    assert status in (404, 409) and finds and set(finds) == {CODE}  # the canonical one is served


def test_a_join_spelled_otherwise_is_redirected_with_its_method(tmp_path: Path) -> None:
    status, headers, _ = call(app_of(tmp_path), f"/api/rooms/{CODE.lower()}/join", method="POST")
    assert status == 308 and headers["location"] == f"/api/rooms/{CODE}/join"


# -- the client's address behind a proxy ----------------------------------------------------------


def test_rightmost_untrusted_forwarded_entry_is_the_client() -> None:
    trusted = Trusted(["10.0.0.2", "172.30.24.0/24"])
    # Not a trusted peer: its headers are ignored.
    assert trusted.client("198.51.100.7", ["203.0.113.1"]) == "198.51.100.7"
    # HAProxy appends the address it was reached from; whatever the client wrote is left of it.
    assert trusted.client("10.0.0.2", ["1.1.1.1, 2.2.2.2", "198.51.100.7"]) == "198.51.100.7"
    # Two trusted hops (Caddy, then HAProxy): the entry left of them.
    assert trusted.client("10.0.0.2", ["6.6.6.6, 198.51.100.7, 172.30.24.2"]) == "198.51.100.7"
    assert trusted.client("10.0.0.2", ["[2001:db8::5]:443"]) == "2001:db8::5"
    assert trusted.client("10.0.0.2", ["198.51.100.7:5000"]) == "198.51.100.7"
    # Garbage, or no header: the trusted hop right of it.
    assert trusted.client("10.0.0.2", ["unknown"]) == "10.0.0.2"
    assert trusted.client("10.0.0.2", ["x" * 500 + ", 172.30.24.2"]) == "172.30.24.2"
    assert trusted.client("10.0.0.2", []) == "10.0.0.2"


def test_a_wildcard_or_a_bad_proxy_address_is_refused() -> None:
    for bad in (["*"], ["proxy.local"], ["10.0.0.0/33"]):
        with pytest.raises(ValidationError) as err:
            Settings(forwarded_allow_ips=bad)
        assert "forwarded_allow_ips" in str(err.value)
    assert Settings(forwarded_allow_ips=["10.0.0.0/24", "::1"]).forwarded_allow_ips


def test_crisp_serve_refuses_a_wildcard_proxy_in_one_line(tmp_path: Path) -> None:
    env = {"CRISP_FORWARDED_ALLOW_IPS": '["*"]', "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "crisp", "serve", "--data-dir", str(tmp_path), "--port", "0"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    print(done.stderr)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "CRISP_FORWARDED_ALLOW_IPS" in lines[0] and "'*'" in lines[0]


def test_the_middleware_sets_the_client_and_the_scheme_from_a_trusted_proxy_only() -> None:
    seen: list[dict[str, Any]] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope)

    mw = ClientAddress(inner, ["127.0.0.1"])
    headers = [(b"x-forwarded-for", b"9.9.9.9, 198.51.100.7"), (b"x-forwarded-proto", b"https")]
    for peer, ws in (("127.0.0.1", False), ("127.0.0.1", True), ("192.0.2.3", False)):
        scope = {
            "type": "websocket" if ws else "http",
            "client": (peer, 1),
            "scheme": "ws" if ws else "http",
            "headers": headers,
        }
        asyncio.run(mw(scope, None, None))
    assert [s["client"][0] for s in seen] == ["198.51.100.7", "198.51.100.7", "192.0.2.3"]
    assert [s["scheme"] for s in seen] == ["https", "wss", "http"]


def test_compose_files_trust_exactly_their_proxy() -> None:
    """compose.yaml: Crisp trusts Caddy's fixed address alone; compose.cluster.yaml: the nodes
    (one environment, shared by anchor) trust HAProxy's alone, never '*'; each address is in its
    network's fixed subnet. (Read as text: the cluster file's anchors are outside the YAML subset
    tests/ops/test_dockerfile.py parses.)"""
    import ipaddress
    import re

    from paths import ROOT

    for name, front in (("compose.yaml", "caddy"), ("compose.cluster.yaml", "haproxy")):
        text = (ROOT / name).read_text(encoding="utf-8")
        (subnet,) = re.findall(r"(?m)^        - subnet: (\S+)$", text)
        block = text.split(f"\n  {front}:\n")[1].split("\n\n")[0]
        (proxy,) = re.findall(r"ipv4_address: (\S+)", block)
        assert ipaddress.ip_address(proxy) in ipaddress.ip_network(subnet)
        (trusted,) = re.findall(r"(?m)^      CRISP_FORWARDED_ALLOW_IPS: '(.*)'$", text)
        assert json.loads(trusted) == [proxy], name
    cluster = (ROOT / "compose.cluster.yaml").read_text(encoding="utf-8")
    assert "environment: &env" in cluster and cluster.count("<<: *env") == 2
