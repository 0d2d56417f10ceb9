"""Both compose files brought up for real with podman-compose (from the package index: Debian's
ignores a network's ipam), on the images built here: the Dockerfile on the stand-in Debian base,
Caddy, HAProxy and PostgreSQL from Debian's packages (tests/ops/containers/), swapped in by an
override file that changes nothing but the images. Published ports on 127.0.0.1 only.

compose.yaml: Caddy's internal CA (the site is ``localhost``), trusted by the test from Caddy's
data volume; a whole game over wss:// through Caddy, its record replayed; the client's address as
Caddy saw it in the server's access log, and the per-address limits from a second client on the
compose network that forges X-Forwarded-For. compose.cluster.yaml: two nodes serve one room each;
one node's container is killed mid-game; its room plays on, on another node, within the failover
budget (docs/operating.md), and both records hold every move the phones were sent. The start time
of each stack and the failover time are printed. Everything is torn down (down --volumes), also
on a failure."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import ipaddress
import json
import os
import secrets
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import podman as pm
import pytest
from cluster import Phone, http
from composestack import CONTAINERS, Stack, build_images
from paths import ROOT
from pgserver import free_port
from wsclient import Player

from crisp.engine.crisp.record import replay, stream

COMPOSE = ROOT / "compose.yaml"
CLUSTER = ROOT / "compose.cluster.yaml"
OVERRIDES = {
    COMPOSE: CONTAINERS / "compose.standins.yaml",
    CLUSTER: CONTAINERS / "compose.cluster.standins.yaml",
}
DOMAIN = "localhost"  # Caddy serves it with a certificate of its own internal CA
CA_PATH = "/data/caddy/pki/authorities/local/root.crt"  # in Caddy's data volume
OPTIONS = {"type": "options", "limit": 50, "timer": None, "take_discard": False}
GAME_S = 300.0  # real seconds a game may take at the clock's real speed, on a loaded machine
START_S = 240.0  # real seconds a stack may take to serve, on a loaded machine
# A dead node's rooms are served again within CRISP_LEASE_S (4 s) after its last renewal (every
# second), once HAProxy has taken it out (two failed checks, 0.5 s apart): docs/operating.md.
FAILOVER_BUDGET_S = 10.0
GUESSES = 30  # as tests/ops/test_proxies.py: the miss budget of one address is 10
ATTACKER_IP = "172.30.24.20"  # a fixed address of compose.yaml's subnet, outside its ip_range
Message = dict[str, Any]


@pytest.fixture(scope="module")
def images() -> None:
    pm.podman_or_skip()
    build_images("caddy", "haproxy", "postgres")


@contextlib.contextmanager
def stack_up(file: Path, env: dict[str, str]) -> Iterator[tuple[Stack, float]]:
    """The stack of ``file`` with the stand-ins, up (and the seconds ``up`` took); always torn
    down, with its volumes, afterwards."""
    stack = Stack(f"crisptest{os.getpid()}{secrets.token_hex(2)}", file, OVERRIDES[file], env)
    try:
        yield stack, stack.up()
    except BaseException:
        with contextlib.suppress(AssertionError):  # the test's own failure is the one to see
            stack.down()
        raise
    stack.down()


def wait_for(what: str, probe: Callable[[], Any], timeout: float = START_S) -> Any:
    """``probe()``'s first true value, tried every quarter second."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = probe()
        except (OSError, urllib.error.URLError, AssertionError):
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        time.sleep(0.25)


# -- the files and the override ------------------------------------------------------------------


