"""A private data directory: were it 0755 and ``crisp.sqlite3*`` 0644, any local account
could read every running game's server seed, hence every deck. The directory is
0700 and the database files 0600 whatever the umask, and a world-readable data directory the
server did not create is refused with one line saying how to fix it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crisp.server.run.serve import StartError, check_data_dir
from crisp.server.store.sqlite import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o000])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def test_new_data_dir_is_0700_and_database_files_0600(tmp_path: Path, umask: int) -> None:
    data = tmp_path / "deep" / "crisp-data"
    check_data_dir(data)
    assert mode(data) == 0o700
    store = Store(data / "crisp.sqlite3")
    try:
        store.write("ABCDEF", {"x": 1}, [(0, {"e": 1})], 1.0, 1)
        files = sorted(data.glob("crisp.sqlite3*"))
        assert [f.name for f in files] == [
            "crisp.sqlite3",
            "crisp.sqlite3-shm",
            "crisp.sqlite3-wal",
        ]
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    finally:
        store.close()


def test_existing_database_files_are_made_0600(tmp_path: Path) -> None:
    """A database left 0644 by an older version is made private when it is opened."""
    path = tmp_path / "crisp.sqlite3"
    Store(path).close()
    os.chmod(path, 0o644)
    Store(path).close()
    assert mode(path) == 0o600


def test_world_readable_data_dir_is_refused_with_the_fix(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, 0o755)
    with pytest.raises(StartError) as caught:
        check_data_dir(data)
    assert str(caught.value) == (
        f"the data directory {data} can be read by every account on this machine (mode 0755); "
        f"make it private with: chmod 700 {data}"
    )
    os.chmod(data, 0o750)  # the group may read it: the operator's choice
    check_data_dir(data)


def test_crisp_serve_refuses_a_world_readable_data_dir_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, 0o755)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "crisp", "serve", "--host", "127.0.0.1", "--port", "0"),
            "--data-dir",
            str(data),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"crisp serve: the data directory {data} can be read by every account on this machine "
        f"(mode 0755); make it private with: chmod 700 {data}"
    ]
    assert not (data / "crisp.sqlite3").exists()


def test_a_data_dir_an_older_server_left_world_readable_is_made_private(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Upgrading: a data directory that already holds this server's database (an older version
    made it 0755) is tightened to 0700 with one line on stderr, not refused."""
    data = tmp_path / "old-data"
    data.mkdir()
    (data / "crisp.sqlite3").write_bytes(b"")
    os.chmod(data, 0o755)
    check_data_dir(data)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert capsys.readouterr().err.strip() == (
        f"crisp serve: made the data directory {data} private (mode 0755 -> 0700): "
        "it holds this server's database"
    )
