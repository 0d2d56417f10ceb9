"""``crisp verify FILE`` (docs/fairness.md): exit 0 and ``verified`` on honest records,
1 and the first difference on each field tampered, 2 and one line on stderr (no traceback) on a
record it cannot check."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from crisp_cmd import crisp
from paths import ROOT, TESTS

from crisp.engine.crisp import Options
from crisp.engine.crisp.simulate import play_random
from crisp.games.records import verify_main as main

Record = dict[str, Any]


def honest(seed: int = 1, players: int = 3, **kw: Any) -> Record:
    game = play_random(players, Options(limit=50, **kw), seed, fair=True)
    assert game.over and len(game.rounds) >= 2
    return game.record()


def run(tmp_path: Path, record: Any, capsys: Any) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    code = main([str(path)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("seed", "players", "kw"),
    [
        (1, 2, {}),
        (2, 3, {"timer": 30}),
        (3, 5, {"take_discard": True}),
        (4, 8, {}),
    ],
)
def test_honest_records_verify(
    tmp_path: Path, capsys: Any, seed: int, players: int, kw: dict[str, Any]
) -> None:
    assert run(tmp_path, honest(seed, players, **kw), capsys) == (0, "verified\n", "")


def test_a_file_of_several_records(tmp_path: Path, capsys: Any) -> None:
    """``crisp simulate --games 3 --records`` writes a list: each is checked, named records[k]."""
    records = [honest(s) for s in (5, 6, 7)]
    assert run(tmp_path, records, capsys)[:2] == (0, "verified\n")
    records[2]["rounds"][0]["deck"][0:2] = records[2]["rounds"][0]["deck"][1::-1]
    code, out, _ = run(tmp_path, records, capsys)
    assert code == 1 and out.startswith("records[2]: rounds[0].deck differs at position 0")


def _flip(fields: dict[str, str], key: str) -> None:
    value = fields[key]
    fields[key] = ("1" if value[0] == "0" else "0") + value[1:]


def _swap(deck: list[str], i: int, j: int) -> None:
    deck[i], deck[j] = deck[j], deck[i]


TAMPERS: list[tuple[str, Callable[[Record], None], str]] = [
    (
        "commitment",
        lambda r: _flip(r["fairness"], "commitment"),
        "fairness.commitment differs: SHA-256(server_seed) is ",
    ),
    ("server_seed", lambda r: _flip(r["fairness"], "server_seed"), "fairness.commitment differs"),
    ("client seed", lambda r: r["fairness"]["client_seeds"].__setitem__(1, "me too"), "rounds[0]."),
    (
        "first dealer",
        lambda r: r["rounds"][0].update(dealer=(r["rounds"][0]["dealer"] + 1) % 3),
        "rounds[0].dealer differs: the seeds give seat ",
    ),
    (
        "later dealer",
        lambda r: r["rounds"][1].update(dealer=(r["rounds"][1]["dealer"] + 1) % 3),
        "rounds[1].dealer differs: R-DEALER gives seat ",
    ),
    (
        "first deck",
        lambda r: _swap(r["rounds"][0]["deck"], 10, 40),
        "rounds[0].deck differs at position 10: the seeds give ",
    ),
    (
        "last deck",
        lambda r: _swap(r["rounds"][-1]["deck"], 51, 0),
        "rounds[{last}].deck differs at position 0: the seeds give ",
    ),
]


@pytest.mark.parametrize(("name", "tamper", "says"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_each_field_tampered_differs(
    tmp_path: Path, capsys: Any, name: str, tamper: Callable[[Record], None], says: str
) -> None:
    record = honest(11)
    bad = copy.deepcopy(record)
    tamper(bad)
    assert bad != record
    code, out, err = run(tmp_path, bad, capsys)
    assert code == 1 and err == ""
    assert out.startswith(says.format(last=len(record["rounds"]) - 1)), out
    assert out.count("\n") == 1


MALFORMED: list[tuple[str, Any, str]] = [
    ("not JSON", "{", "not JSON"),
    ("not a record", [1], "a record is a JSON object"),
    (
        "no fairness",
        {"format": "crisp-record/1", "players": ["A", "B"], "rounds": [], "options": {}},
        "has no fairness",
    ),
    ("unfinished", "UNFINISHED", "revealed only once the game is over"),
    ("a bad deck", "BADDECK", "rounds[0].deck"),
    ("a bad seed", "BADSEED", "server_seed is 64"),
]


@pytest.mark.parametrize(("name", "record", "says"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_record_that_cannot_be_checked(
    tmp_path: Path, capsys: Any, name: str, record: Any, says: str
) -> None:
    if record == "UNFINISHED":
        record = play_random(3, Options(), 2, fair=True, max_actions=30).record()
    elif record == "BADDECK":
        record = honest(3)
        record["rounds"][0]["deck"][0] = record["rounds"][0]["deck"][1]
    elif record == "BADSEED":
        record = honest(3)
        record["fairness"]["server_seed"] = "zz"
    code, out, err = run(tmp_path, record, capsys)
    assert code == 2 and out == ""
    assert err.startswith("crisp verify: cannot verify: ") and says in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_legacy_records_cannot_be_verified(tmp_path: Path, capsys: Any) -> None:
    """A record dealt from a SplitMix64 seed (before the scheme) has nothing to check: 2."""
    legacy = TESTS / "fixtures" / "legacy" / "records" / "two-players.json"
    assert main([str(legacy)]) == 2
    assert "has no fairness" in capsys.readouterr().err


def test_the_command(tmp_path: Path) -> None:
    """The ``crisp verify`` subcommand, as a user runs it: a missing file is 2, one line."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps(honest(8)))
    done = crisp("verify", str(path))
    assert (done.returncode, done.stdout, done.stderr) == (0, "verified\n", "")
    missing = crisp("verify", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "cannot read" in missing.stderr and "Traceback" not in missing.stderr


def test_simulate_then_verify(tmp_path: Path) -> None:
    """``crisp simulate --records`` writes records that ``crisp verify`` verifies."""
    out = tmp_path / "sim.json"
    done = crisp("simulate", "--players", "4", "--games", "3", "--seed", "9", "--records", str(out))
    assert done.returncode == 0, done.stderr
    assert all(r["shuffle"] == "hmac-sha256/1" for r in json.loads(out.read_text()))
    checked = crisp("verify", str(out))
    assert (checked.returncode, checked.stdout) == (0, "verified\n")


def test_the_example_fair_game(capsys: Any) -> None:
    """examples/fair-game.json, which docs/fairness.md invites a reader to check."""
    example = ROOT / "examples" / "fair-game.json"
    assert main([str(example)]) == 0 and capsys.readouterr().out == "verified\n"
    from crisp.engine.crisp.record import replay

    assert replay(example).result["over"] is True
