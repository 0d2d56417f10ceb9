"""The ``crisp`` command: replay (result, seat streams, errors), simulate, bench, serve (bad
input: one line and exit 2; its help; what it prints)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from crisp_cmd import crisp

from crisp.engine.crisp import Options
from crisp.engine.crisp.record import replay
from crisp.engine.crisp.simulate import play_random


def write(tmp_path: Path, data: object, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_replay_prints_the_result(tmp_path: Path) -> None:
    """crisp replay FILE prints the result object of docs/record.md."""
    game = play_random(4, Options(limit=50), seed=5)
    done = crisp("replay", write(tmp_path, game.record()))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == game.result()
    assert set(json.loads(done.stdout)) == {"rounds", "totals", "over", "winners"}


def test_replay_seat_stream_one_json_object_a_line(tmp_path: Path) -> None:
    """crisp replay FILE --seat N prints seat N's messages, one JSON object a line."""
    game = play_random(3, Options(timer=30), seed=8, max_actions=60)
    path = write(tmp_path, game.record())
    done = crisp("replay", path, "--seat", "1")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["type"] == "game" and lines[1]["type"] == "round"
    assert any(m["type"] == "look" and m["seat"] == 1 for m in lines)
    assert not any(m["type"] == "look" and m["seat"] != 1 for m in lines)
    spectator = crisp("replay", path, "--spectator")
    assert not any(json.loads(line)["type"] == "look" for line in spectator.stdout.splitlines())


def test_replay_seed_only_record(tmp_path: Path) -> None:
    """docs/record.md: a record may give a seed instead of dealers and decks."""
    record = {
        "format": "crisp-record/1",
        "players": ["Ana", "Ben"],
        "options": {"limit": 100, "timer": None, "take_discard": False},
        "seed": 12,
        "rounds": [{"actions": [{"t": 0.5, "seat": 0, "do": "ready"}]}],
    }
    done = crisp("replay", write(tmp_path, record))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"rounds": [], "totals": [0, 0], "over": False, "winners": []}


def test_replay_illegal_action_one_line_with_rule(tmp_path: Path) -> None:
    """An illegal action exits non-zero with one line naming round, index and rule id."""
    game = play_random(2, Options(), seed=3, max_actions=10)
    record = game.record()
    record["rounds"][0]["actions"].append({"t": 999, "seat": 0, "do": "crisp"})
    record["rounds"][0]["actions"].append({"t": 999, "seat": 0, "do": "crisp"})
    done = crisp("replay", write(tmp_path, record))
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    index = len(record["rounds"][0]["actions"]) - 2
    assert f"rounds[0].actions[{index}]" in lines[0] and "R-" in lines[0]
    with_seat = crisp("replay", write(tmp_path, record), "--seat", "0")
    assert with_seat.returncode == 1 and with_seat.stdout == ""


