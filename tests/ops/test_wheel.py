"""The package as an operator installs it: the sdist and the wheel built from a clean copy of the
source (the wheel from the sdist), the wheel installed into a fresh virtual environment with the
lock's pinned dependencies and nothing else of the repository, and ``crisp serve`` started from
it in an empty directory: the game pages, every static file and the rules pages load.

The dependencies come from a wheelhouse downloaded once per lock (beside the test venv), so the
test runs offline after the first run; it is skipped only when the package index is unreachable
and the wheelhouse is not there yet. Run with ``-s`` to see the install-and-start time."""

from __future__ import annotations

import email
import json
import re
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from wheelkit import (
    DIST_NAME,
    ROOT,
    STEM,
    VERSION,
    build,
    env_without_the_repo,
    forbidden,
    run,
    tracked,
    wheelhouse,
)

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build(tmp_path_factory.mktemp("build"))


def test_the_sdist_holds_the_package_docs_and_locks_and_nothing_else(
    built: dict[str, Path],
) -> None:
    with tarfile.open(built["sdist"]) as tar:
        names = [m.name.removeprefix(f"{STEM}/") for m in tar.getmembers() if m.isfile()]
    assert forbidden(names) == []
    assert {n for n in names if n.startswith("crisp/")} == set(tracked("crisp"))
    top = {"pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "PKG-INFO"}
    top |= {"requirements.lock", "requirements-build.lock", "deploy/crisp.service"}
    assert top <= set(names)
    assert set(tracked("docs")) <= set(names)


def test_the_wheel_holds_the_package_its_files_and_the_crisp_command(
    built: dict[str, Path],
) -> None:
    """Every file of crisp/ (the static files, the template, the rules pages) and nothing else;
    its metadata names the distribution, its dependencies and the command."""
    with zipfile.ZipFile(built["wheel"]) as whl:
        names = whl.namelist()
        info = f"{STEM}.dist-info"
        metadata = email.message_from_bytes(whl.read(f"{info}/METADATA"))
        entry_points = whl.read(f"{info}/entry_points.txt").decode()
    assert forbidden(names) == []
    assert {n for n in names if not n.startswith(f"{info}/")} == set(tracked("crisp"))
    assert (metadata["Name"], metadata["Version"]) == (DIST_NAME, VERSION)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert len(runtime) == len(declared["dependencies"])
    assert re.search(r"^crisp = crisp\.cli:main$", entry_points, re.MULTILINE)


# -- installed and served --------------------------------------------------------------------------


class Installed:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        self.crisp = root / "bin" / "crisp"

    def purelib(self) -> Path:
        code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        return Path(run([str(self.python), "-c", code], cwd=self.root).strip())


def install(wheel: Path, where: Path) -> Installed:
    """A fresh venv; the lock's pinned wheels (hash-checked, from the wheelhouse); the wheel."""
    house = wheelhouse()
    venv = Installed(where)
    run([sys.executable, "-m", "venv", str(where)], env=env_without_the_repo())
    pip = [str(venv.python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps"]
    lock = ["--require-hashes", "--find-links", str(house), "-r", str(ROOT / "requirements.lock")]
    run([*pip, *lock], cwd=where, env=env_without_the_repo())
    run([*pip, str(wheel)], cwd=where, env=env_without_the_repo())
    run([str(venv.python), "-m", "pip", "check"], cwd=where, env=env_without_the_repo())
    return venv


@pytest.fixture(scope="module")
def served(
    built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Installed, str, list[str]]]:
    """``crisp serve`` from the installed wheel, in an empty directory; its base URL and output."""
    wheelhouse()  # downloaded before the clock starts (once per lock)
    where = tmp_path_factory.mktemp("installed")
    began = time.monotonic()
    venv = install(built["wheel"], where / "venv")
    installed = time.monotonic()
    cwd = where / "elsewhere"
    cwd.mkdir()
    env = {**env_without_the_repo(), "CRISP_LIMIT_EXEMPT_IPS": '["127.0.0.1"]'}
    cmd = [str(venv.crisp), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", "data"]
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    found: re.Match[str] | None = None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # ends when the server exits
            output.append(line)
            if found := URL.search(line):
                break
        assert found, "".join(output)
        started = time.monotonic()
        print(
            f"\nwheel: installed in {installed - began:.1f} s (fresh venv, the lock's wheels, the "
            f"wheel), crisp serve answered {started - installed:.1f} s later; "
            f"{built['wheel'].stat().st_size // 1024} KB wheel, "
            f"{built['sdist'].stat().st_size // 1024} KB sdist"
        )
        yield venv, f"http://127.0.0.1:{found.group(1)}", output
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def get(url: str, body: object = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_the_installed_package_is_the_wheel_not_the_checkout(
    served: tuple[Installed, str, list[str]],
) -> None:
    venv, _, _ = served
    where = run([str(venv.python), "-c", "import crisp; print(crisp.__file__)"], cwd=venv.root)
    assert Path(where.strip()).is_relative_to(venv.purelib())
    said = run([str(venv.crisp), "--version"], cwd=venv.root)
    assert said == f"crisp {VERSION}\n"


def test_the_served_wheel_serves_a_game_page_and_a_room(
    served: tuple[Installed, str, list[str]],
) -> None:
    _, base, output = served
    status, page = get(f"{base}/")
    assert status == 200 and b'<script type="module"' in page
    status, made = get(f"{base}/api/rooms", {"name": "Ana"})
    assert status == 201, made
    code = json.loads(made)["code"]
    status, room = get(f"{base}/r/{code}")
    assert (status, room) == (200, page)
    status, health = get(f"{base}/healthz")
    assert status == 200 and json.loads(health)["version"] == VERSION
    assert not [line for line in output if "untested versions" in line], output


def test_the_served_wheel_serves_every_static_file_and_the_rules_pages(
    served: tuple[Installed, str, list[str]],
) -> None:
    _, base, _ = served
    files = [rel.removeprefix("crisp/") for rel in tracked("crisp/static")]
    assert any("/rules/" in rel for rel in files)
    for rel in files:
        status, body = get(f"{base}/{rel}")
        assert (rel, status) == (rel, 200)
        assert body == (ROOT / "crisp" / rel).read_bytes(), rel