@pytest.mark.parametrize("file", [COMPOSE, CLUSTER], ids=lambda f: f.name)
def test_override_swaps_images_only_and_ip_range_keeps_fixed_addresses_out(file: Path) -> None:
    """The tests' override changes every service's image and nothing else, to a name with the
    compose file's name and tag (without the registry's digest). The network's ip_range (for
    containers without a fixed address) holds neither the gateway nor a fixed address."""
    pm.podman_or_skip()
    env = {"CRISP_DOMAIN": DOMAIN, "POSTGRES_PASSWORD": "x"}
    merged = Stack("crisptestconfig", file, OVERRIDES[file], env).config()
    alone = Stack("crisptestconfig", file, None, env).config()
    services: dict[str, Any] = merged["services"]  # type: ignore[assignment]
    for name, service in alone["services"].items():  # type: ignore[attr-defined]
        swapped = services[name]["image"]
        assert swapped.startswith("localhost/crisp-test/"), (name, swapped)
        assert swapped.rsplit("/", 1)[1] == service["image"].split("@")[0].rsplit("/", 1)[-1]
        assert {**services[name], "image": service["image"]} == service, name
    assert {k: v for k, v in merged.items() if k != "services"} == {
        k: v for k, v in alone.items() if k != "services"
    }
    [network] = alone["networks"].values()  # type: ignore[attr-defined]
    [config] = network["ipam"]["config"]
    subnet = ipaddress.ip_network(config["subnet"])
    pool = ipaddress.ip_network(config["ip_range"])
    assert pool.subnet_of(subnet) and next(subnet.hosts()) not in pool  # type: ignore[arg-type]
    fixed = [
        ipaddress.ip_address(net["ipv4_address"])
        for service in alone["services"].values()  # type: ignore[attr-defined]
        if isinstance(service.get("networks"), dict)
        for net in service["networks"].values()
        if isinstance(net, dict) and "ipv4_address" in net
    ]
    assert fixed and all(a in subnet and a not in pool for a in fixed), fixed


# -- compose.yaml: Crisp behind Caddy --------------------------------------------------------------


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


# -- compose.cluster.yaml: PostgreSQL, three nodes, HAProxy --------------------------------------


class PlainFront:
    """HAProxy's published port, as cluster.Phone sees a balancer."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = f"ws://127.0.0.1:{port}"
        self.clock_speed = 1.0

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return http(self.base, method, path, body)


def owners(stack: Stack) -> dict[str, str]:
    """Each room's owner node, as the database says."""
    sql = "SELECT code, owner FROM crisp_rooms"
    done = pm.podman(
        "exec", stack.container("postgres"), "psql", "-U", "crisp", "-d", "crisp", "-At", "-c", sql
    )
    return dict(line.split("|", 1) for line in done.stdout.split())


def log_epochs(stack: Stack, code: str) -> set[str]:
    sql = f"SELECT DISTINCT epoch FROM crisp_log WHERE code = '{code}'"
    done = pm.podman(
        "exec", stack.container("postgres"), "psql", "-U", "crisp", "-d", "crisp", "-At", "-c", sql
    )
    return set(done.stdout.split())


def nodes_seen(front: PlainFront) -> set[str]:
    """The nodes that answer /healthz through HAProxy (round robin without a room code)."""
    answers = [front.request("GET", "/healthz") for _ in range(9)]
    return {str(body["node"]) for status, body in answers if status == 200}