def test_replay_malformed_record_exit_2(tmp_path: Path) -> None:
    """A malformed record or file is its own error (exit 2), saying where."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert crisp("replay", str(bad)).returncode == 2
    assert crisp("replay", str(tmp_path / "missing.json")).returncode == 2
    record = play_random(2, Options(), seed=3, max_actions=10).record()
    record["rounds"][0]["deck"][0] = record["rounds"][0]["deck"][1]
    done = crisp("replay", write(tmp_path, record))
    assert done.returncode == 2 and "rounds[0].deck" in done.stderr


def test_unfinished_game_replays(tmp_path: Path) -> None:
    """A record that stops mid-round is a game in progress: only ended rounds are listed."""
    game = play_random(4, Options(), seed=21, max_actions=40)
    result = replay(game.record()).result
    assert result["over"] is False and result["winners"] == []
    assert len(result["rounds"]) == sum(1 for r in game.rounds if r.over)


def test_simulate_json() -> None:
    """crisp simulate prints win rates and mean scores per seat."""
    done = crisp("simulate", "--players", "3", "--games", "5", "--seed", "2", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == 5 and len(report["seats"]) == 3
    assert sum(s["win_rate"] for s in report["seats"]) >= 1.0


def test_bench_engine_json_shape() -> None:
    """crisp bench engine --json prints figures for each player count (tiny run here)."""
    args = ("--json", "--runs", "1", "--seconds", "0.05", "--players", "2,4")
    done = crisp("bench", "engine", *args)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["players"] for r in report["results"]] == [2, 4]
    assert all(r["actions_per_s"] > 0 and r["rounds_per_s"] > 0 for r in report["results"])
    assert report["policy"] == "random-legal"


# -- bad input: one clear line on stderr, the documented exit status, no traceback ---------------


def one_line(done: subprocess.CompletedProcess[str], status: int = 2) -> str:
    """The command failed with ``status``, printed nothing on stdout and one line on stderr."""
    assert done.returncode == status, (done.returncode, done.stderr)
    assert done.stdout == "", done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_replay_of_a_file_that_is_not_utf8_exit_2(tmp_path: Path) -> None:
    """A record that is not UTF-8 text is a malformed file (exit 2), said in one line."""
    path = tmp_path / "game.json"
    raw = b'{"format": "crisp-record/1", "players": ["\xe9"]}'  # Latin-1, not UTF-8
    path.write_bytes(raw)
    line = one_line(crisp("replay", str(path)))
    assert line == (
        f"crisp replay: {path} is not UTF-8 text (byte 0xe9 at offset {raw.index(0xE9)}): "
        "a record is a JSON file"
    )
    assert "not UTF-8" in one_line(crisp("replay", str(path), "--seat", "0"))


@pytest.mark.parametrize("seat", ["3", "5", "-1"])
def test_replay_seat_outside_the_record_exit_2(tmp_path: Path, seat: str) -> None:
    """--seat N names a seat of the record: on a 3-player record 3, 5 and -1 are refused (exit 2)
    instead of printing a spectator's stream."""
    path = write(tmp_path, play_random(3, Options(), seed=8, max_actions=20).record())
    line = one_line(crisp("replay", path, "--seat", seat))
    assert line == f"crisp replay: --seat {seat}: the record has 3 seats, 0 to 2"
    assert crisp("replay", path, "--seat", "2").returncode == 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("simulate", "--games", "0"), "argument --games: must be 1 or more, not 0"),
        (("simulate", "--games", "-1"), "argument --games: must be 1 or more, not -1"),
        (("simulate", "--games", "many"), "argument --games: must be a whole number"),
        (("bench", "engine", "--runs", "0"), "argument --runs: must be 1 or more, not 0"),
        (("bench", "engine", "--players", "x"), "argument --players: comma-separated player"),
        (("bench", "engine", "--players", "2,9"), "player counts are 2 to 8, not 9"),
        (("bench", "engine", "--seconds", "0"), "argument --seconds: must be more than 0"),
        (("bench", "server", "--actions", "0"), "argument --actions: must be 1 or more"),
        (("bench",), "crisp bench: name a benchmark: engine, server, store or load"),
        ((), "crisp: name a command: replay, simulate, verify, serve, bench"),  # verify too
        (("bench", "load", "--human", "abc"), "argument --human: comma-separated room counts"),
        (("simulate", "--limit", "70"), "argument --limit: invalid choice"),
        (("serve", "--port", "70000"), "crisp serve: --port: Input should be less than or equal"),
    ],
)
def test_bad_arguments_one_line_exit_2(args: tuple[str, ...], said: str) -> None:
    """Bad numbers, a missing subcommand, an unknown choice: one line naming the mistake and
    where help is (not argparse's usage block, not a ZeroDivisionError), exit 2."""
    line = one_line(crisp(*args))
    assert said in line, line


def test_simulate_records_into_a_missing_directory_refused_before_playing(tmp_path: Path) -> None:
    """--records into a directory that does not exist is refused before the first game: a
    million games would take hours, the refusal comes at once."""
    target = tmp_path / "no" / "such" / "x.json"
    started = time.monotonic()
    line = one_line(crisp("simulate", "--games", "1000000", "--records", str(target)))
    assert time.monotonic() - started < 30
    assert line == f"crisp simulate: --records {target}: there is no directory {target.parent}"
    assert "is a directory" in one_line(crisp("simulate", "--records", str(tmp_path)))
    bots = ("simulate", "--bots", "random,random", "--games", "1000000", "--records", str(target))
    assert "there is no directory" in one_line(crisp(*bots))


