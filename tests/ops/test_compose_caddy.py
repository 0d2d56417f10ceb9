"""compose.yaml brought up for real with podman-compose (from the package index: Debian's
ignores a network's ipam) on the images built here: the Dockerfile on the stand-in Debian base,
Caddy from Debian's package (tests/ops/containers/), swapped in by the tests' override. Caddy's
ports are published on 127.0.0.1 only; its site is ``localhost``, whose certificate comes from
Caddy's internal CA, which the test takes from Caddy's data volume and trusts. A whole game over
wss:// through Caddy, its record replayed; the client's address as Caddy saw it in the server's
access log, and the per-address limits from a second client on the compose network that forges
X-Forwarded-For. The stack's start time is printed; it is torn down (down --volumes), also on a
failure."""

from __future__ import annotations

import asyncio
import copy
import ipaddress
import json
import ssl
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import podman as pm
import pytest
from composestack import COMPOSE, Stack, build_images, stack_up, wait_for
from pgserver import free_port
from wsclient import Player

from crisp.engine.crisp.record import replay

pytestmark = pytest.mark.containers  # tests/support/netlock.py

DOMAIN = "localhost"  # Caddy serves it with a certificate of its own internal CA
CA_PATH = "/data/caddy/pki/authorities/local/root.crt"  # in Caddy's data volume
OPTIONS = {"type": "options", "limit": 50, "timer": None, "take_discard": False}
GAME_S = 300.0  # real seconds a game may take at the clock's real speed, on a loaded machine
GUESSES = 30  # as tests/ops/test_proxies.py: the miss budget of one address is 10
ATTACKER_IP = "172.30.24.20"  # a fixed address of compose.yaml's subnet, outside its ip_range
Message = dict[str, Any]


@pytest.fixture(scope="module")
def images() -> None:
    pm.podman_or_skip()
    build_images("caddy")


class TlsFront:
    """Caddy's published HTTPS port as the test clients see a server: wss:// with a context
    that trusts Caddy's internal CA."""

    def __init__(self, port: int, ca: Path) -> None:
        self.context = ssl.create_default_context(cafile=str(ca))
        self.base = f"https://{DOMAIN}:{port}"
        self.ws_base = f"wss://{DOMAIN}:{port}"
        self.ws_options = {"ssl": self.context}
        self.clock_speed = 1.0  # the compose file's server plays in real time

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"content-type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=15, context=self.context) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()


def caddy_ca(stack: Stack, into: Path) -> Path:
    """The root certificate of Caddy's internal CA, from its data volume, once it is made."""
    done = pm.podman("exec", stack.container("caddy"), "cat", CA_PATH, check=False)
    assert done.returncode == 0 and "BEGIN CERTIFICATE" in done.stdout, done.stderr
    into.write_text(done.stdout)
    return into


async def play_game(front: Any) -> tuple[str, list[Message]]:
    """Two phones make a room, join and play a game to its end (each calls crisp whenever it
    may, so that rounds are short); the ``game_over`` each was sent."""
    status, host = await asyncio.to_thread(front.request, "POST", "/api/rooms", {"name": "Ana"})
    assert status == 201, host
    code = host["code"]
    status, guest = await asyncio.to_thread(
        front.request, "POST", f"/api/rooms/{code}/join", {"name": "Ben"}
    )
    assert status == 201, guest
    players = [
        Player(front, code, made["token"], f"{code}/{i}", seed=i, p_call=1.0)
        for i, made in enumerate([host, guest])
    ]
    for player in players:
        await player.connect()
        player.start_playing()
    try:
        await players[0].send(OPTIONS)
        options = {k: v for k, v in OPTIONS.items() if k != "type"}
        await players[0].wait_type("room", options=options, timeout=30)
        await players[0].send({"type": "start"})
        overs = [await p.wait_type("game_over", timeout=GAME_S) for p in players]
    finally:
        for player in players:
            await player.stop_playing()
            await player.close()
    return code, overs


ATTACK = """
import http.client, json, socket, ssl
ctx = ssl.create_default_context(cafile="/ca.crt")
def ask(method, path, forged, body=None):
    conn = http.client.HTTPConnection("localhost", 443, timeout=15)
    raw = socket.create_connection(("{caddy}", 443), timeout=15)
    conn.sock = ctx.wrap_socket(raw, server_hostname="localhost")
    headers = {{"host": "localhost", "content-type": "application/json", "x-forwarded-for": forged}}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    status = conn.getresponse().status
    conn.close()
    return status
letters = "ACFHJKMNQRWXY"
guesses = [ask("GET", "/api/rooms/QRWXQRWXQR" + letters[i // 13] + letters[i % 13],
               "{victim}" if i % 2 else "10.9.%d.1" % i) for i in range({guesses})]
rooms = [ask("POST", "/api/rooms", "10.8.%d.1" % i, {{"name": "A%d" % i}}) for i in range(10)]
print(json.dumps({{"guesses": guesses, "rooms": rooms}}))
"""


