"""``crisp serve --workers 2``: two server processes behind HAProxy on one machine,
sharing the rooms through PostgreSQL. A room made and joined through the front port plays over
its WebSocket; the front spreads requests without a code over both workers; a worker killed
with SIGKILL is started again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

from serverproc import ServerProcess
from wsclient import Client


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def nodes_seen(srv: ServerProcess, tries: int = 8) -> set[str]:
    seen = set()
    for _ in range(tries):
        with urllib.request.urlopen(srv.base + "/healthz", timeout=5) as r:
            seen.add(json.loads(r.read())["node"])
    return seen


def test_two_workers_serve_behind_their_balancer(pg_server: Any, tmp_path: Path) -> None:
    env = {
        "CRISP_DATABASE_URL": pg_server.new_database(),
        "CRISP_WORKERS": "2",
        "CRISP_NODE_ID": "box",
    }
    srv = ServerProcess(tmp_path, env=env).start(timeout=90)
    assert srv.proc is not None
    kids = children(srv.proc.pid)
    try:
        # The banner's "Data:" line comes after the address start() waits for: read on
        deadline = time.monotonic() + 10
        while "Data:" not in "".join(srv.output) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "2 workers behind HAProxy" in "".join(srv.output)
        assert nodes_seen(srv) == {"box-w1", "box-w2"}
        asyncio.run(_play(srv))
        workers = [pid for pid in kids if "haproxy" not in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(workers) == 2, kids
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while len([p for p in children(srv.proc.pid) if p not in kids]) < 1:
            assert time.monotonic() < deadline, "the killed worker was not started again"
            time.sleep(0.2)
        while nodes_seen(srv) != {"box-w1", "box-w2"}:
            assert time.monotonic() < deadline, "the restarted worker is not behind HAProxy"
            time.sleep(0.2)
        kids = children(srv.proc.pid)
        srv.kill()  # even a SIGKILL of the supervisor takes its workers and HAProxy with it
        deadline = time.monotonic() + 20
        while any(Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) for pid in kids):
            assert time.monotonic() < deadline, "a worker outlived its supervisor"
            time.sleep(0.1)
    finally:
        srv.stop()
        for pid in kids:  # SIGTERM stops them all; this only cleans up after a failure
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def _play(srv: ServerProcess) -> None:
    host = srv.create_room("Ana")
    guest = srv.join(host["code"], "Ben")
    clients = [
        Client(srv, host["code"], t, n) for n, t in (("a", host["token"]), ("b", guest["token"]))
    ]
    try:
        for c in clients:
            await c.connect()
        await clients[0].send({"type": "start"})
        deal = await clients[1].wait_type("round", round=1, timeout=20)
        assert deal["round"] == 1
    finally:
        for c in clients:
            await c.close()