def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``crisp serve`` on 127.0.0.1 and any free port (it should not start at all here)."""
    return subprocess.run(
        [sys.executable, "-m", "crisp", "serve", "--host", "127.0.0.1", "--port", "0", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_serve_data_dir_that_is_a_file_or_cannot_be_made_exit_2(tmp_path: Path) -> None:
    """--data-dir on a file, or under a file (it cannot be created): one line, exit 2."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    line = one_line(serve("--data-dir", str(afile)))
    assert line == f"crisp serve: the data directory {afile} is a file, not a directory"
    line = one_line(serve("--data-dir", str(afile / "sub")))
    assert line == f"crisp serve: cannot create the data directory {afile / 'sub'}: Not a directory"


def test_serve_bad_setting_from_the_environment_exit_2(tmp_path: Path) -> None:
    """A bad CRISP_ variable is named as such, in one line."""
    done = serve("--data-dir", str(tmp_path), env={"CRISP_RATE_PER_S": "fast"})
    assert one_line(done).startswith("crisp serve: CRISP_RATE_PER_S: Input should be a valid")


def _in_own_mount(setup: str, data: Path) -> subprocess.CompletedProcess[str]:
    """``crisp serve --data-dir data`` after the shell commands ``setup`` (mounts), in a mount
    namespace of its own (``unshare -m``), so that nothing is mounted on this machine."""
    command = (
        f"{setup} && exec {shlex.quote(sys.executable)} -m crisp serve --host 127.0.0.1 "
        f"--port 0 --data-dir {shlex.quote(str(data))}"
    )
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", command],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def can_mount(tmp_path_factory: pytest.TempPathFactory) -> None:
    probe = tmp_path_factory.mktemp("mount")
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) here to mount a small file system for the test")
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {probe}"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        pytest.skip(f"this machine does not let tests mount a tmpfs: {done.stderr.strip()}")


def test_serve_read_only_data_directory_exit_2(tmp_path: Path, can_mount: None) -> None:
    """A data directory on a read-only file system, with or without a database in it (a disk
    remounted read-only under a server with rooms): one line, exit 2, no traceback."""
    empty, full = tmp_path / "empty", tmp_path / "with-rooms"
    empty.mkdir(mode=0o700)
    full.mkdir(mode=0o700)
    with contextlib.closing(sqlite3.connect(full / "crisp.sqlite3")) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE rooms (code TEXT PRIMARY KEY)")
    done = _in_own_mount(f"mount -t tmpfs -o ro,size=1m,mode=700 tmpfs {empty}", empty)
    assert one_line(done) == (
        f"crisp serve: cannot write in the data directory {empty}: Read-only file system"
    )
    done = _in_own_mount(f"mount --bind {full} {full} && mount -o remount,bind,ro {full}", full)
    assert one_line(done) == (
        f"crisp serve: cannot write in the data directory {full}: Read-only file system"
    )


@pytest.mark.parametrize("pages", [16, 15])
def test_serve_full_disk_at_start_exit_2(tmp_path: Path, can_mount: None, pages: int) -> None:
    """A full disk (a 64 KiB tmpfs, filled), or one with a page left (the probe passes, SQLite
    cannot start its log): one line, exit 2, no traceback."""
    fill = f"(dd if=/dev/zero of={tmp_path}/fill bs=4k count={pages} 2>/dev/null || true)"
    done = _in_own_mount(
        f"mount -t tmpfs -o size=64k,mode=700 tmpfs {tmp_path} && {fill}", tmp_path
    )
    line = one_line(done)
    assert line.startswith("crisp serve: cannot "), line
    assert re.search(r"No space left on device|disk is full|disk I/O error", line), line


