"""A compose file brought up for real with podman-compose from the package index (in a virtual
environment of its own, ./.venv-podman-compose, from tests/ops/containers/podman-compose.lock,
hash-checked, made once: offline after that), with the tests' override of its images
(tests/ops/containers/*.standins.yaml), and the stand-in images those name, built here."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import podman as pm
from paths import ROOT

CONTAINERS = ROOT / "tests" / "ops" / "containers"
COMPOSE = ROOT / "compose.yaml"
CLUSTER = ROOT / "compose.cluster.yaml"
# The tests' override of each compose file: its images, and nothing else.
OVERRIDES = {
    COMPOSE: CONTAINERS / "compose.standins.yaml",
    CLUSTER: CONTAINERS / "compose.cluster.standins.yaml",
}
START_S = 240.0  # real seconds a stack may take to serve, on a loaded machine
LOCK = CONTAINERS / "podman-compose.lock"
VENV = ROOT / ".venv-podman-compose"
CRISP_IMAGE = "localhost/crisp-test/crisp:latest"
# The stand-ins, by Containerfile, under the names the override files give them.
STANDINS = {
    "caddy": "localhost/crisp-test/caddy:2.10.2-alpine",
    "haproxy": "localhost/crisp-test/haproxy:2.8-alpine",
    "postgres": "localhost/crisp-test/postgres:16-alpine",
}


def podman_compose() -> Path:
    """The podman-compose command of ./.venv-podman-compose, made from the lock if missing or
    made from another lock."""
    stamp = VENV / "lock.sha256"
    wanted = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    command = VENV / "bin" / "podman-compose"
    with pm.build_lock():
        if command.exists() and stamp.exists() and stamp.read_text() == wanted:
            return command
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
        pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "--require-hashes", "-r", str(LOCK)], check=True, timeout=600)
        stamp.write_text(wanted)
    return command


def build_images(*standins: str) -> None:
    """The crisp image (the Dockerfile on the stand-in Debian base) and the stand-ins named."""
    pm.ensure_debian_base()
    pm.build_image(CRISP_IMAGE, {"BASE": pm.DEBIAN_BASE})
    for name in standins:
        # apt reaches Debian's mirror over plain HTTP (its files are signed): no CA bundle, and
        # none mounted (ssl-cert, which postgresql needs, writes into /etc/ssl/certs).
        with pm.build_lock():
            pm.podman(
                "build",
                "--format=docker",
                f"--build-arg=BASE={pm.DEBIAN_BASE}",
                f"--file={CONTAINERS / f'{name}.Containerfile'}",
                f"--tag={STANDINS[name]}",
                str(CONTAINERS),
                timeout=1800,
            )


class Stack:
    """``podman-compose -p PROJECT -f FILE -f OVERRIDE``, with ``env`` for the interpolation
    of the compose file (its .env). ``up`` returns the seconds it took; ``down`` removes the
    containers, the network and the volumes."""

    def __init__(
        self, project: str, file: Path, override: Path | None, env: dict[str, str]
    ) -> None:
        self.project = project
        self.files = ["-f", str(file)] + (["-f", str(override)] if override else [])
        self.env = {**os.environ, **env}
        self.command = str(podman_compose())

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.command, "-p", self.project, *self.files, *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=ROOT,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"podman-compose {' '.join(args)}:\n{done.stderr[-3000:]}"
        return done

    def config(self) -> dict[str, object]:
        """The merged configuration, as podman-compose reads it (YAML, read by its PyYAML)."""
        text = self.run("config").stdout
        python = str(VENV / "bin" / "python")
        code = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"
        done = subprocess.run(
            [python, "-c", code], input=text, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        value: dict[str, object] = json.loads(done.stdout)
        return value

    def up(self) -> float:
        start = time.monotonic()
        self.run("up", "--detach", "--no-build")
        return time.monotonic() - start

    def down(self) -> None:
        self.run("down", "--volumes", "--timeout", "5")

    def container(self, service: str) -> str:
        return f"{self.project}_{service}_1"

    def address(self, service: str) -> str:
        found = pm.inspect("container", self.container(service))
        [net] = found["NetworkSettings"]["Networks"].values()
        return str(net["IPAddress"])

    def network(self, name: str) -> str:
        return f"{self.project}_{name}"

    def logs(self, service: str) -> str:
        done = pm.podman("logs", self.container(service), check=False)
        return done.stdout + done.stderr


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
