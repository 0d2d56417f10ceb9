"""A real ``crisp serve`` process on 127.0.0.1 for tests: start, stop, SIGKILL, restart."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/")


class ServerProcess:
    def __init__(
        self,
        data_dir: Path,
        *,
        clock_speed: float = 1.0,
        env: dict[str, str] | None = None,
        port: int = 0,
    ) -> None:
        self.data_dir = data_dir
        self.clock_speed = clock_speed
        self.env = env or {}
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.output: list[str] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> ServerProcess:
        # Tests play many rooms from 127.0.0.1: no rate limit for it unless a test sets one
        # (tests/server/limits/test_limits_*.py set CRISP_LIMIT_EXEMPT_IPS=[]).
        env = {
            **os.environ,
            "CRISP_LOG_LEVEL": "warning",
            "CRISP_LIMIT_EXEMPT_IPS": '["127.0.0.1"]',
            **self.env,
        }
        cmd = [
            sys.executable,
            "-m",
            "crisp",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--clock-speed",
            str(self.clock_speed),
        ]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.output.append(line)
            found = URL.search(line)
            if found:
                self.port = int(found.group(1))
                self._drain()
                return self
        self.kill()
        raise RuntimeError("crisp serve did not start:\n" + "".join(self.output))

    def _drain(self) -> None:
        """Keep reading the server's output in the background (so it never blocks on a pipe)."""
        import threading

        def pump() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                self.output.append(line)

        threading.Thread(target=pump, daemon=True).start()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- HTTP ---------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"content-type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                raw = resp.read()
                status = resp.status
        except urllib.error.HTTPError as err:
            raw = err.read()
            status = err.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode()

    def create_room(self, name: str) -> dict[str, Any]:
        status, body = self.request("POST", "/api/rooms", {"name": name})
        assert status == 201, body
        result: dict[str, Any] = body
        return result

    def join(self, code: str, name: str) -> dict[str, Any]:
        status, body = self.request("POST", f"/api/rooms/{code}/join", {"name": name})
        assert status == 201, body
        result: dict[str, Any] = body
        return result
