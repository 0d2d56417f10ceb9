"""Podman for the container tests: the command (missing: a skip here, a failure in CI), the
stand-in Debian base (tests/ops/containers/debian-base.sh), image builds shared by the test
workers (one at a time, under a file lock) and ``Container``, a ``crisp serve`` in a container
whose port is published on 127.0.0.1 and that the tests play through like any server."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT
from serverproc import ServerProcess

DEBIAN_BASE = "localhost/crisp-debian-base:bookworm"
BASE_SCRIPT = ROOT / "tests" / "ops" / "containers" / "debian-base.sh"
# A build inside podman reaches the package index only with the host's CA bundle.
HOST_CERTS = "/etc/ssl/certs"
PODMAN_TIMEOUT_S = 300.0  # one podman command on a loaded machine


def podman_or_skip() -> str:
    """The podman command; without it the test is skipped, or fails under CI (CI=true), where
    .ci/podman-setup installs it."""
    found = shutil.which("podman")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("podman is missing: CI must run .ci/podman-setup before the tests")
    pytest.skip("podman is not installed (.ci/podman-setup installs it)")


def podman(
    *args: str, timeout: float = PODMAN_TIMEOUT_S, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``podman ARGS``, output captured; a non-zero exit raises unless ``check`` is False."""
    done = subprocess.run(
        ["podman", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done


@contextlib.contextmanager
def build_lock() -> Iterator[None]:
    """One build at a time on this machine: the test workers share images by name."""
    path = Path(tempfile.gettempdir()) / "crisp-podman-build.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_debian_base() -> None:
    """The stand-in base image, built by tests/ops/containers/debian-base.sh if missing."""
    with build_lock():
        done = subprocess.run(
            [str(BASE_SCRIPT), DEBIAN_BASE],
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
        )
    assert done.returncode == 0, f"{BASE_SCRIPT.name} failed:\n{done.stdout}\n{done.stderr}"


@dataclass(frozen=True)
class Built:
    tag: str
    seconds: float
    size_mb: float


def build_image(tag: str, build_args: dict[str, str], context: Path = ROOT) -> Built:
    """``podman build --format docker`` (OCI, podman's default, drops HEALTHCHECK) of the
    context's Dockerfile, with the host's CA bundle mounted read-only for pip."""
    args = [f"--build-arg={key}={value}" for key, value in build_args.items()]
    with build_lock():
        start = time.monotonic()
        podman(
            "build",
            "--format=docker",
            f"--volume={HOST_CERTS}:{HOST_CERTS}:ro",
            *args,
            f"--tag={tag}",
            str(context),
            timeout=1800,
        )
        seconds = time.monotonic() - start
    size = int(podman("image", "inspect", tag, "--format", "{{.Size}}").stdout)
    return Built(tag, seconds, size / 1e6)


def inspect(kind: str, name: str) -> dict[str, Any]:
    """``podman KIND inspect NAME`` (kind: image, container, volume), its one object."""
    [found] = json.loads(podman(kind, "inspect", name).stdout)
    result: dict[str, Any] = found
    return result


class Container(ServerProcess):
    """``crisp serve`` in a container named ``name`` from ``image``, its data in the volume
    ``volume`` at /data, port 8000 published on 127.0.0.1 (a free port). ``start`` creates and
    starts it the first time and starts it again after a stop or a kill; the HTTP helpers of
    ``ServerProcess`` go through the published port."""

    def __init__(
        self,
        image: str,
        name: str,
        volume: str,
        *,
        clock_speed: float = 1.0,
        env: dict[str, str] | None = None,
        options: Sequence[str] = (),
    ) -> None:
        super().__init__(Path("/data"), clock_speed=clock_speed, env=env)
        self.image = image
        self.name = name
        self.volume = volume
        self.options = list(options)
        self.created = False

    def start(self, timeout: float = 120.0) -> Container:
        if self.created:
            podman("start", self.name)
        else:
            env = {"CRISP_CLOCK_SPEED": str(self.clock_speed), **self.env}
            podman(
                "run",
                "--detach",
                f"--name={self.name}",
                "--publish=127.0.0.1::8000",
                f"--volume={self.volume}:/data",
                *[f"--env={key}={value}" for key, value in env.items()],
                *self.options,
                self.image,
            )
            self.created = True
        self.port = self._published_port()
        self.wait_healthy(timeout)
        return self

    def _published_port(self) -> int:
        text = podman("port", self.name, "8000/tcp").stdout.strip()
        host, _, port = text.splitlines()[0].rpartition(":")
        assert host == "127.0.0.1", f"published on {host}, not 127.0.0.1 only"
        return int(port)

    def wait_healthy(self, timeout: float) -> None:
        """Until /healthz answers 200 through the published port."""
        deadline = time.monotonic() + timeout
        while True:
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(f"{self.base}/healthz", timeout=5) as answer,
            ):
                if answer.status == 200:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} does not answer /healthz:\n{self.logs()}")
            time.sleep(0.25)

    def restart(self, timeout: float = 120.0) -> None:
        podman("restart", self.name)
        self.port = self._published_port()
        self.wait_healthy(timeout)

    def kill(self) -> None:
        """SIGKILL to the server (PID 1): no shutdown code runs."""
        podman("kill", "--signal=KILL", self.name)
        podman("wait", self.name)

    def stop(self) -> None:
        podman("stop", self.name, check=False)

    def exec(self, *command: str) -> subprocess.CompletedProcess[str]:
        return podman("exec", self.name, *command, check=False)

    def logs(self) -> str:
        done = podman("logs", self.name, check=False)
        return done.stdout + done.stderr

    def remove(self) -> None:
        podman("rm", "--force", "--time=0", self.name, check=False)


@contextlib.contextmanager
def volume(name: str) -> Iterator[str]:
    """A new named volume, removed afterwards (with any container left on it)."""
    podman("volume", "rm", "--force", name, check=False)
    podman("volume", "create", name)
    try:
        yield name
    finally:
        podman("volume", "rm", "--force", name, check=False)
