"""The client's address behind a proxy, with the real proxies: Debian's Caddy (the shipped
deploy/Caddyfile) and HAProxy (the shipped crisp/server/run/balancer.py configuration) in front
of a real ``crisp serve`` on 127.0.0.1, trusting exactly the proxy (its address here: 127.0.0.1).
Clients come from distinct loopback addresses (127.0.0.x). One client's misses never refuse
another's lookups, and a forged X-Forwarded-For gains nothing: its guesses and room creations
are counted to its own address, and naming the victim's address does not spend the victim's
budget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from caddyproc import Caddy, caddy_bin
from haproxyproc import HAProxy
from limitprobe import NO_EXEMPT, http
from serverproc import ServerProcess

from crisp.server.run.balancer import haproxy_bin

VICTIM, ATTACKER = "127.0.0.21", "127.0.0.20"
GUESSES = 30
# The proxy's address as the server is told it (compose.yaml: Caddy's fixed address;
# compose.cluster.yaml and --workers: HAProxy's). Here both connect from 127.0.0.1.
TRUST = {"caddy": '["127.0.0.1"]', "haproxy": '["127.0.0.1"]'}


def attack(front: Any) -> dict[str, int]:
    """The victim makes a room; the attacker guesses codes (each with a forged X-Forwarded-For,
    every other one naming the victim) and tries 10 room creations under forged addresses; the
    victim looks its room up after every third guess. The counts of each outcome."""
    status, _, made = http(front, "POST", "/api/rooms", {"name": "Vic"}, src=VICTIM)
    assert status == 201, made
    code = made["code"]
    got = {"victim_lookups": 0, "victim_refused": 0, "guesses_refused": 0, "rooms_made": 0}
    for i in range(GUESSES):
        forged = VICTIM if i % 2 else f"10.9.{i}.1"
        path = f"/api/rooms/QRWXQRWXQRW{'ACFHJKMNQRWXY'[i % 13]}"
        path = path[:-2] + "ACFHJKMNQRWXY"[i // 13] + path[-1]
        status = http(front, "GET", path, src=ATTACKER, headers={"X-Forwarded-For": forged})[0]
        assert status in (404, 429)
        got["guesses_refused"] += status == 429
        if i % 3 == 2:
            status = http(front, "GET", f"/api/rooms/{code}", src=VICTIM)[0]
            assert status in (200, 429)
            got["victim_lookups"] += 1
            got["victim_refused"] += status == 429
    for i in range(10):
        headers = {"X-Forwarded-For": f"10.8.{i}.1"}
        made = http(front, "POST", "/api/rooms", {"name": f"A{i}"}, src=ATTACKER, headers=headers)
        got["rooms_made"] += made[0] == 201
    return got


def attack_counts(front: Any) -> dict[str, int]:
    got = attack(front)
    print(f"\n{type(front).__name__}: {got}")
    return got


def check(got: dict[str, int]) -> None:
    assert got["victim_refused"] == 0, got  # another client's misses never refuse the victim
    assert got["guesses_refused"] == GUESSES - 10, got  # the attacker's own miss budget: 10
    assert got["rooms_made"] <= 5, got  # the attacker's own creation burst, whatever it forges


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    env = {**NO_EXEMPT, "CRISP_FORWARDED_ALLOW_IPS": TRUST[request.param]}
    with ServerProcess(tmp_path, env=env) as srv:
        yield srv


@pytest.mark.skipif(caddy_bin() is None, reason="Caddy is not installed (apt-get install caddy)")
@pytest.mark.parametrize("server", ["caddy"], indirect=True)
def test_behind_caddy_one_clients_misses_never_refuse_another(
    server: ServerProcess,
) -> None:
    with Caddy(server.port) as caddy:
        check(attack_counts(caddy))


@pytest.mark.skipif(haproxy_bin() is None, reason="HAProxy is not installed")
@pytest.mark.parametrize("server", ["haproxy"], indirect=True)
def test_behind_haproxy_a_forged_forwarded_for_gains_nothing(
    server: ServerProcess,
) -> None:
    proxy = HAProxy([server.port]).start(up=1)
    try:
        check(attack_counts(proxy))
    finally:
        proxy.stop()


def _spellings(code: str) -> list[str]:
    """Seven other spellings of ``code`` in paths, as a client may send them (raw)."""
    a, b = code[:4], code[4:]
    return [
        f"/r/{code.lower()}",
        f"/r/{a}%20{b}",
        f"/r/{a}%2D{b}/tv",
        f"/api/rooms/{a}%09{b}",
        f"/api/rooms/%{ord(code[0]):02X}{code[1:]}",
        f"/api/rooms/{a}-{b}/qr.svg",
        f"/r/{code[:6].lower()}{code[6:]}/tv",
    ]


@pytest.mark.skipif(haproxy_bin() is None, reason="HAProxy is not installed")
def test_other_spellings_of_a_code_never_move_its_room(pg_server: Any, tmp_path: Path) -> None:
    """Two nodes behind the shipped HAProxy configuration: seven GETs spelling a room's code
    otherwise are each answered 308 to the canonical path, by the node that owns the room (HAProxy
    hashes the decoded code), and the room stays where it is (before: 7 such GETs moved a room 8
    times). Not followed: the redirect itself must not claim."""
    from http.client import HTTPConnection

    from cluster import Cluster

    cluster = Cluster(tmp_path, pg_server, 2, 1.0).start()
    try:
        status, made = cluster.lb.request("POST", "/api/rooms", {"name": "Ana"})
        assert status == 201, made
        code = made["code"]
        # The room was made on any node: a canonical lookup settles it on its code's node.
        import time

        deadline = time.monotonic() + 30
        while cluster.lb.request("GET", f"/api/rooms/{code}")[0] != 200:
            assert time.monotonic() < deadline, "the room never settled on its node"
            time.sleep(0.5)
        owner, epochs = cluster.owners()[code], cluster.log_epochs(code)
        answers = []
        for path in _spellings(code):
            conn = HTTPConnection("127.0.0.1", cluster.haproxy.port, timeout=15)
            try:
                conn.request("GET", path)
                resp = conn.getresponse()
                resp.read()
                answers.append((resp.status, resp.getheader("location") or ""))
            finally:
                conn.close()
        assert all(s == 308 and code in loc for s, loc in answers), answers
        # A WebSocket is served under any spelling: HAProxy must send it to the owner.
        import asyncio
        import json

        from websockets.asyncio.client import connect

        async def watch(path: str) -> str:
            async with connect(cluster.haproxy.ws_base + path, open_timeout=15) as ws:
                await ws.send(json.dumps({"type": "hello"}))
                return str(json.loads(await asyncio.wait_for(ws.recv(), 15))["type"])

        a, b = code[:4], code[4:]
        for path in (f"/ws/{a}%20{b}", f"/ws/{a}%2D{b}", f"/ws/{code.lower()}"):
            assert asyncio.run(watch(path)) != "error"
        print(f"\n{code}: {answers}; owner {owner} -> {cluster.owners()[code]}")
        assert cluster.owners()[code] == owner and cluster.log_epochs(code) == epochs
    finally:
        cluster.stop()
