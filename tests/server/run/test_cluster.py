"""Many nodes, for real: PostgreSQL, HAProxy (deploy/haproxy.cfg) and three
``crisp serve`` processes on 127.0.0.1 (tests/support/cluster.py). Rooms play through the balancer
while
a node is killed with SIGKILL, or while the nodes are restarted one at a time: every room
finishes, every record replays to the result its phones were sent, and no message a phone
received (an accepted action) is missing from the record. The time from the kill to each
affected room's first message is printed (docs/performance.md)."""

from __future__ import annotations

import asyncio
import copy
import os
from pathlib import Path
from typing import Any

from cluster import Balancer, Cluster, Phone

from crisp.engine.crisp.record import replay, stream

ROOMS = int(os.environ.get("CRISP_TEST_CLUSTER_ROOMS", "30"))
SPEED = 10.0  # game seconds per real second
GAME_S = 150.0  # real seconds every game may take, on a loaded two-core machine
OPTIONS = {"type": "options", "limit": 50, "timer": None, "take_discard": False}
Message = dict[str, Any]


def new_room(lb: Balancer, i: int) -> tuple[str, list[str]]:
    status, host = lb.request("POST", "/api/rooms", {"name": f"Ana{i}"})
    assert status == 201, host
    status, guest = lb.request("POST", f"/api/rooms/{host['code']}/join", {"name": f"Ben{i}"})
    assert status == 201, guest
    return host["code"], [host["token"], guest["token"]]


async def start_rooms(lb: Balancer, n: int) -> dict[str, list[Phone]]:
    """``n`` rooms of two phones each, created and joined through the balancer, games started."""
    made = await asyncio.gather(*(asyncio.to_thread(new_room, lb, i) for i in range(n)))
    rooms: dict[str, list[Phone]] = {}
    for r, (code, tokens) in enumerate(made):
        rooms[code] = [
            Phone(lb, code, t, f"{code}/{s}", seed=100 * r + s) for s, t in enumerate(tokens)
        ]
    for phones in rooms.values():
        for phone in phones:
            phone.run()
    for phones in rooms.values():
        host = phones[0]
        await host.wait_type("state", timeout=30)
        await phones[1].wait_type("state", timeout=30)
        await host.send(OPTIONS)
        options = {k: v for k, v in OPTIONS.items() if k != "type"}
        await host.wait_type("room", options=options, timeout=30)
        await host.send({"type": "start"})
    for phones in rooms.values():
        await phones[0].wait_type("turn", timeout=30)
    return rooms


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


async def finish_and_check(lb: Balancer, rooms: dict[str, list[Phone]]) -> None:
    """Every room's game ends; its record replays to the result sent; nothing a phone received
    is missing from the record (R-... every accepted action is kept)."""
    everyone = [p for phones in rooms.values() for p in phones]
    waits = [asyncio.ensure_future(p.over.wait()) for p in everyone]
    await asyncio.wait(waits, timeout=GAME_S)
    stuck = [p for p in everyone if not p.over.is_set()]
    for task in waits:
        task.cancel()
    assert not stuck, "games not over: " + "; ".join(
        f"{p.label} closes {p.closes} last {[m.get('type') for m in p.received[-6:]]} "
        f"{p.received[-1:]}"
        for p in stuck[:4]
    )
    for code, phones in rooms.items():
        status, record = await asyncio.to_thread(lb.request, "GET", f"/api/rooms/{code}/record")
        assert status == 200, (code, status, record)
        result = replay(copy.deepcopy(record)).result
        assert result["over"] and phones[0].result == (result["totals"], result["winners"]), code
        for phone in phones:
            lost = missing(phone.engine_stream(), stream(record, phone.seat))
            assert lost == [], f"{phone.label}: received but not in the record: {lost[:3]}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def stop(rooms: dict[str, list[Phone]]) -> None:
    for phones in rooms.values():
        for phone in phones:
            await phone.finish()


def test_a_node_killed_mid_game_loses_nothing(pg_server: Any, tmp_path: Path) -> None:
    """30 rooms through HAProxy on three nodes; the node with the most rooms is killed with
    SIGKILL mid-game. Its rooms are claimed by the others once their leases run out, rebuilt from
    the log, and the phones' reconnections find them: every room completes, nothing is lost."""
    cluster = Cluster(tmp_path, pg_server, 3, SPEED).start()
    try:
        asyncio.run(_kill(cluster))
    finally:
        cluster.stop()


async def _kill(cluster: Cluster) -> None:
    rooms = await start_rooms(cluster.lb, ROOMS)
    try:
        await asyncio.sleep(1.0)  # real play (not game time): the kill lands mid-game
        owners = await asyncio.to_thread(cluster.owners)
        counts = {f"node{i + 1}": 0 for i in range(3)}
        for code in rooms:
            counts[str(owners[code])] += 1
        victim = max(counts, key=lambda n: counts[n])
        killed_at = asyncio.get_running_loop().time()
        cluster.kill(int(victim[4:]) - 1)
        await finish_and_check(cluster.lb, rooms)
        # The killed node's rooms, but for a game that ended on it before the kill.
        affected = [
            code
            for code in rooms
            if owners[code] == victim
            and not any((p.over_on or 0.0) < killed_at for p in rooms[code])
        ]
        back = []
        for code in affected:
            firsts = [t for p in rooms[code] if (t := p.first_after(killed_at)) is not None]
            assert firsts, f"{code}: no connection after the kill? " + "; ".join(
                f"opens {[(round(w - killed_at, 2), i) for w, i in p.opens]} got "
                f"{len(p.received)} closes {p.closes}"
                for p in rooms[code]
            )
            back.append(min(firsts) - killed_at)
        print(
            f"\ncluster kill -9: rooms per node {counts}; {victim} killed with "
            f"{len(affected)} rooms; kill -> first message of each: p50 "
            f"{percentile(back, 0.5):.2f} s, p99 {percentile(back, 0.99):.2f} s, "
            f"max {max(back):.2f} s"
        )
        epochs = await asyncio.to_thread(cluster.log_epochs, affected[0])
        assert len(set(epochs)) >= 2, "the moved room was not written at a new epoch"
    finally:
        await stop(rooms)


def test_a_rolling_restart_loses_nothing(pg_server: Any, tmp_path: Path) -> None:
    """The three nodes restarted one at a time (SIGTERM: each hands its rooms over as it stops)
    while 12 rooms play: every room completes, nothing is lost."""
    cluster = Cluster(tmp_path, pg_server, 3, SPEED).start()
    try:
        asyncio.run(_rolling(cluster))
    finally:
        cluster.stop()


async def _rolling(cluster: Cluster) -> None:
    rooms = await start_rooms(cluster.lb, 12)
    try:
        for i in range(3):
            await asyncio.sleep(1.0)
            await asyncio.to_thread(cluster.restart, i)
            await asyncio.to_thread(cluster.wait_up, 3)
        await finish_and_check(cluster.lb, rooms)
        assert any(p.closes for phones in rooms.values() for p in phones), "no node restarted"
    finally:
        await stop(rooms)
