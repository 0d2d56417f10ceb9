"""``crisp serve`` says in one log line at start when a dependency is installed at a version
outside the range the package declares (the tested one), and says nothing when all are tested."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from serverproc import ServerProcess

from crisp.server.run.untested import (
    untested,
    untested_here,
    untested_line,
    warn_if_untested,
)

DECLARED = [
    "uvicorn<0.55,>=0.54",
    "websockets<17.5,>=17.4",
    'uvloop<0.24,>=0.23; sys_platform != "win32"',
    'pywin32>=300; sys_platform == "win32"',
    'pytest>=9.2; extra == "dev"',
]
TESTED = {"uvicorn": "0.54.0", "websockets": "17.4", "uvloop": "0.23.0"}


def test_versions_inside_their_ranges_are_tested() -> None:
    assert untested(DECLARED, TESTED.get) == []


@pytest.mark.parametrize(
    ("name", "have", "said"),
    [
        ("uvicorn", "0.55.0", "uvicorn 0.55.0 (tested: <0.55,>=0.54)"),
        ("uvicorn", "0.53.9", "uvicorn 0.53.9 (tested: <0.55,>=0.54)"),
        ("websockets", "18.0", "websockets 18.0 (tested: <17.5,>=17.4)"),
        ("websockets", "not-a-version", "websockets not-a-version (tested: <17.5,>=17.4)"),
    ],
)
def test_a_version_outside_its_range_is_named_with_the_tested_range(
    name: str, have: str, said: str
) -> None:
    assert untested(DECLARED, {**TESTED, name: have}.get) == [said]


def test_a_missing_dependency_is_named() -> None:
    installed = {k: v for k, v in TESTED.items() if k != "uvloop"}
    assert untested(DECLARED, installed.get) == ["uvloop missing (tested: <0.24,>=0.23)"]


def test_other_platforms_and_the_dev_extra_are_not_checked() -> None:
    """pywin32 (win32 only) and pytest (the dev extra) are absent, and nothing is said of them."""
    assert untested(DECLARED, TESTED.get) == []


def test_every_untested_version_goes_in_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    found = untested(DECLARED, {**TESTED, "uvicorn": "0.55.0", "websockets": "18.0"}.get)
    log = logging.getLogger("crisp.server.test_untested")
    with caplog.at_level(logging.INFO, logger=log.name):
        warn_if_untested(log, found)
        warn_if_untested(log, [])
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    assert "\n" not in message
    assert "uvicorn 0.55.0 (tested: <0.55,>=0.54); websockets 18.0" in message
    assert untested_line([]) is None


def test_this_environment_runs_tested_versions_only() -> None:
    """The test venv is made from the lock: every installed runtime dependency is a tested one."""
    assert untested_here() == []


def test_an_uninstalled_distribution_declares_nothing() -> None:
    assert untested_here("no-such-distribution-of-crisp") == []


def fake_distribution(where: Path, name: str, version: str) -> Path:
    """A ``.dist-info`` that importlib.metadata finds before the real one (on PYTHONPATH): the
    version it reports changes, the module imported does not."""
    info = where / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    return where


def untested_lines(output: list[str]) -> list[str]:
    return [line for line in output if "untested versions" in line]


def test_serve_says_so_in_one_line_at_start_on_an_untested_uvicorn(tmp_path: Path) -> None:
    fakes = fake_distribution(tmp_path / "fakes", "uvicorn", "0.99.0")
    with ServerProcess(tmp_path / "data", env={"PYTHONPATH": str(fakes)}) as server:
        status, _ = server.request("GET", "/healthz")
        said = untested_lines(server.output)
    assert status == 200
    assert len(said) == 1, server.output
    assert "uvicorn 0.99.0 (tested: <0.55,>=0.54)" in said[0]


def test_serve_says_so_in_one_json_line_with_json_logs(tmp_path: Path) -> None:
    fakes = fake_distribution(tmp_path / "fakes", "websockets", "99.0")
    # at level info: the address the test waits for is an info line in JSON logs
    env = {"PYTHONPATH": str(fakes), "CRISP_LOG_FORMAT": "json", "CRISP_LOG_LEVEL": "info"}
    with ServerProcess(tmp_path / "data", env=env) as server:
        said = untested_lines(server.output)
    assert len(said) == 1, server.output
    line = json.loads(said[0])
    assert (line["level"], line["logger"]) == ("WARNING", "crisp.server")
    assert "websockets 99.0 (tested: <17.5,>=17.4)" in line["message"]


def test_serve_says_nothing_of_versions_when_all_are_tested(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "data") as server:
        status, _ = server.request("GET", "/healthz")
        said = untested_lines(server.output)
    assert status == 200
    assert said == [], server.output