def attack(stack: Stack, ca: Path, victim: str) -> dict[str, list[int]]:
    """From a container on the compose network (its own address, as a phone on the internet
    has one): ``GUESSES`` lookups of codes that do not exist and 10 room creations through
    Caddy, each with a forged X-Forwarded-For (every other guess naming the victim)."""
    script = ATTACK.format(caddy=stack.address("caddy"), victim=victim, guesses=GUESSES)
    done = pm.podman(
        "run",
        "--rm",
        f"--network={stack.network('crisp')}",
        f"--ip={ATTACKER_IP}",
        f"--volume={ca}:/ca.crt:ro",
        pm.DEBIAN_BASE,
        "python3",
        "-c",
        script,
    )
    result: dict[str, list[int]] = json.loads(done.stdout)
    return result


def test_compose_yaml_serves_a_game_over_tls_with_the_clients_address(
    images: None, tmp_path: Path
) -> None:
    """compose.yaml up: Caddy's certificate from its internal CA verifies; a whole game over
    wss:// through Caddy, whose record replays to the result the phones were sent; the server
    logs and limits each client by the address Caddy saw: the host's (the network's gateway,
    as podman forwards a port of 127.0.0.1) and a second client's on the network, whose forged
    X-Forwarded-For gains nothing."""
    http_port, https_port = free_port(), free_port()
    env = {
        "CRISP_DOMAIN": DOMAIN,
        "CRISP_HTTP_PUBLISH": f"127.0.0.1:{http_port}",
        "CRISP_HTTPS_PUBLISH": f"127.0.0.1:{https_port}",
    }
    with stack_up(COMPOSE, env) as (stack, up_s):
        start = time.monotonic()
        ca = wait_for("Caddy's CA", lambda: caddy_ca(stack, tmp_path / "root.crt"))
        front = TlsFront(https_port, ca)
        wait_for("/healthz through Caddy", lambda: front.request("GET", "/healthz")[0] == 200)
        ready_s = up_s + time.monotonic() - start
        caddy, crisp = stack.address("caddy"), stack.address("crisp")
        assert caddy == "172.30.24.2" and ipaddress.ip_address(crisp) in ipaddress.ip_network(
            "172.30.24.128/25"
        ), (caddy, crisp)
        with pytest.raises(urllib.error.URLError):  # the same port, without trusting the CA
            urllib.request.urlopen(f"https://{DOMAIN}:{https_port}/healthz", timeout=10)
        started = time.monotonic()
        code, overs = asyncio.run(play_game(front))
        game_s = time.monotonic() - started
        status, record = front.request("GET", f"/api/rooms/{code}/record")
        assert status == 200, record
        result = replay(copy.deepcopy(record)).result
        assert result["over"] and all(
            (o["totals"], o["winners"]) == (result["totals"], result["winners"]) for o in overs
        )

        gateway = str(next(ipaddress.ip_network("172.30.24.0/24").hosts()))
        status, victim_room = front.request("POST", "/api/rooms", {"name": "Vic"})
        assert status == 201, victim_room
        got = attack(stack, ca, victim=gateway)
        lookups = [front.request("GET", f"/api/rooms/{victim_room['code']}")[0] for _ in range(10)]
        log = stack.logs("crisp")
        print(
            f"\ncompose.yaml: up {up_s:.1f} s, serving over TLS {ready_s:.1f} s after up began; "
            f"a game through Caddy in {game_s:.1f} s; attacker {got}, victim {lookups}"
        )
        assert got["guesses"].count(429) == GUESSES - 10 and set(got["guesses"]) == {404, 429}
        assert got["rooms"].count(201) <= 5, got
        assert lookups == [200] * 10, "another client's misses refused the victim"
        assert f'{gateway}:0 - "POST /api/rooms HTTP/1.1" 201' in log, log[-2000:]
        assert f'{ATTACKER_IP}:0 - "GET /api/rooms/QRWXQRWXQR' in log, log[-2000:]
        assert "10.9." not in log and "10.8." not in log, "a forged address was believed"
        assert f"{caddy}:" not in log.replace(f"http://{caddy}", ""), "Caddy taken for a client"
