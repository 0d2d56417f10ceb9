"""Issue 21, findings 1 and 2, with the real proxies: Debian's Caddy (the shipped deploy/Caddyfile)
and HAProxy (the shipped crisp/server/run/balancer.py configuration) in front of a real
``crisp serve`` on 127.0.0.1, trusting exactly the proxy (its address here: 127.0.0.1). Clients
come from distinct loopback addresses (127.0.0.x). One client's misses never refuse another's
lookups, and a forged X-Forwarded-For gains nothing: its guesses and room creations are counted
to its own address, and naming the victim's address does not spend the victim's budget."""

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
def test_behind_caddy_one_clients_misses_never_refuse_another_issue21_finding1(
    server: ServerProcess,
) -> None:
    with Caddy(server.port) as caddy:
        check(attack_counts(caddy))


@pytest.mark.skipif(haproxy_bin() is None, reason="HAProxy is not installed")
@pytest.mark.parametrize("server", ["haproxy"], indirect=True)
def test_behind_haproxy_a_forged_forwarded_for_gains_nothing_issue21_finding2(
    server: ServerProcess,
) -> None:
    proxy = HAProxy([server.port]).start(up=1)
    try:
        check(attack_counts(proxy))
    finally:
        proxy.stop()
