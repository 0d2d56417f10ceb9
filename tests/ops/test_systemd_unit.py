"""deploy/crisp.service as systemd reads it: ``systemd-analyze verify`` finds nothing to say of
it (in a scratch root that holds the units it depends on and the command it runs), and
``systemd-analyze security`` rates its hardening. Each check is shown to fail on a broken unit."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "crisp.service"
HOST_UNITS = Path("/usr/lib/systemd/system")
ANALYZE = shutil.which("systemd-analyze")
# systemd-analyze security's exposure, 0 (locked down) to 10 (none), times ten: the unit is at
# 1.5 ("OK"); a unit without its hardening lines is at 9.2 ("UNSAFE").
EXPOSURE_AT_MOST = 20

pytestmark = pytest.mark.skipif(
    ANALYZE is None or not HOST_UNITS.is_dir(),
    reason="systemd-analyze (Debian's systemd package, installed by .ci/run) is not here",
)


def exec_start(unit_text: str) -> list[str]:
    (line,) = [ln for ln in unit_text.splitlines() if ln.startswith("ExecStart=")]
    return line.removeprefix("ExecStart=").split()


def scratch_root(where: Path, unit_text: str, name: str = "crisp.service") -> Path:
    """A root with the host's system units (the targets the unit orders itself after), the
    unit in /etc/systemd/system, and an executable where its ExecStart points."""
    shutil.copytree(HOST_UNITS, where / HOST_UNITS.relative_to("/"), symlinks=True)
    (where / "etc/systemd/system").mkdir(parents=True)
    (where / "etc/systemd/system" / name).write_text(unit_text, encoding="utf-8")
    command = where / exec_start(UNIT.read_text(encoding="utf-8"))[0].lstrip("/")
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\n", encoding="utf-8")
    command.chmod(0o755)
    return where


def analyze(*args: str) -> tuple[int, str]:
    assert ANALYZE is not None
    done = subprocess.run(
        [ANALYZE, *args], capture_output=True, text=True, timeout=120, check=False
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def verify(root: Path, name: str = "crisp.service") -> tuple[int, str]:
    return analyze("verify", f"--root={root}", name)


def test_the_unit_verifies_without_a_word(tmp_path: Path) -> None:
    root = scratch_root(tmp_path, UNIT.read_text(encoding="utf-8"))
    assert verify(root) == (0, "")


@pytest.mark.parametrize(
    ("broken", "said"),
    [
        (("User=crisp", "Usr=crisp"), "Unknown key 'Usr'"),
        (("ProtectSystem=strict", "ProtectSystem=stricter"), "stricter"),
        (
            ("After=network-online.target", "After=network-online.target\nRequires=nothere.target"),
            "nothere.target",
        ),
        (("/opt/crisp/bin/crisp serve", "/opt/crisp/bin/crispy serve"), "crispy"),
        (("[Install]", "[Instal]"), "Instal"),
    ],
)
def test_verify_speaks_of_a_broken_unit(tmp_path: Path, broken: tuple[str, str], said: str) -> None:
    """systemd warns of most mistakes and exits 0: the test fails on any word, not the code."""
    text = UNIT.read_text(encoding="utf-8")
    assert broken[0] in text
    root = scratch_root(tmp_path, text.replace(broken[0], broken[1], 1))
    code, output = verify(root)
    assert said in output, (code, output)


def test_the_units_hardening_is_rated_ok(tmp_path: Path) -> None:
    root = scratch_root(tmp_path, UNIT.read_text(encoding="utf-8"))
    args = ["security", "--offline=yes", f"--root={root}", f"--threshold={EXPOSURE_AT_MOST}"]
    code, output = analyze(*args, "crisp.service")
    assert code == 0, output


def test_a_unit_without_its_hardening_is_rated_over_the_threshold(tmp_path: Path) -> None:
    lines = UNIT.read_text(encoding="utf-8").splitlines()
    first = lines.index("NoNewPrivileges=yes")
    last = next(i for i, ln in enumerate(lines) if ln.startswith("SystemCallArchitectures="))
    soft = "\n".join(lines[:first] + lines[last + 1 :]) + "\n"
    root = scratch_root(tmp_path, soft)
    args = ["security", "--offline=yes", f"--root={root}", f"--threshold={EXPOSURE_AT_MOST}"]
    code, output = analyze(*args, "crisp.service")
    assert code != 0, output


def test_the_unit_runs_the_packages_command_from_the_venv_it_names() -> None:
    """ExecStart is the console script pyproject.toml declares, in the venv the unit's header
    makes; the header installs the distribution by its own name and the tested versions."""
    text = UNIT.read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    command = exec_start(text)
    assert Path(command[0]).name in project["scripts"]
    assert command[1] == "serve"
    venv = str(Path(command[0]).parent.parent)
    assert f"python3 -m venv {venv}" in text
    assert f"{venv}/bin/pip install --require-hashes --no-deps -r requirements.lock" in text
    assert "pip install crisp " not in text and "pip install crisp\n" not in text
