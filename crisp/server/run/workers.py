"""``crisp serve --workers N``: N server processes on this machine, one core each, sharing their
rooms through PostgreSQL (``CRISP_DATABASE_URL``) behind HAProxy, which listens on ``--host`` and
``--port`` and routes each room's requests to the process that owns it (``balancer.py``). The
same mechanism as a cluster of machines (docs/operating.md: Scale out). A worker that dies is
started again; until then HAProxy's health checks send its rooms to the others, which claim them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

from crisp.server.run.balancer import haproxy_bin, haproxy_config
from crisp.server.settings import Settings

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/")


def serve_command(port: int, data_dir: str | Path, clock_speed: float) -> list[str]:
    """``python -m crisp serve`` on 127.0.0.1 at ``port`` (0: any free one), with its data in
    ``data_dir``."""
    return [
        *(sys.executable, "-m", "crisp", "serve", "--host", "127.0.0.1", "--port", str(port)),
        *("--data-dir", str(data_dir), "--clock-speed", str(clock_speed)),
    ]


def _die_with_parent() -> None:
    """In a child, before it runs: on Linux, SIGTERM when the supervisor dies (even by SIGKILL),
    so no worker or HAProxy outlives it."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


class WorkersError(Exception):
    """The workers cannot start: one line to show."""


def _free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


class Workers:
    def __init__(self, settings: Settings) -> None:
        if not settings.database_url:
            raise WorkersError(
                "--workers needs CRISP_DATABASE_URL (postgresql://…): the "
                "processes share their rooms through PostgreSQL"
            )
        found = haproxy_bin()
        if found is None:
            raise WorkersError(
                "--workers needs HAProxy in front of the processes (apt-get install haproxy)"
            )
        self.settings = settings
        self.haproxy_bin = found
        self.ports = [_free_port() for _ in range(settings.workers)]
        self.port = settings.port or _free_port(settings.host if settings.host else "0.0.0.0")
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * settings.workers
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.dir = Path(tempfile.mkdtemp(prefix="crisp-workers-"))
        self.stopping = False

    def _env(self, i: int) -> dict[str, str]:
        node = self.settings.node_id or socket.gethostname()
        return {
            **os.environ,
            "CRISP_WORKERS": "1",
            "CRISP_NODE_ID": f"{node}-w{i + 1}",
            # HAProxy reaches the workers from 127.0.0.1 (they listen there only): trusted alone
            "CRISP_FORWARDED_ALLOW_IPS": '["127.0.0.1"]',
        }

    def _start(self, i: int) -> subprocess.Popen[bytes]:
        cmd = serve_command(self.ports[i], self.settings.data_dir, self.settings.clock_speed)
        proc = subprocess.Popen(
            cmd,
            env=self._env(i),
            stdout=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - no threads here
        )
        self.procs[i] = proc
        return proc

    def _wait_healthy(self, port: int, timeout: float = 60) -> None:
        import urllib.request

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        raise WorkersError(f"a worker did not start on port {port}")

    def run(self, ready: str) -> int:
        """Start the workers and HAProxy, print ``ready``, then keep the workers running until
        SIGTERM or SIGINT."""
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        try:
            for i in range(len(self.ports)):
                self._start(i)
            for port in self.ports:
                self._wait_healthy(port)
            cfg = self.dir / "haproxy.cfg"
            host = "" if self.settings.host in ("0.0.0.0", "") else self.settings.host
            servers = [f"127.0.0.1:{p}" for p in self.ports]
            cfg.write_text(haproxy_config(f"{host}:{self.port}", servers))
            self.haproxy = subprocess.Popen(
                [self.haproxy_bin, "-db", "-f", str(cfg)],
                preexec_fn=_die_with_parent,  # noqa: PLW1509 - no threads here
            )
            self._wait_healthy(self.port, 20)
            print(ready, flush=True)
            while not self.stopping:
                time.sleep(0.5)
                self._revive()
        finally:
            self._shutdown()
        return 0

    def _revive(self) -> None:
        for i, proc in enumerate(self.procs):
            if not self.stopping and proc is not None and proc.poll() is not None:
                print(
                    f"crisp serve: worker {i + 1} exited ({proc.returncode}); starting it again",
                    file=sys.stderr,
                    flush=True,
                )
                self._start(i)
        if self.haproxy is not None and self.haproxy.poll() is not None and not self.stopping:
            raise WorkersError("HAProxy exited")

    def _stop(self, _sig: int, _frame: FrameType | None) -> None:
        self.stopping = True

    def _shutdown(self) -> None:
        for proc in [*self.procs, self.haproxy]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in [*self.procs, self.haproxy]:
            if proc is not None:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
