"""The image, built from ``Dockerfile`` with podman and run as an operator runs it: served through
a port published on 127.0.0.1, its data in a named volume. The base is the stand-in Debian
bookworm of tests/ops/containers/debian-base.sh (no registry can be reached here), passed as the
Dockerfile's BASE; ``--format docker`` keeps the HEALTHCHECK. Each test runs its own containers
and volume and removes them. Without podman the tests skip, except under CI (CI=true), where
they fail. The image's build time and size are printed (``pytest -s``), and written to
tests/artifacts/image/.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import os
import subprocess
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import podman as pm
import pytest
from paths import ROOT, TESTS
from seatplayer import Seat
from wsclient import Client, Player

from crisp.engine.crisp.record import replay

pytestmark = pytest.mark.containers  # tests/support/netlock.py

TAG = "localhost/crisp:test"
SPEED = 20.0  # game seconds per real second
GAME_OVER_S = 180.0  # real seconds a whole game may take on a loaded machine
ENV = {"CRISP_BETWEEN_ROUNDS_S": "600", "CRISP_LOG_LEVEL": "warning"}
OPTIONS = {"limit": 50, "timer": None, "take_discard": False}
STOP_TIMEOUT_S = 10  # podman stop's default
Message = dict[str, Any]


def _revision() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def _version() -> str:
    version: str = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    return version


@pytest.fixture(scope="module")
def image() -> pm.Built:
    """The image, built once per test worker (a second build is the layer cache's)."""
    pm.podman_or_skip()
    pm.ensure_debian_base()
    args = {"BASE": pm.DEBIAN_BASE, "VERSION": _version(), "REVISION": _revision()}
    built = pm.build_image(TAG, args)
    base_bytes = int(pm.podman("image", "inspect", pm.DEBIAN_BASE, "--format", "{{.Size}}").stdout)
    line = (
        f"image {TAG}: built in {built.seconds:.1f} s (podman's cached layers reused), "
        f"{built.size_mb:.0f} MB, {built.size_mb - base_bytes / 1e6:.0f} MB over the base "
        f"{pm.DEBIAN_BASE}"
    )
    print(line)
    _artifact(f"build-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.txt", line)
    return built


def _artifact(name: str, line: str) -> None:
    """A figure for the release note: $CRISP_ARTIFACTS/image/NAME, else tests/artifacts/image."""
    base = os.environ.get("CRISP_ARTIFACTS")
    out = (Path(base) if base else TESTS / "artifacts") / "image"
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(line + "\n", encoding="utf-8")


@pytest.fixture
def names(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A container name prefix and a new volume, both this test's own; every container whose
    name starts with the prefix is removed afterwards, then the volume."""
    prefix = f"crisp-test-{os.getpid()}-{request.node.name[5:30].replace('_', '-')}"
    with pm.volume(f"{prefix}-data") as vol:
        try:
            yield prefix, vol
        finally:
            listed = pm.podman("ps", "--all", "--format", "{{.Names}}", check=False).stdout
            for name in listed.split():
                if name.startswith(prefix):
                    pm.podman("rm", "--force", "--time=0", name, check=False)


def container(image: pm.Built, names: tuple[str, str], suffix: str, **kw: Any) -> pm.Container:
    prefix, vol = names
    return pm.Container(image.tag, f"{prefix}-{suffix}", vol, clock_speed=SPEED, env=ENV, **kw)


def record_of(srv: pm.Container, code: str) -> dict[str, Any]:
    status, record = srv.request("GET", f"/api/rooms/{code}/record")
    assert status == 200, (status, record)
    assert isinstance(record, dict)
    return record


def summary(srv: pm.Container, code: str) -> dict[str, Any]:
    """``GET /api/rooms/{code}`` without who is connected right now."""
    status, body = srv.request("GET", f"/api/rooms/{code}")
    assert status == 200, (status, body)
    for member in body["members"]:
        member.pop("connected")
    return dict(body)


def assert_result(record: dict[str, Any], over: Message) -> None:
    result = replay(copy.deepcopy(record)).result
    assert result["over"], "the downloaded record does not replay to a finished game"
    assert (over["totals"], over["winners"]) == (result["totals"], result["winners"])


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        if isinstance(c, Player):
            await c.stop_playing()
        with contextlib.suppress(Exception):
            await c.close()


async def seated_room(srv: pm.Container, names: list[str]) -> tuple[str, list[str]]:
    """A room of ``names`` (the first the host) with OPTIONS set: its code and seat tokens."""
    host = srv.create_room(names[0])
    code = host["code"]
    tokens = [host["token"]] + [srv.join(code, n)["token"] for n in names[1:]]
    lead = Client(srv, code, tokens[0], "host")
    await lead.connect()
    await lead.send({"type": "options", **OPTIONS})
    await lead.wait_type("room", options=OPTIONS)
    await lead.close()
    return code, tokens


# -- serving -------------------------------------------------------------------------------------


def test_healthz_and_a_room_through_the_published_port(
    image: pm.Built, names: tuple[str, str]
) -> None:
    """The container serves on the port published on 127.0.0.1: /healthz 200, a room made."""
    srv = container(image, names, "serve").start()
    status, _ = srv.request("GET", "/healthz")
    assert status == 200
    room = srv.create_room("Ana")
    assert summary(srv, room["code"])["members"][0]["name"] == "Ana"


def test_a_whole_game_over_websocket_through_the_published_port(
    image: pm.Built, names: tuple[str, str]
) -> None:
    """Three phones and a spectator play a game to its end through the published port; the
    room's record replays to the result the spectator was sent."""
    srv = container(image, names, "game").start()
    asyncio.run(_whole_game(srv))


async def _whole_game(srv: pm.Container) -> None:
    code, tokens = await seated_room(srv, ["Ana", "Ben", "Cy"])
    players = [Player(srv, code, t, f"p{i}", seed=i) for i, t in enumerate(tokens)]
    watch = Client(srv, code, None, "watch")
    clients: list[Client] = [*players, watch]
    try:
        for c in clients:
            await c.connect()
        for p in players:
            p.start_playing()
        await players[0].send({"type": "start"})
        over = await watch.wait_type("game_over", timeout=GAME_OVER_S)
        assert_result(record_of(srv, code), over)
    finally:
        await close_all(clients)


# -- the data volume -----------------------------------------------------------------------------


def test_the_room_survives_a_restart_and_a_new_container_on_the_volume(
    image: pm.Built, names: tuple[str, str]
) -> None:
    """A room with its options and members is the same after ``podman restart`` and in a new
    container on the same volume (the old one removed), and its host's token still seats her."""
    first = container(image, names, "one").start()
    code, tokens = asyncio.run(seated_room(first, ["Ana", "Ben"]))
    before = summary(first, code)
    assert before["options"] == OPTIONS
    start = time.monotonic()
    first.restart()
    restarted = time.monotonic() - start
    assert summary(first, code) == before, "the room changed across podman restart"
    first.remove()
    start = time.monotonic()
    second = container(image, names, "two").start()
    replaced = time.monotonic() - start
    assert summary(second, code) == before, "a new container on the volume lost the room"
    _artifact(
        "restart.txt",
        f"podman restart to /healthz 200: {restarted:.1f} s; a new container on the volume: "
        f"{replaced:.1f} s; the room the same in both",
    )
    asyncio.run(_seated_again(second, code, tokens[0]))


async def _seated_again(srv: pm.Container, code: str, token: str) -> None:
    ana = Client(srv, code, token, "Ana")
    await ana.connect()
    try:
        welcome = next(m for m in ana.received if m["type"] == "welcome")
        assert welcome["you"]["host"] is True
    finally:
        await ana.close()


def test_sigkill_mid_game_loses_no_stored_change(image: pm.Built, names: tuple[str, str]) -> None:
    """``podman kill -s KILL`` in the middle of a game, right after a move acknowledged to its
    phone: once started again, every phone reconnects to the state it last saw (same round,
    turn, pile, its own card in hand and version), and the game plays on to an end that its
    record replays to."""
    srv = container(image, names, "kill").start()
    asyncio.run(_kill_mid_game(srv))


def _where(state: Message) -> dict[str, Any]:
    """What a seat's ``state`` says of the game, without the clock's times."""
    view = state["view"]
    rnd = dict(view.get("round") or {})
    turn = dict(rnd.pop("turn", None) or {})
    for key in ("at", "t", "until", "deadline"):
        turn.pop(key, None)
    for key in ("window_until", "look_until", "until", "deadline"):
        rnd.pop(key, None)
    return {"over": view["over"], "round": rnd, "turn": turn, "v": state.get("v")}


async def _quiet_state(seats: list[Seat]) -> list[Message]:
    """Each seat syncs and gets its ``state``, twice in a row the same: nothing moves."""
    last: list[Message] = []
    for _ in range(30):
        marks = [len(s.received) for s in seats]
        for s in seats:
            await s.send({"type": "sync"})
        states = [
            await s.wait_type("state", since=m, timeout=30)
            for s, m in zip(seats, marks, strict=True)
        ]
        if last and [_where(x) for x in states] == [_where(x) for x in last]:
            return states
        last = states
        await asyncio.sleep(1.0)
    raise AssertionError("the game did not come to rest")


async def _one_more_move(seats: list[Seat], states: list[Message]) -> None:
    """The seat whose turn it is draws (or discards the card it holds), and its move is
    acknowledged: the last stored change before the kill is a move of the game."""
    rnd = states[0]["view"]["round"]
    assert rnd["phase"] == "play", rnd["phase"]
    seat = seats[rnd["turn"]["seat"]]
    mark = len(seat.received)
    if rnd["turn"]["holding"]:
        await seat.act("discard")
        await seat.wait_type("discard", since=mark, seat=seat.seat)
    else:
        await seat.act("draw")
        await seat.wait(lambda m: m["type"] == "draw" and "card" in m, since=mark)


async def _kill_mid_game(srv: pm.Container) -> None:
    code, tokens = await seated_room(srv, ["Ana", "Ben", "Cy"])
    seats = [Seat(srv, code, t, f"s{i}", seed=i, p_call=0.0) for i, t in enumerate(tokens)]
    clients: list[Client] = list(seats)
    try:
        for s in seats:
            await s.connect()
            s.start_playing()
        await seats[0].send({"type": "start"})
        for _ in range(6):  # some turns played: the game is well under way
            mark = len(seats[0].received)
            await seats[0].wait_type("turn_end", since=mark, timeout=60)
        for s in seats:
            await s.stop_playing()
        await _one_more_move(seats, await _quiet_state(seats))
        before = await _quiet_state(seats)
        assert not before[0]["view"]["over"], "the game ended before the kill"
        srv.kill()
        await close_all(clients)
        start = time.monotonic()
        srv.start()
        back = time.monotonic() - start

        again = [
            Seat(srv, code, t, f"s{i}'", seed=10 + i, resume=True) for i, t in enumerate(tokens)
        ]
        watch = Client(srv, code, None, "watch")
        clients = [*again, watch]
        for c in clients:
            await c.connect()
        after = [next(m for m in s.received if m["type"] == "state") for s in again]
        for i, (old, new) in enumerate(zip(before, after, strict=True)):
            assert _where(new) == _where(old), f"seat {i} came back elsewhere"
        for s in again:
            s.play_from(0)
        over = await watch.wait_type("game_over", timeout=GAME_OVER_S)
        assert_result(record_of(srv, code), over)
        number = before[0]["view"]["round"]["round"]
        _artifact(
            "kill.txt",
            f"podman kill -s KILL at v{before[0]['v']}, round {number}: "
            f"back in {back:.1f} s, {len(seats)} phones where they were, the game played out",
        )
    finally:
        await close_all(clients)


def test_stop_closes_sockets_with_1012_and_exits_within_its_timeout(
    image: pm.Built, names: tuple[str, str]
) -> None:
    """``podman stop`` (SIGTERM): an open WebSocket is closed with 1012 (service restart, the
    phone reconnects), and the server exits by itself, 0, within podman's timeout (after it,
    podman would SIGKILL: exit 137). The time ``podman stop`` took is printed."""
    srv = container(image, names, "stop").start()
    seconds = asyncio.run(_stopped(srv))
    line = f"podman stop: {seconds:.2f} s of its {STOP_TIMEOUT_S} s (open WebSocket: 1012)"
    print(line)
    _artifact("stop.txt", line)
    state = pm.inspect("container", srv.name)["State"]
    assert state["ExitCode"] == 0, (state["ExitCode"], srv.logs())


async def _stopped(srv: pm.Container) -> float:
    code, tokens = await seated_room(srv, ["Ana", "Ben"])
    phone = Client(srv, code, tokens[0], "Ana")
    await phone.connect()
    start = time.monotonic()
    await asyncio.to_thread(pm.podman, "stop", f"--time={STOP_TIMEOUT_S}", srv.name)
    seconds = time.monotonic() - start
    await asyncio.wait_for(phone.closed.wait(), 10)
    assert phone.close_code == 1012, phone.close_code
    return seconds


# -- the running image's properties --------------------------------------------------------------


def test_runs_as_uid_10001_with_private_data(image: pm.Built, names: tuple[str, str]) -> None:
    """The server (PID 1) runs as uid and gid 10001, not root; /data is 0700 and every file the
    server made there 0600, all owned by that user."""
    srv = container(image, names, "uid").start()
    srv.create_room("Ana")
    status = srv.exec("cat", "/proc/1/status").stdout
    uid = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
    gid = next(line.split()[1:] for line in status.splitlines() if line.startswith("Gid:"))
    assert set(uid) == {"10001"} and set(gid) == {"10001"}, (uid, gid)
    listed = srv.exec("find", "/data", "-printf", "%m %U:%G %y %p\n").stdout.split("\n")
    entries = [line.split(" ", 3) for line in listed if line]
    assert ["700", "10001:10001", "d", "/data"] in entries, entries
    files = [e for e in entries if e[2] == "f"]
    assert any(e[3] == "/data/crisp.sqlite3" for e in files), entries
    for mode, owner, _, path in files:
        assert (mode, owner) == ("600", "10001:10001"), (path, mode, owner)


def test_read_only_root_serves(image: pm.Built, names: tuple[str, str]) -> None:
    """With ``--read-only`` (only /data, the volume, writable) the server starts, makes a room
    and plays into it: it writes nothing outside its data directory."""
    srv = container(image, names, "ro", options=["--read-only"]).start()
    assert pm.inspect("container", srv.name)["HostConfig"]["ReadonlyRootfs"] is True
    assert srv.exec("touch", "/usr/local/probe").returncode != 0, "the root is writable"
    code, _ = asyncio.run(seated_room(srv, ["Ana", "Ben"]))
    assert summary(srv, code)["options"] == OPTIONS


def test_healthcheck_passes_and_fails_when_the_server_does_not_answer(
    image: pm.Built, names: tuple[str, str]
) -> None:
    """The image's HEALTHCHECK (kept by --format docker) passes on a serving container, and
    fails while the server is frozen (SIGSTOP: the port is open, nothing answers)."""
    found = pm.inspect("image", image.tag)
    assert "docker" in found["ManifestType"], found["ManifestType"]
    assert "/healthz" in " ".join(found["Healthcheck"]["Test"])
    srv = container(image, names, "health").start()
    assert pm.podman("healthcheck", "run", srv.name, check=False).returncode == 0, srv.logs()
    pm.podman("kill", "--signal=STOP", srv.name)
    try:
        failed = pm.podman("healthcheck", "run", srv.name, check=False)
        assert failed.returncode != 0, failed.stdout
    finally:
        pm.podman("kill", "--signal=CONT", srv.name)
    assert pm.podman("healthcheck", "run", srv.name, check=False).returncode == 0


def test_oci_labels_carry_the_version_and_the_source_revision(image: pm.Built) -> None:
    """The build arguments VERSION and REVISION reach the image's OCI labels."""
    labels = pm.inspect("image", image.tag)["Config"]["Labels"]
    assert labels["org.opencontainers.image.version"] == _version()
    assert labels["org.opencontainers.image.revision"] == _revision()
    assert labels["org.opencontainers.image.licenses"] == "MIT"


def test_the_image_has_no_pip_and_runs_crisp_from_its_path(image: pm.Built) -> None:
    """Nothing in the image can install a package (no pip module, no pip command), and its
    ``crisp`` command is the one on the image's PATH."""
    done = pm.podman(
        "run",
        "--rm",
        image.tag,
        "python",
        "-c",
        "import importlib.util, shutil; "
        "print(importlib.util.find_spec('pip'), shutil.which('pip'), shutil.which('crisp'))",
    )
    assert done.stdout.split() == ["None", "None", "/usr/local/bin/crisp"], done.stdout