def test_serve_help_lists_every_setting_with_its_variable_and_default() -> None:
    """crisp serve --help is made from the Settings model: every field, its CRISP_ variable and
    its default, and the options that set it on the command line."""
    from crisp.server.settings import Settings

    done = crisp("serve", "--help")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for name, field in Settings.model_fields.items():
        factory = field.default_factory
        default = factory() if factory else field.default  # type: ignore[call-arg]
        shown = json.dumps(default) if isinstance(default, (bool, list)) else default
        shown = "none" if shown is None else shown
        found = re.search(rf"^  CRISP_{name.upper()}(, --[a-z-]+)? \(default: (.*)\)$", text, re.M)
        assert found, f"CRISP_{name.upper()} is not listed"
        assert found.group(2) == str(shown), name
        if field.description:
            assert field.description.split()[0] in text[found.end() : found.end() + 200], name
    assert "CRISP_PORT, --port (default: 8000)" in text


# -- what crisp serve prints ----------------------------------------------------------------------


def settings(host: str) -> Any:
    from crisp.server.settings import Settings

    return Settings(host=host, data_dir=Path("/srv/crisp"))


def test_loopback_host_says_only_this_machine_can_open_it() -> None:
    """--host 127.0.0.1 (or localhost, ::1) is not announced to phones: it says only this machine
    can open the address, and how to let phones in."""
    from crisp.server.run.serve import banner

    hosts = [
        ("127.0.0.1", "http://127.0.0.1:8000/"),
        ("localhost", "http://localhost:8000/"),
        ("::1", "http://[::1]:8000/"),
    ]
    for host, url in hosts:
        text = banner(settings(host), 8000)
        assert "phone on the same network" not in text and "Phones that can reach" not in text
        lines = text.splitlines()
        assert lines[0] == (
            f"Crisp is serving for this machine only (it listens on {host}: phones cannot open it):"
        )
        assert lines[1] == f"  {url}"
        assert "phones cannot open it" in text and "--host 0.0.0.0" in text
        assert text.splitlines()[-1] == "Data: /srv/crisp/crisp.sqlite3"


def test_every_interface_lists_the_network_address_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """--host 0.0.0.0: the machine's network address for phones, then this machine's; with no
    network address, it says phones cannot reach it (instead of listing only 127.0.0.1)."""
    from crisp.server.run import serve as serve_module

    monkeypatch.setattr(serve_module, "lan_address", lambda: "192.168.1.20")
    text = serve_module.banner(settings("0.0.0.0"), 8000)
    assert text.splitlines()[:3] == [
        "Crisp is serving. Open on a phone on the same network:",
        "  http://192.168.1.20:8000/",
        "On this machine: http://127.0.0.1:8000/",
    ]
    monkeypatch.setattr(serve_module, "lan_address", lambda: None)
    text = serve_module.banner(settings("0.0.0.0"), 8000)
    assert "phone on the same network" not in text and "phones cannot reach it" in text
    assert "On this machine: http://127.0.0.1:8000/" in text
    text = serve_module.banner(settings("192.168.1.20"), 9000)
    assert text.splitlines()[:2] == [
        "Crisp is serving. Phones that can reach 192.168.1.20 open:",
        "  http://192.168.1.20:9000/",
    ]


def test_health_checks_are_left_out_of_the_access_log() -> None:
    """The access-log filter drops uvicorn's records of /healthz (with a query too) and keeps
    every other request; installing it twice installs it once."""
    import logging

    from crisp.server.http.accesslog import SkipHealthChecks, skip_health_checks

    def record(path: str) -> logging.LogRecord:
        args = ("127.0.0.1:5000", "GET", path, "1.1", 200)
        return logging.LogRecord("uvicorn.access", 20, "", 0, '%s - "%s %s HTTP/%s" %d', args, None)

    keep = SkipHealthChecks()
    assert not keep.filter(record("/healthz")) and not keep.filter(record("/healthz?probe=1"))
    assert (
        keep.filter(record("/"))
        and keep.filter(record("/healthz-not"))
        and keep.filter(record("/r/JAKNK"))
    )
    logger = logging.getLogger("test.access")
    skip_health_checks(logger)
    skip_health_checks(logger)
    assert sum(isinstance(f, SkipHealthChecks) for f in logger.filters) == 1


# -- one line and exit 2 for every bad input; a version ------------------------------------------