def two_rooms_on_two_nodes(front: PlainFront, stack: Stack) -> dict[str, tuple[str, list[str]]]:
    """Rooms made and joined through HAProxy (each settled on its code's node by a lookup)
    until two nodes own one each: owner -> (code, the two seats' tokens)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for i in range(12):
        status, host = front.request("POST", "/api/rooms", {"name": f"Ana{i}"})
        assert status == 201, host
        status, guest = front.request("POST", f"/api/rooms/{host['code']}/join", {"name": "Ben"})
        assert status == 201, guest
        assert front.request("GET", f"/api/rooms/{host['code']}")[0] == 200
        owner = owners(stack)[host["code"]]
        found.setdefault(owner, (host["code"], [host["token"], guest["token"]]))
        if len(found) == 2:
            return found
    raise AssertionError(f"12 rooms, all on {sorted(found)}")


def missing(received: list[Message], expected: list[Message]) -> list[Message]:
    """The messages of ``received`` not found, in order, in ``expected``."""
    lost, j = [], 0
    for msg in received:
        k = j
        while k < len(expected) and expected[k] != msg:
            k += 1
        if k == len(expected):
            lost.append(msg)
        else:
            j = k + 1
    return lost


async def fail_over(front: PlainFront, stack: Stack) -> tuple[str, float]:
    """Two games, on two nodes; one node's container is killed mid-game. Both games end, their
    records replay to the results sent and hold every move a phone received; the killed node's
    room is written at a new epoch. The node killed, and the seconds from the kill to the first
    message over a new connection of its room."""
    rooms = await asyncio.to_thread(two_rooms_on_two_nodes, front, stack)
    phones = {
        code: [Phone(front, code, t, f"{code}/{s}", seed=s) for s, t in enumerate(tokens)]  # type: ignore[arg-type]
        for code, tokens in rooms.values()
    }
    for seats in phones.values():
        for phone in seats:
            phone.p_call = 1.0
            phone.run()
    victim, (moved, _) = sorted(rooms.items())[0]
    try:
        for seats in phones.values():
            await seats[0].wait_type("state", timeout=30)
            await seats[1].wait_type("state", timeout=30)
            await seats[0].send(OPTIONS)
            options = {k: v for k, v in OPTIONS.items() if k != "type"}
            await seats[0].wait_type("room", options=options, timeout=30)
            await seats[0].send({"type": "start"})
        for seats in phones.values():
            await seats[0].wait_type("turn", timeout=30)
        await asyncio.sleep(1.0)  # real play: the kill lands mid-game
        killed_at = asyncio.get_running_loop().time()
        await asyncio.to_thread(pm.podman, "kill", "--signal=KILL", stack.container(victim))
        everyone = [p for seats in phones.values() for p in seats]
        await asyncio.wait_for(asyncio.gather(*(p.over.wait() for p in everyone)), GAME_S)
        firsts = [t for p in phones[moved] if (t := p.first_after(killed_at)) is not None]
        assert firsts, "the killed node's room had no new connection"
        back = min(firsts) - killed_at
    finally:
        for seats in phones.values():
            for phone in seats:
                await phone.finish()
    for code, seats in phones.items():
        status, record = await asyncio.to_thread(front.request, "GET", f"/api/rooms/{code}/record")
        assert status == 200, record
        result = replay(copy.deepcopy(record)).result
        assert result["over"] and seats[0].result == (result["totals"], result["winners"])
        for phone in seats:
            lost = missing(phone.engine_stream(), stream(record, phone.seat))
            assert lost == [], f"{phone.label}: received but not in the record: {lost[:3]}"
    assert len(await asyncio.to_thread(log_epochs, stack, moved)) >= 2, "not moved"
    return victim, back


def test_compose_cluster_a_killed_nodes_room_plays_on_elsewhere(images: None) -> None:
    """compose.cluster.yaml up: HAProxy serves from all three nodes; two nodes own a room each;
    one node's container is killed (SIGKILL) mid-game; its room is served by another node
    within the failover budget, both games end and nothing stored is lost."""
    port = free_port()
    env = {"POSTGRES_PASSWORD": secrets.token_hex(16), "CRISP_HTTP_PUBLISH": f"127.0.0.1:{port}"}
    with stack_up(CLUSTER, env) as (stack, up_s):
        start = time.monotonic()
        front = PlainFront(port)
        everyone = {"node1", "node2", "node3"}
        wait_for("three nodes behind HAProxy", lambda: nodes_seen(front) == everyone)
        ready_s = up_s + time.monotonic() - start
        assert stack.address("haproxy") == "172.30.25.2"
        victim, back = asyncio.run(fail_over(front, stack))
        restarts = pm.inspect("container", stack.container(victim))["RestartCount"]
        print(
            f"\ncompose.cluster.yaml: up {up_s:.1f} s, three nodes serving {ready_s:.1f} s after "
            f"up began; {victim} killed: its room served again after {back:.2f} s "
            f"(budget {FAILOVER_BUDGET_S:.0f} s; the killed container restarted {restarts}x)"
        )
        assert back <= FAILOVER_BUDGET_S
