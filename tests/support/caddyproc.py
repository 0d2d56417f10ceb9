"""A real Caddy (Debian's package) for tests: the shipped deploy/Caddyfile, with its site on
``http://127.0.0.1:PORT`` (no TLS: no certificate to get) bound to 127.0.0.1, and its
``reverse_proxy`` pointed at a server on 127.0.0.1; no admin endpoint, state in a temporary
directory. Run in the foreground."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from paths import ROOT
from pgserver import free_port

CADDYFILE = ROOT / "deploy" / "Caddyfile"


def caddy_bin() -> str | None:
    return shutil.which("caddy") or next((p for p in ("/usr/bin/caddy",) if Path(p).exists()), None)


class Caddy:
    def __init__(self, upstream_port: int) -> None:
        found = caddy_bin()
        if found is None:
            raise RuntimeError("Caddy is not installed (apt-get install caddy)")
        self.bin = found
        self.root = Path(tempfile.mkdtemp(prefix="crisp-caddy-"))
        self.port = free_port()
        text = CADDYFILE.read_text(encoding="utf-8")
        assert "reverse_proxy crisp:8000" in text and text.count("{$CRISP_DOMAIN} {") == 1
        site = text.replace("reverse_proxy crisp:8000", f"reverse_proxy 127.0.0.1:{upstream_port}")
        site = site.replace("{$CRISP_DOMAIN} {", "{$CRISP_DOMAIN} {\n\tbind 127.0.0.1", 1)
        self.cfg = self.root / "Caddyfile"
        self.cfg.write_text("{\n\tadmin off\n}\n\n" + site, encoding="utf-8")
        self.env = {
            **os.environ,
            "CRISP_DOMAIN": f"http://127.0.0.1:{self.port}",
            "HOME": str(self.root),
            "XDG_DATA_HOME": str(self.root / "data"),
            "XDG_CONFIG_HOME": str(self.root / "config"),
        }
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20) -> Caddy:
        self.log = open(self.root / "caddy.log", "wb")  # noqa: SIM115 - closed in stop()
        cmd = [self.bin, "run", "--config", str(self.cfg), "--adapter", "caddyfile"]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("caddy exited:\n" + (self.root / "caddy.log").read_text())
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return self
            except (OSError, urllib.error.HTTPError):
                pass
            time.sleep(0.1)
        raise RuntimeError("caddy did not come up:\n" + (self.root / "caddy.log").read_text())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc is not None:
            self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Caddy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
