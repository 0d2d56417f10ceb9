"""Scenario tests: hand-checked game records (tests/scenarios/*.json) replayed by the engine.

Each scenario file holds a crisp-record/1 record with stacked decks and the outcome worked out by
hand from docs/rules.md (its "why" shows the working): either the exact result object of
docs/record.md or the refusal (rule id, round, action index) of its illegal action. Regenerate the
files with ``python tests/scenarios/build.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT, TESTS

from crisp.engine.crisp.record import ReplayError, replay, stream

SCENARIO_DIR = TESTS / "scenarios"
SCENARIOS = sorted(SCENARIO_DIR.glob("*.json"))
REPO = ROOT

#: Scenarios also run through the command line (`python -m crisp replay FILE`).
CLI_SCENARIOS = [
    "deal-four-players",
    "case02-king-chain",
    "case03-timeout-in-king-chain",
    "case10-game-end-tie",
    "final-turn-timeout-then-next-round",
    "unfinished-game",
    "case06-window-closed-early",
    "call-at-exactly-3s",
    "timeout-swap-at-deadline",
    "special-discard-drawn-king",
]


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def matches(message: dict[str, Any], partial: dict[str, Any]) -> bool:
    return all(key in message and message[key] == value for key, value in partial.items())


def test_scenario_files_are_there() -> None:
    assert len(SCENARIOS) >= 25
    for path in SCENARIOS:
        data = load(path)
        assert data["rules"], f"{path.name} names no rule"
        assert ("result" in data["expect"]) != ("error" in data["expect"]), path.name


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    data = load(path)
    expect = data["expect"]
    if "error" in expect:
        with pytest.raises(ReplayError) as caught:
            replay(data["record"])
        want = expect["error"]
        got = {"rule": caught.value.rule, "round": caught.value.round, "index": caught.value.index}
        assert got == want, f"{data['name']}: {data.get('why', '')}"
        return
    result = replay(data["record"]).result
    assert result == expect["result"], f"{data['name']}: {data.get('why', '')}"
    for check in expect.get("seat_stream_contains", []):
        messages = stream(data["record"], check["seat"])
        assert any(matches(m, check["message"]) for m in messages), check
    for check in expect.get("seat_stream_lacks", []):
        messages = stream(data["record"], check["seat"])
        assert not any(matches(m, check["message"]) for m in messages), check


@pytest.mark.parametrize("name", CLI_SCENARIOS)
def test_scenario_through_cli(name: str, tmp_path: Path) -> None:
    data = load(SCENARIO_DIR / f"{name}.json")
    record_file = tmp_path / f"{name}.record.json"
    record_file.write_text(json.dumps(data["record"]), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "crisp", "replay", str(record_file)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    expect = data["expect"]
    if "error" in expect:
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert expect["error"]["rule"] in lines[0]
        return
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expect["result"]


def test_stacking_helpers() -> None:
    from stacking import deal_deck, stacked_deck

    deck = stacked_deck(["QH", "AS"])
    assert deck[:4] == ["QH", "AS", "2S", "3S"] and len(set(deck)) == 52
    with pytest.raises(AssertionError):
        stacked_deck(["AS", "AS"])
    # R-DEAL by hand: dealer 1 of 3, passes go to seats 2, 0, 1 (left, then middle, then right).
    hands = [["AC", "2C", "3C"], ["4C", "5C", "6C"], ["7C", "8C", "9C"]]
    top = ["7C", "AC", "4C", "8C", "2C", "5C", "9C", "3C", "6C", "KD"]
    assert deal_deck(1, hands, ["KD"])[:10] == top
