"""Ownership with fencing, on real processes: two ``crisp serve`` nodes sharing a real
PostgreSQL. The owner of a room is paused with SIGSTOP; the other node, asked for the room, waits
for the lease to run out and claims it (a higher epoch). When the old owner wakes, its next write
(or renewal) finds the room lost: it closes its sockets with 4301 (moved) and writes nothing; the
phones reconnect to the new owner, which serves the game to its end, nothing lost."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from cluster import Phone
from pgserver import free_port
from serverproc import ServerProcess
from test_cluster import OPTIONS, finish_and_check

from crisp.server.wire.closecodes import CloseCode

SPEED = 10.0


def test_a_paused_owner_is_fenced_off_and_the_new_owner_serves(
    pg_server: Any, tmp_path: Path
) -> None:
    url = pg_server.new_database()
    env = {"CRISP_DATABASE_URL": url, "CRISP_LEASE_S": "2"}
    a = ServerProcess(
        tmp_path / "a", clock_speed=SPEED, env={**env, "CRISP_NODE_ID": "a"}, port=free_port()
    )
    b = ServerProcess(
        tmp_path / "b", clock_speed=SPEED, env={**env, "CRISP_NODE_ID": "b"}, port=free_port()
    )
    try:
        a.start()
        b.start()
        asyncio.run(_fenced(a, b, url))
    finally:
        for srv in (a, b):
            if srv.proc is not None and srv.proc.poll() is None:
                os.kill(srv.proc.pid, signal.SIGCONT)
            srv.kill()


def log_epochs(url: str, code: str) -> list[int]:
    import psycopg

    with psycopg.connect(url) as db:
        rows = db.execute("SELECT epoch FROM crisp_log WHERE code = %s ORDER BY seq", (code,))
        return [int(e) for (e,) in rows]


async def _fenced(a: ServerProcess, b: ServerProcess, url: str) -> None:
    host = a.create_room("Ana")
    code = host["code"]
    tokens = [host["token"], a.join(code, "Ben")["token"]]
    phones = [Phone(a, code, t, f"p{s}", seed=s) for s, t in enumerate(tokens)]  # type: ignore[arg-type]
    try:
        for phone in phones:
            phone.run()
        for phone in phones:
            await phone.wait_type("state", timeout=30)
        await phones[0].send(OPTIONS)
        await phones[0].wait_type("room", options={k: v for k, v in OPTIONS.items() if k != "type"})
        await phones[0].send({"type": "start"})
        await phones[0].wait_type("turn", timeout=30)
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)
        before = log_epochs(url, code)
        old = before[-1]
        for phone in phones:
            phone.server = b  # from now on they reconnect to b
        # b is asked for the room: it waits for a's lease to run out, then claims it.
        status, summary = await asyncio.to_thread(b.request, "GET", f"/api/rooms/{code}")
        assert status == 200, summary
        await phones[0].act("ready")  # queued in a's socket: read when a wakes
        os.kill(a.proc.pid, signal.SIGCONT)
        for phone in phones:
            await asyncio.wait_for(_closed_moved(phone), 20)
        await finish_and_check(b, {code: phones})  # type: ignore[arg-type]
        after = log_epochs(url, code)
        assert after[: len(before)] == before
        assert old not in after[len(before) :], "the paused owner wrote after losing the room"
        assert set(after[len(before) :]) == {old + 1}
        assert "another node" in "".join(a.output)  # its write, or its renewal, found the room lost
    finally:
        for phone in phones:
            await phone.finish()


async def _closed_moved(phone: Phone) -> None:
    while CloseCode.MOVED not in phone.closes:
        await asyncio.sleep(0.05)


def test_a_room_of_another_node_is_handed_over_on_its_first_request(
    pg_server: Any, tmp_path: Path
) -> None:
    """With the rate limits on (no exempt IP): a code another node serves counts as a room for
    the lookup limits (looked up in the database), and the request is answered here once the
    other node has handed the room over (within its handover check); an unknown code is a 404."""
    url = pg_server.new_database()
    env = {"CRISP_DATABASE_URL": url, "CRISP_LIMIT_EXEMPT_IPS": "[]"}
    a = ServerProcess(tmp_path / "a", env={**env, "CRISP_NODE_ID": "a"})
    b = ServerProcess(tmp_path / "b", env={**env, "CRISP_NODE_ID": "b"})
    try:
        a.start()
        b.start()
        code = a.create_room("Ana")["code"]
        status, summary = b.request("GET", f"/api/rooms/{code}")
        assert status == 200 and summary["code"] == code
        import psycopg

        with psycopg.connect(url) as db:
            owner = db.execute("SELECT owner FROM crisp_rooms WHERE code = %s", (code,)).fetchone()
        assert owner == ("b",)
        assert b.request("GET", "/api/rooms/ABCDEFGHJKMN")[0] == 404
        status, _ = a.request("GET", f"/api/rooms/{code}")  # and back, the same way
        assert status == 200
    finally:
        a.kill()
        b.kill()
