"""A real HAProxy (Debian's package) for tests: the shipped configuration
(crisp/server/run/balancer.py,
deploy/haproxy.cfg) with its own ``bind`` and servers on 127.0.0.1 ports, run in the foreground."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from pgserver import free_port

from crisp.server.run.balancer import haproxy_bin, haproxy_config


class HAProxy:
    def __init__(self, nodes: list[int]) -> None:
        found = haproxy_bin()
        if found is None:
            raise RuntimeError("HAProxy is not installed (apt-get install haproxy)")
        self.bin = found
        self.root = Path(tempfile.mkdtemp(prefix="crisp-haproxy-"))
        self.port = free_port()
        self.cfg = self.root / "haproxy.cfg"
        servers = [f"127.0.0.1:{p}" for p in nodes]
        self.cfg.write_text(haproxy_config(f"127.0.0.1:{self.port}", servers, maxconn=4000))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, up: int, timeout: float = 20) -> HAProxy:
        """Start, and wait until ``up`` servers pass their health check."""
        self.log = open(self.root / "haproxy.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [self.bin, "-db", "-f", str(self.cfg)], stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("haproxy exited")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if r.status == 200 and self.nodes_seen(up):
                        return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("haproxy did not come up")

    def nodes_seen(self, up: int) -> bool:
        """Round-robin requests (no code) reached ``up`` different nodes."""
        import json

        seen = set()
        for _ in range(3 * up):
            with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                seen.add(json.loads(r.read())["node"])
        return len(seen) >= up

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        if self.proc is not None:
            self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)
