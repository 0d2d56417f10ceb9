"""deploy/crisp.service run by a real systemd: a Debian root (made once with mmdebstrap from the
machine's Debian sources, then kept in ~/.cache) booted with systemd-nspawn, a throwaway overlay
on top and a network of its own; inside, the steps of docs/operating.md as root (the user, the
venv with the lock's versions and the wheel, the unit, ``systemctl enable --now``); then the server
answers, a room is made and outlives ``systemctl restart``, the process runs as ``crisp`` with its
data private, and ``systemctl stop`` ends it cleanly.

Skipped when not root or without mmdebstrap and systemd-nspawn (.ci/run installs them), or when
the Debian mirror is unreachable and the root is not cached yet."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from wheelkit import ROOT, build, only_one_maker, wheelhouse

NSPAWN = shutil.which("systemd-nspawn")
MMDEBSTRAP = shutil.which("mmdebstrap")
PACKAGES = "systemd,systemd-sysv,dbus,python3,python3-venv,ca-certificates,netbase"
# A root shell's environment in the container (none of this process's PIP_* or PYTHON* settings).
CLEAN_ENV = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"]
CLEAN_ENV += ["LANG=C.UTF-8"]
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "crisp-tests"

pytestmark = pytest.mark.skipif(
    NSPAWN is None or MMDEBSTRAP is None or os.geteuid() != 0,
    reason="needs root, systemd-nspawn (systemd-container) and mmdebstrap (.ci/run installs them)",
)

# The operator's steps of docs/operating.md ("Without Docker"), offline: the lock's wheels and the
# wheel are in /tmp/inst (bound read-only), and the container has no network but its own loopback.
STEPS = """set -e
useradd --system --home-dir /var/lib/crisp --shell /usr/sbin/nologin crisp
python3 -m venv /opt/crisp
/opt/crisp/bin/pip install --quiet --no-index --find-links /tmp/inst/wheels \
    --require-hashes --no-deps -r /tmp/inst/requirements.lock
