"""The package built and its dependencies fetched as an operator does, for the tests that install
it (tests/ops/test_wheel.py, test_systemd_run.py): the sdist from a clean copy of the source, the
wheel from the unpacked sdist, both with the build backend of the test venv (no download); the
wheels requirements.lock pins, downloaded once per lock beside the test venv (offline after)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]  # tests/support/wheelkit.py
DIST_NAME = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
STEM = f"{DIST_NAME.replace('-', '_')}-{VERSION}"
# PEP 517's hooks of the build backend the test venv holds (requirements-build.lock): no download.
BUILD = (
    "import sys; from setuptools import build_meta as b; "
    "print(getattr(b, sys.argv[1])(sys.argv[2]))"
)
# Never in an sdist or a wheel: environments, caches, VCS data, databases, test output.
NEVER = {".venv", ".git", "__pycache__", "node_modules", ".pytest_cache", ".mypy_cache"}
NEVER |= {".ruff_cache", ".hypothesis", "artifacts", "crisp-data", "tests"}
NEVER_SUFFIXES = (".pyc", ".pyo", ".sqlite3", ".sqlite3-wal", ".sqlite3-shm")


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"{cmd}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def tracked(under: str = ".") -> list[str]:
    """The files a clean clone has (tracked, or new and not ignored), relative to the root."""
    listed = run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard", "--", under], cwd=ROOT)
    return sorted(p for p in listed.split("\0") if p and (ROOT / p).is_file())


def clean_copy(dest: Path) -> Path:
    """The source as a clean clone has it (a build writes its egg-info there, not in the
    checkout)."""
    for rel in tracked():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    return dest


def forbidden(names: list[str]) -> list[str]:
    return [n for n in names if NEVER & set(n.split("/")) or n.endswith(NEVER_SUFFIXES)]


def env_without_the_repo() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}


def index_reachable() -> bool:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=15):
            return True
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def only_one_maker(target: Path) -> Iterator[None]:
    """Held while ``target`` is made: parallel test workers make it once, the others wait."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(target.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def wheelhouse() -> Path:
    """The wheels requirements.lock pins (hash-checked), downloaded once per lock."""
    lock = (ROOT / "requirements.lock").read_bytes()
    house = Path(sys.prefix) / "crisp-wheelhouse" / hashlib.sha256(lock).hexdigest()[:16]
    with only_one_maker(house):
        if house.is_dir():
            return house
        partial = house.with_name(house.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--require-hashes", "--no-deps"]
        done = subprocess.run(
            [*pip, "-r", str(ROOT / "requirements.lock"), "-d", str(partial)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            if not index_reachable():
                pytest.skip("the package index is unreachable and the lock's wheels are not cached")
            raise AssertionError(f"pip download failed:\n{done.stderr}")
        partial.rename(house)
    return house


def build(work: Path) -> dict[str, Path]:
    """The sdist (from a clean copy of the source) and the wheel (from the unpacked sdist)."""
    source = clean_copy(work / "source")
    dist = work / "dist"
    made = run([sys.executable, "-c", BUILD, "build_sdist", str(dist)], cwd=source)
    sdist = dist / made.split()[-1]
    with tarfile.open(sdist) as tar:
        tar.extractall(work / "unpacked", filter="data")
    unpacked = work / "unpacked" / STEM
    made = run([sys.executable, "-c", BUILD, "build_wheel", str(dist)], cwd=unpacked)
    return {"sdist": sdist, "wheel": dist / made.split()[-1]}
