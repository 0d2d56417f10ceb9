"""pyproject.toml's dependency ranges are the tested ones: every version the lock files pin (what
CI, ./scripts/serve and the image install) lies inside the range pyproject declares for it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s\\]+)", re.MULTILINE)
# The lock files are made for CPython 3.11 on Linux (scripts/lock).
LOCKED_FOR = {
    **default_environment(),
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lock_text: str) -> dict[str, Version]:
    return {canonical(n): Version(v) for n, v in PIN.findall(lock_text)}


def outside(declared: list[str], pinned: dict[str, Version], extra: str = "") -> list[str]:
    """Each declared requirement (of this extra, on the locked platform) that the lock does not
    pin, or pins outside its range."""
    wrong: list[str] = []
    for line in declared:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({**LOCKED_FOR, "extra": extra}):
            continue
        have = pinned.get(canonical(req.name))
        if have is None:
            wrong.append(f"{req.name}: not pinned")
        elif not req.specifier.contains(have, prereleases=True):
            wrong.append(f"{req.name}: pinned {have}, declared {req.specifier}")
    return wrong


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def lock(name: str) -> dict[str, Version]:
    return pins((ROOT / name).read_text(encoding="utf-8"))


def test_the_runtime_lock_pins_versions_inside_the_declared_ranges() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert outside(project["dependencies"], lock("requirements.lock")) == []


def test_the_dev_lock_pins_versions_inside_the_declared_ranges() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    pinned = lock("requirements-dev.lock")
    assert outside(project["dependencies"], pinned) == []
    assert outside(project["optional-dependencies"]["dev"], pinned, extra="dev") == []


def test_the_build_lock_pins_a_backend_inside_the_declared_range() -> None:
    build = pyproject()["build-system"]
    assert isinstance(build, dict)
    assert outside(build["requires"], lock("requirements-build.lock")) == []


def test_the_locks_agree_on_every_runtime_version() -> None:
    """The server runs what the tests ran: requirements.lock is the dev lock's runtime part."""
    runtime, dev = lock("requirements.lock"), lock("requirements-dev.lock")
    assert {name: dev.get(name) for name in runtime} == runtime


@pytest.mark.parametrize(
    ("declared", "lock_text", "said"),
    [
        (["uvicorn>=0.54,<0.55"], "uvicorn==0.55.0 \\\n", "uvicorn: pinned 0.55.0, declared"),
        (["uvicorn>=0.54,<0.55"], "uvicorn==0.53.1 \\\n", "uvicorn: pinned 0.53.1, declared"),
        (["websockets>=17.4,<17.5"], "uvicorn==0.54.0\n", "websockets: not pinned"),
        (["Prometheus_Client>=0.26"], "prometheus-client==0.25.0\n", "Prometheus_Client: pinned"),
    ],
)
def test_a_pin_outside_its_range_is_found(declared: list[str], lock_text: str, said: str) -> None:
    (wrong,) = outside(declared, pins(lock_text))
    assert wrong.startswith(said)


def test_a_requirement_for_another_platform_or_extra_is_not_asked_of_the_lock() -> None:
    declared = ["pywin32>=300; sys_platform == 'win32'", "pytest>=9; extra == 'dev'"]
    assert outside(declared, {}) == []
    assert outside(declared, {}, extra="dev") == ["pytest: not pinned"]


def test_uvicorn_and_websockets_have_an_upper_bound_below_the_next_minor_release() -> None:
    """The WebSocket transport is built on their protocol layers: a newer minor release is
    untested until the lock moves to it."""
    project = pyproject()["project"]
    assert isinstance(project, dict)
    declared = {canonical(Requirement(d).name): Requirement(d) for d in project["dependencies"]}
    pinned = lock("requirements.lock")
    for name in ("uvicorn", "websockets"):
        have = pinned[name]
        next_minor = Version(f"{have.major}.{have.minor + 1}")
        assert declared[name].specifier.contains(have)
        assert not declared[name].specifier.contains(next_minor), name