/opt/crisp/bin/pip install --quiet --no-index --no-deps /tmp/inst/dist/*.whl
cp /tmp/inst/crisp.service /etc/systemd/system/ && systemctl daemon-reload
systemctl enable --now crisp
"""


def debian_root() -> Path:
    """A minimal Debian root with systemd and Python, made once per package list."""
    root = CACHE / f"systemd-root-{hashlib.sha256(PACKAGES.encode()).hexdigest()[:12]}"
    with only_one_maker(root):
        if root.is_dir():
            return root
        partial = root.with_name(root.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        assert MMDEBSTRAP is not None
        done = subprocess.run(
            [MMDEBSTRAP, "--variant=minbase", f"--include={PACKAGES}", "bookworm", str(partial)],
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            try:
                urllib.request.urlopen("http://deb.debian.org/debian/", timeout=15).close()
            except (urllib.error.URLError, OSError):
                pytest.skip("the Debian mirror is unreachable and no Debian root is cached")
            raise AssertionError(f"mmdebstrap failed:\n{done.stderr[-3000:]}")
        partial.rename(root)
    return root


class Container:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc

    def init_pid(self) -> int:
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = children.read_text().split() if children.exists() else []
            if found:
                return int(found[0])
            assert self.proc.poll() is None, "systemd-nspawn exited"
            time.sleep(0.2)
        raise AssertionError("the container's systemd did not start")

    def run(self, script: str, timeout: float = 300) -> str:
        """``sh -c script`` as root inside the container (its namespaces, its systemd)."""
        cmd = ["nsenter", "-t", str(self.init_pid()), "-a", "env", "-i", *CLEAN_ENV]
        cmd += ["sh", "-c", script]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def wait_booted(self, timeout: float = 120) -> None:
        """Until the container's systemd has finished its boot (running, or degraded)."""
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            state = self.run("systemctl is-system-running || true").strip()
            if state in ("running", "degraded"):
                return
            time.sleep(0.5)
        raise AssertionError(f"the container did not boot: {state}")

    def get(self, path: str, body: object = None) -> tuple[int, str]:
        """An HTTP request to the unit's server from inside (127.0.0.1:8000, the container's)."""
        data = "None" if body is None else repr(json.dumps(body).encode())
        code = (
            "import sys, urllib.request, urllib.error\n"
            f"req = urllib.request.Request('http://127.0.0.1:8000{path}', data={data}, "
            "headers={'Content-Type': 'application/json'})\n"
            "try:\n"
            "    r = urllib.request.urlopen(req, timeout=10); print(r.status); "
            "sys.stdout.write(r.read().decode())\n"
            "except urllib.error.HTTPError as e:\n"
            "    print(e.code); sys.stdout.write(e.read().decode())\n"
        )
        status, _, text = self.run(f"python3 -c {_quote(code)}").partition("\n")
        return int(status), text

    def wait_healthy(self, timeout: float = 60) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status, text = self.get("/healthz")
            except AssertionError:
                status, text = 0, ""
            if status == 200:
                answer: dict[str, object] = json.loads(text)
                return answer
            time.sleep(0.5)
        raise AssertionError(self.run("journalctl -u crisp --no-pager | tail -20"))


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


@pytest.fixture(scope="module")
def container(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    root = debian_root()
    work = tmp_path_factory.mktemp("systemd")
    inst = work / "inst"
    built = build(work / "build")
    shutil.copytree(wheelhouse(), inst / "wheels")
    (inst / "dist").mkdir()
    shutil.copy2(built["wheel"], inst / "dist")
    shutil.copy2(ROOT / "requirements.lock", inst)
    shutil.copy2(ROOT / "deploy" / "crisp.service", inst)
    assert NSPAWN is not None
    cmd = [NSPAWN, "-D", str(root), "--boot", "--volatile=overlay", "--private-network"]
    cmd += ["--register=no", "--keep-unit", "--console=pipe", f"--bind-ro={inst}:/tmp/inst"]
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    box = Container(proc)
    try:
        began = time.monotonic()
        box.wait_booted()
        booted = time.monotonic()
        box.run(STEPS)
        health = box.wait_healthy()
        print(
            f"\nsystemd-nspawn: booted in {booted - began:.1f} s; the documented steps and the "
            f"unit's start took {time.monotonic() - booted:.1f} s; version {health['version']}"
        )
        yield box
    finally:
        proc.terminate()  # nspawn asks the container's systemd to power off
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def test_the_unit_serves_a_room_that_outlives_a_restart(container: Container) -> None:
    status, page = container.get("/")
    assert status == 200 and '<script type="module"' in page
    status, made = container.get("/api/rooms", {"name": "Ana"})
    assert status == 201, made
    code = json.loads(made)["code"]
    container.run("systemctl restart crisp")
    assert container.wait_healthy()["rooms"] == 1
    assert container.get(f"/r/{code}")[0] == 200
    assert container.get("/static/games/crisp/rules/en.html")[0] == 200


def test_the_unit_runs_as_its_user_with_private_data(container: Container) -> None:
    pid = container.run("systemctl show -p MainPID --value crisp").strip()
    uid = container.run(f"awk '/^Uid:/ {{print $2}}' /proc/{pid}/status").strip()
    assert uid == container.run("id -u crisp").strip()
    listing = container.run("stat -c '%a %U %n' /var/lib/crisp /var/lib/crisp/crisp.sqlite3")
    assert listing.split("\n")[:2] == [
        "700 crisp /var/lib/crisp",
        "600 crisp /var/lib/crisp/crisp.sqlite3",
    ]
    no_new = container.run(f"awk '/^NoNewPrivs:/ {{print $2}}' /proc/{pid}/status").strip()
    assert no_new == "1"


def test_systemctl_stop_ends_the_server_cleanly(container: Container) -> None:
    """SIGTERM: the server shuts down (its last line) and systemd counts it a success (uvicorn
    ends by the signal it handled, which systemd takes as a clean exit)."""
    container.run("systemctl stop crisp")
    shown = container.run("systemctl show -p ActiveState,Result crisp")
    assert set(shown.split()) == {"ActiveState=inactive", "Result=success"}
    log = container.run("journalctl -u crisp --no-pager -n 20")
    assert "Finished server process" in log.split("Stopping crisp.service")[-1]
    container.run("systemctl start crisp")
    container.wait_healthy()
