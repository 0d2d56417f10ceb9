"""The ``crisp`` command: replay (result, seat streams, errors), simulate, bench."""

from __future__ import annotations

import json
from pathlib import Path

from crisp_cmd import crisp

from crisp.engine import Options
from crisp.engine.record import replay
from crisp.engine.simulate import play_random


def write(tmp_path: Path, data: object, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_replay_prints_the_result(tmp_path: Path) -> None:
    """crisp replay FILE prints the result object of RECORD.md."""
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
    """RECORD.md: a record may give a seed instead of dealers and decks."""
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