def test_serve_on_a_port_in_use_names_the_port(tmp_path: Path) -> None:
    """A port in use is one line and exit 2, not uvicorn's ERROR line and its shutdown lines."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--port", str(port), "--data-dir", str(tmp_path))  # the last --port wins
    assert one_line(done) == (
        f"crisp serve: port {port} is in use on 127.0.0.1 (another server?): "
        "choose another with --port (CRISP_PORT)"
    )


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("999.1.1.1", "crisp serve: --host 999.1.1.1 (CRISP_HOST): not an address or a name"),
        ("nohost.invalid", "crisp serve: --host nohost.invalid (CRISP_HOST): not an address"),
        ("192.0.2.1", "crisp serve: --host 192.0.2.1 (CRISP_HOST) is not an address of this"),
    ],
)
def test_serve_with_a_bad_host_names_it_in_one_line(tmp_path: Path, host: str, said: str) -> None:
    """A host that does not resolve, or is not this machine's (192.0.2.1 is
    TEST-NET-1): one line naming it, exit 2."""
    done = serve("--host", host, "--data-dir", str(tmp_path))  # the last --host wins
    assert one_line(done).startswith(said)


def test_serve_on_port_80_unprivileged_says_why_in_one_line(tmp_path: Path) -> None:
    """Port 80 for a user without the privilege (as root, the child runs as
    ``nobody`` through setpriv): one line saying why and what to do, exit 2."""
    unprivileged_from = Path("/proc/sys/net/ipv4/ip_unprivileged_port_start")
    if unprivileged_from.exists() and int(unprivileged_from.read_text()) <= 80:
        pytest.skip("this machine lets any user listen on port 80")
    command = [sys.executable, "-m", "crisp", "serve", "--host", "127.0.0.1", "--port", "80"]
    with tempfile.TemporaryDirectory(dir="/tmp") as parent:  # nobody may not enter tmp_path
        if os.geteuid() == 0:
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv(1) to drop to nobody")
            Path(parent).chmod(0o777)  # the server makes its data directory in it, as nobody
            command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
        done = subprocess.run(
            [*command, "--data-dir", str(Path(parent) / "data")],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=parent,
        )
    assert one_line(done).startswith(
        "crisp serve: port 80 needs privileges this user lacks (ports below 1024)"
    )


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"CRISP_GAMES": '["nosuchgame"]'},
            "crisp serve: CRISP_GAMES: a game is named module:attribute, not 'nosuchgame'",
        ),
        ({"CRISP_GAMES": '["no.such.module:SPEC"]'}, "crisp serve: CRISP_GAMES: No module named"),
        ({"CRISP_ALLOWED_ORIGINS": "not json"}, "crisp serve: CRISP_ALLOWED_ORIGINS: not JSON"),
        ({"CRISP_LOG_LEVEL": "loud"}, "crisp serve: CRISP_LOG_LEVEL: Input should be 'critical'"),
    ],
)
def test_a_bad_setting_names_its_variable(tmp_path: Path, env: dict[str, str], said: str) -> None:
    """A bad setting is one line and exit 2, never a traceback (ValueError, SettingsError)."""
    assert one_line(serve("--data-dir", str(tmp_path), env=env)).startswith(said)


def test_crisp_version_prints_the_package_version() -> None:
    """``crisp --version`` prints the package's version."""
    from importlib.metadata import version

    from crisp.version import DISTRIBUTION

    done = crisp("--version")
    said = f"crisp {version(DISTRIBUTION)}\n"
    assert (done.returncode, done.stdout, done.stderr) == (0, said, "")
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{version(DISTRIBUTION)}"' in pyproject


def test_healthz_says_the_version(tmp_path: Path) -> None:
    """``GET /healthz`` has ``version`` beside its other fields."""
    from importlib.metadata import version

    from serverproc import ServerProcess

    from crisp.version import DISTRIBUTION

    with ServerProcess(tmp_path) as server:
        status, body = server.request("GET", "/healthz")
    assert status == 200
    assert body == {"ok": True, "rooms": 0, "node": None, "version": version(DISTRIBUTION)}
