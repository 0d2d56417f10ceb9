"""``./scripts/serve`` started twice, the second time with the package index unreachable: it starts.

A game-night server must restart without network. The first run sets up the runtime-only venv
from ``requirements.lock`` (if it is not set up yet: the index is needed once); the second run,
with ``PIP_NO_INDEX=1``, ``PIP_INDEX_URL`` on a closed port, pip's configuration files ignored and
a stand-in ``pip`` module first on ``PYTHONPATH`` that records any use and fails, must run no pip
at all, change nothing in the venv, start, and answer ``/healthz``; ``--help`` works offline too.

The venv is ``.venv-serve-test`` beside the repository's other venvs (``$CRISP_SERVE_TEST_VENV``
to move it): never the developer's ``.venv`` or ``.venv-serve``. It is kept between runs, so that
``./scripts/test`` stays offline after its first run; when a lock file or pyproject.toml changes,
the first start rebuilds it (about 20 s from the index).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from paths import ROOT

SERVE = ROOT / "scripts" / "serve"
VENV = Path(os.environ.get("CRISP_SERVE_TEST_VENV", ROOT / ".venv-serve-test"))
SETUP_S = 240  # building the venv from the index, the first time only
START_S = 30  # a start with the venv ready


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "CRISP_"))}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    return {**env, "CRISP_SERVE_VENV": str(VENV), "CRISP_LOG_LEVEL": "warning"}


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """The package index unreachable, and any use of pip recorded (and failed)."""
    fake = tmp_path / "no-pip"
    (fake / "pip").mkdir(parents=True)
    used = tmp_path / "pip-was-used"
    (fake / "pip" / "__init__.py").write_text("")
    (fake / "pip" / "__main__.py").write_text(
        f"import sys\nopen({str(used)!r}, 'a').write(' '.join(sys.argv) + '\\n')\nsys.exit(3)\n"
    )
    return {
        **_base_env(),
        "PIP_NO_INDEX": "1",
        "PIP_INDEX_URL": "http://127.0.0.1:9/",
        "PIP_EXTRA_INDEX_URL": "",
        "PIP_FIND_LINKS": "",
        "PIP_CONFIG_FILE": os.devnull,
        "PYTHONPATH": str(fake),
    }


def _venv_state() -> dict[str, float]:
    """Every file of the venv's site-packages (and the stamp) with its modification time."""
    state = {str(p): p.stat().st_mtime for p in VENV.glob("lib/python*/site-packages/*")}
    stamp = VENV / ".crisp-stamp"
    state["stamp:" + stamp.read_text()] = stamp.stat().st_mtime
    return state


class Served:
    """``./scripts/serve --host 127.0.0.1 --port P --data-dir D`` and its output, read in the
    background."""

    def __init__(self, env: dict[str, str], data: Path) -> None:
        self.port = _free_port()
        self.output: list[str] = []
        self.proc = subprocess.Popen(
            [str(SERVE), "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", str(data)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd="/",
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_serving(self, timeout: float) -> float:
        """Seconds until the server says it is serving (its ``Data:`` line)."""
        started = time.monotonic()
        while not any(line.startswith("Data:") for line in self.output):
            left = started + timeout - time.monotonic()
            assert left > 0, "not serving in time:\n" + "".join(self.output)
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            assert line is not None, "./scripts/serve exited:\n" + "".join(self.output)
            self.output.append(line)
        return time.monotonic() - started

    def healthz(self) -> dict[str, object]:
        url = f"http://127.0.0.1:{self.port}/healthz"
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert answer.status == 200
            body: dict[str, object] = json.loads(answer.read())
        return body

    def stop(self) -> int:
        """Ctrl-C, as a person stops it; the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


def assert_runtime_only() -> None:
    """The serve venv holds the runtime lock's packages (and the build backend), not the dev
    tools: no pytest, ruff, mypy, hypothesis or playwright."""
    listed = subprocess.run(
        [
            str(VENV / "bin" / "python"),
            "-c",
            "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'].lower() "
            "for d in m.distributions()))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert {"fastapi", "uvicorn", "pydantic", "crisp-cards"} <= set(listed)
    assert not {"pytest", "ruff", "mypy", "hypothesis", "playwright"} & set(listed), listed


@pytest.mark.slow
def test_serve_restarts_with_the_package_index_unreachable(tmp_path: Path) -> None:
    """First start (sets the venv up if needed), stop; second start offline: no pip, nothing
    installed, serving, /healthz 200, the rooms' data directory the same; then --help offline.
    The venv is runtime-only."""
    data = tmp_path / "crisp-data"
    first = Served(_base_env(), data)
    try:
        first.wait_serving(SETUP_S)
        assert first.healthz()
    finally:
        assert first.stop() == 0, "".join(first.output)
    before = _venv_state()
    assert_runtime_only()
    offline = _offline_env(tmp_path)

    second = Served(offline, data)
    try:
        took = second.wait_serving(START_S)
        assert second.healthz()
    finally:
        assert second.stop() == 0, "".join(second.output)
    text = "".join(second.output)
    print(f"offline start to serving: {took:.2f} s")
    assert not (tmp_path / "pip-was-used").exists(), (tmp_path / "pip-was-used").read_text()
    assert "setting up" not in text and "WARNING" not in text, text
    assert f"Data: {(data / 'crisp.sqlite3').resolve()}" in text
    assert _venv_state() == before, "the second start changed the venv"

    helped = subprocess.run(
        [str(SERVE), "--help"], env=offline, capture_output=True, text=True, timeout=60, check=False
    )
    assert helped.returncode == 0, helped.stderr
    assert "CRISP_DATA_DIR" in helped.stdout and helped.stderr == ""
    assert not (tmp_path / "pip-was-used").exists()
