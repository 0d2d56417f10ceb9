"""``crisp replay`` and ``crisp verify`` on hostile records. Each one is
answered in one line on stderr with exit 2 (never a traceback), for both games and in every mode
(the result, ``--seat 0``, ``--spectator``), and reading a record takes bounded memory
(crisp.engine.common.recordfile: its caps). And ``crisp simulate --records`` of several
games writes a file ``crisp replay`` reads (one result a line)."""

from __future__ import annotations

import copy
import json
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from crisp_cmd import crisp
from paths import ROOT

from crisp.engine.common.recordfile import (
    RECORD_BYTES_MAX,
    RECORD_DEPTH_MAX,
    RecordFileError,
    read_record_file,
)

CRISP = json.loads((ROOT / "examples" / "three-players.json").read_text(encoding="utf-8"))
CRISPS = json.loads((ROOT / "examples" / "crisps-game.json").read_text(encoding="utf-8"))
MODES = [(), ("--seat", "0"), ("--spectator",)]


def one_line_2(done: subprocess.CompletedProcess[str]) -> str:
    """Exit 2, nothing on stdout, one line on stderr and no traceback."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert done.stdout == "", done.stdout[:200]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    return lines[0]


def _edit(base: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> str:
    record = copy.deepcopy(base)
    change(record)
    return json.dumps(record)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set ``a.b.0.c`` (keys and list indices) to ``value``."""

    def change(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = record
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value

    return change


def _big_seed(base: dict[str, Any]) -> str:
    return '{"seed": ' + "9" * 5000 + ", " + json.dumps(base)[1:]


# (name, the file's text, what the line says): each was a traceback before this change.
HOSTILE: list[tuple[str, str, str]] = [
    (
        "100,000 nested brackets",
        "[" * 100_000 + "]" * 100_000,
        f"nested deeper than {RECORD_DEPTH_MAX}",
    ),
    ("a 5,000-digit number, Crisp", _big_seed(CRISP), "a number of 5000 digits"),
    ("a 5,000-digit number, Crisps!", _big_seed(CRISPS), "a number of 5000 digits"),
    ("t = 1e308, Crisp", _edit(CRISP, _set("rounds.0.actions.0.t", 1e308)), "too large"),
    ("t = 1e308, Crisps!", _edit(CRISPS, _set("actions.0.t", 1e308)), "too large"),
    ("NaN", json.dumps(CRISP).replace('"t": 8.089', '"t": NaN', 1), "NaN is not a JSON number"),
    ("a lone surrogate in a name, Crisp", _edit(CRISP, _set("players.0", "\ud800")), "surrogate"),
    (
        "a lone surrogate in a name, Crisps!",
        _edit(CRISPS, _set("players.1", "\udc00")),
        "surrogate",
    ),
    ("a card that is a list", _edit(CRISP, _set("rounds.0.deck.0", ["6H"])), "unknown card code"),
]


@pytest.mark.parametrize(("name", "text", "says"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_record_is_one_line_and_exit_2(
    tmp_path: Path, name: str, text: str, says: str
) -> None:
    """Replay (each mode) and verify answer in one line, exit 2."""
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    for mode in MODES:
        line = one_line_2(crisp("replay", str(path), *mode))
        assert line.startswith("crisp replay: ") and says in line, (mode, line)
    line = one_line_2(crisp("verify", str(path)))
    assert line.startswith("crisp verify: cannot verify: ") and says in line, line


def test_dev_zero_and_a_directory_are_not_record_files(tmp_path: Path) -> None:
    """``/dev/zero`` is refused unread, not read for ever."""
    for path in ("/dev/zero", str(tmp_path)):
        for command in (("replay", path), ("replay", path, "--seat", "0"), ("verify", path)):
            assert "not a regular file" in one_line_2(crisp(*command))


def test_a_500_mb_list_is_refused_unread(tmp_path: Path) -> None:
    """A file over RECORD_BYTES_MAX (here 500 MB, sparse) is refused from
    its size: it is never read, let alone parsed."""
    path = tmp_path / "huge.json"
    with path.open("wb") as fh:
        fh.write(b"[1,")
        fh.truncate(500_000_000)
    line = one_line_2(crisp("replay", str(path)))
    assert "500,000,000 bytes" in line and "at most 16 MiB" in line
    assert "at most 16 MiB" in one_line_2(crisp("verify", str(path)))


PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(done.returncode, peak_kb, done.stderr.count("\\n"), "Traceback" in done.stderr)
"""


def _long_record(size: int) -> str:
    """A Crisp record of about ``size`` bytes: its first round starts with as many draws at 0 s as
    fit (small objects: the most objects a byte). It is refused at replay (the first draw comes
    before the deal's look), once read: its size is the point."""
    head = json.dumps(CRISP)
    cut = head.index('"actions": [') + len('"actions": [')
    one = '{"t": 0, "seat": 1, "do": "draw"},'
    return head[:cut] + one * ((size - len(head)) // len(one)) + head[cut:]


def _peak_mb(path: Path) -> tuple[int, float]:
    done = subprocess.run(
        [sys.executable, "-c", PEAK, sys.executable, "-m", "crisp", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    code, peak_kb, lines, traceback = done.stdout.split()
    assert lines == "1" and traceback == "False"
    return int(code), int(peak_kb) / 1024


def test_a_68_mb_record_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """Memory is bounded: replaying a 68 MB record once peaked at 555 MB (1,106 MB for this one);
    it is now refused from its size, at the interpreter's own footprint (about 36 MB)."""
    path = tmp_path / "long.json"
    path.write_text(_long_record(68_300_000), encoding="utf-8")
    assert path.stat().st_size > 68_000_000
    code, peak = _peak_mb(path)
    assert code == 2 and peak < 100, peak


def test_a_record_just_under_the_size_cap_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """The largest file read (just under RECORD_BYTES_MAX, all small objects: the worst case)
    stays within about 12 times its size; it is read, then refused by the rules (exit 1)."""
    path = tmp_path / "long.json"
    path.write_text(_long_record(RECORD_BYTES_MAX - 1000), encoding="utf-8")
    size = path.stat().st_size
    assert RECORD_BYTES_MAX - 2000 < size < RECORD_BYTES_MAX
    code, peak = _peak_mb(path)
    assert code == 1 and peak < 12 * size / 2**20, peak
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


def test_the_reader_refuses_infinity_and_a_growing_file(tmp_path: Path) -> None:
    """The caps, read directly: Infinity is not JSON; a file over the cap refused unread."""
    path = tmp_path / "r.json"
    path.write_text('{"t": Infinity}')
    with pytest.raises(RecordFileError, match="Infinity is not a JSON number"):
        read_record_file(path)
    path.write_text('{"t": 1e12}')
    assert read_record_file(path) == {"t": 1e12}
    path.write_text('{"t": -1e13}')
    with pytest.raises(RecordFileError, match="too large"):
        read_record_file(path)
    path.write_text("[" * RECORD_DEPTH_MAX + "]" * RECORD_DEPTH_MAX)
    assert read_record_file(path) is not None
    path.write_text('"[[[[[[[[[[[[[[[[[[[[[[[[[["')  # brackets in a string are no nesting
    assert read_record_file(path) == "[" * 26


def test_simulate_records_of_several_games_replay(tmp_path: Path) -> None:
    """``crisp simulate --records F`` with several games once wrote a list that
    ``crisp replay F`` refused ("a record is a JSON object"); it now prints one result a line,
    each the replay of that record alone (both games)."""
    for game in (("--players", "3"), ("--game", "crisps", "--bots", "normal,random")):
        out = tmp_path / "sim.json"
        made = crisp("simulate", *game, "--games", "3", "--seed", "4", "--records", str(out))
        assert made.returncode == 0, made.stderr
        records = json.loads(out.read_text(encoding="utf-8"))
        done = crisp("replay", str(out))
        assert done.returncode == 0 and done.stderr == "", done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) == 3
        for k, record in enumerate(records):
            alone = tmp_path / f"one{k}.json"
            alone.write_text(json.dumps(record), encoding="utf-8")
            assert crisp("replay", str(alone)).stdout == lines[k] + "\n"
        line = one_line_2(crisp("replay", str(out), "--seat", "0"))
        assert (
            line
            == f"crisp replay: {out} holds 3 records: --seat and --spectator replay a file of one"
        )


def test_a_list_names_the_record_that_is_refused(tmp_path: Path) -> None:
    """A bad record in a list is named ``records[k]`` in the one line; an empty list is 2."""
    bad = copy.deepcopy(CRISP)
    bad["rounds"][0]["deck"][0] = bad["rounds"][0]["deck"][1]
    path = tmp_path / "list.json"
    path.write_text(json.dumps([CRISP, bad]), encoding="utf-8")
    done = crisp("replay", str(path))
    assert done.returncode == 2 and len(done.stdout.splitlines()) == 1
    assert done.stderr.startswith("crisp replay: records[1]: malformed record: rounds[0].deck")
    path.write_text("[]")
    assert "an empty list of records" in one_line_2(crisp("replay", str(path)))
