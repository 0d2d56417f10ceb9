"""``crisps-record/1`` (docs/record-crisps.md) and ``crisp replay`` on it: the result line, exit
1 naming the illegal action and its rule, exit 2 on a malformed record, ``--seat``/``--spectator``
streams; Crisp's own replay is untouched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from crisps_kit import pass_, play, record, stack
from paths import ROOT

from crisp.cli import main
from crisp.engine.common.fairness import Fairness
from crisp.engine.crisps import CrispsGame, CrispsOptions
from crisp.engine.crisps.record import RecordError, load, replay

EXAMPLE = ROOT / "examples/crisps-game.json"
CASE1 = stack("22223456788X", "11134567999X")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: Any, name: str = "r.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_replay_prints_rounds_scores_over_winner(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["replay", str(EXAMPLE)], capsys)
    assert code == 0 and err == ""
    result = json.loads(out)
    assert set(result) == {"game", "rounds", "scores", "over", "winner"}
    assert result["game"] == "crisps" and result["over"] is True
    assert max(result["scores"]) == 3 and result["winner"] == result["scores"].index(3)
    assert result["rounds"][-1]["scores"] == result["scores"]
    assert 3 <= len(result["rounds"]) <= 5


def test_replay_unfinished_round_has_null_winner_and_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, record([CASE1], [play(0, "7"), play(1, "X")]))
    code, out, _ = run(["replay", path], capsys)
    assert code == 0
    assert json.loads(out) == {
        "game": "crisps",
        "rounds": [{"starter": 0, "winner": None, "scores": None}],
        "scores": [0, 0],
        "over": False,
        "winner": None,
    }


def test_replay_illegal_action_exit_1_names_action_and_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, record([CASE1], [play(0, "8"), play(1, "111")]))
    code, out, err = run(["replay", path], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert 'actions[1] {"seat":1,"do":"play","cards":"111"}' in err and "CS-SPECIAL" in err


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        "[]",
        {"format": "crisps-record/1"},
        {**record([CASE1], []), "decks": ["1234"]},
        {**record([CASE1], []), "players": ["Ana"]},
        {**record([CASE1], []), "options": {"timer": 20}},
        {**record([CASE1], []), "actions": ["play"]},
        {**record([CASE1], []), "actions": [{"seat": 0, "do": "pass", "t": -1}]},
        {**record([CASE1], []), "extra": 1},
        {**record([], [])},
    ],
)
def test_replay_malformed_exit_2(
    bad: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if isinstance(bad, dict) and bad.get("format") != "crisps-record/1":
        bad = {**bad, "format": "crisps-record/1"}
    code, out, err = run(["replay", write(tmp_path, bad)], capsys)
    assert code == 2 and out == "" and err.startswith("crisp replay:"), err


def test_replay_too_few_decks_is_malformed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = record([stack("112233445566", "77889999XXXX")], [play(0, "112233445566")])
    code, _, err = run(["replay", write(tmp_path, rec)], capsys)
    assert code == 2 and "no deck for round 2" in err


def test_replay_seat_and_spectator_streams(capsys: pytest.CaptureFixture[str]) -> None:
    streams = {}
    for who in (["--seat", "0"], ["--seat", "1"], ["--spectator"]):
        code, out, _ = run(["replay", *who, str(EXAMPLE)], capsys)
        assert code == 0
        streams[who[-1]] = [json.loads(line) for line in out.splitlines()]
    rounds = {k: [m for m in v if m["type"] == "round"] for k, v in streams.items()}
    assert all("hand" in m for m in rounds["0"]) and all("hand" in m for m in rounds["1"])
    assert not any("hand" in m for m in rounds["--spectator"])
    assert rounds["0"][0]["hand"] != rounds["1"][0]["hand"]
    assert streams["0"][0]["type"] == "game" and streams["0"][-1]["type"] == "game_over"
    code, _, err = run(["replay", "--seat", "2", str(EXAMPLE)], capsys)
    assert code == 2 and "0 to 1" in err


def test_replay_is_byte_identical_in_a_real_process() -> None:
    args = [sys.executable, "-m", "crisp", "replay", "--seat", "1", str(EXAMPLE)]
    first = subprocess.run(args, capture_output=True, check=True, cwd=ROOT).stdout
    again = subprocess.run(args, capture_output=True, check=True, cwd=ROOT).stdout
    assert first == again and first.count(b"\n") > 50


def test_crisp_replay_of_crisp_records_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["replay", str(ROOT / "examples/fair-game.json")], capsys)
    assert code == 0 and "rounds" in json.loads(out) and "game" not in json.loads(out)


def test_record_round_trip_seed_decks_fairness() -> None:
    g = CrispsGame(["Ana", "Ben"], CrispsOptions(timer=45), seed=11)
    g.start()
    g.advance(45.0)
    rec = g.record()
    assert rec["seed"] == 11 and rec["first_starter"] in (0, 1) and len(rec["decks"]) == 1
    assert rec["actions"] == [{"seat": rec["first_starter"], "do": "timeout", "t": 45.0}]
    assert replay(rec).game.record() == rec
    seedless = {k: v for k, v in rec.items() if k not in ("decks", "first_starter")}
    assert replay(seedless).game.record() == rec  # the seed alone deals the same
    fair = Fairness(bytes(range(32)), ("ab", ""))
    f = CrispsGame(["Ana", "Ben"], fairness=fair)
    f.start()
    frec = f.record()
    assert frec["shuffle"] == "hmac-sha256/1" and "server_seed" not in frec["fairness"]
    again = replay(frec)
    assert [o.msg for o in again.outs] == [
        o.msg for o in CrispsGame(["Ana", "Ben"], fairness=fair).start()
    ]


def test_load_refuses_a_deck_with_five_of_a_rank() -> None:
    rec = record(["1" * 5 + stack("112233445566", "77889999XXXX")[5:]], [])
    with pytest.raises(RecordError, match=r"decks\[0\]"):
        load(rec)


def test_refused_pass_in_record_names_cs_lead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["replay", write(tmp_path, record([CASE1], [pass_(0)]))], capsys)
    assert code == 1 and "CS-LEAD" in err
