"""``crisp verify`` on Crisps! records (docs/fairness.md, docs/record-crisps.md): a finished game
dealt by the commit–reveal shuffle verifies; a changed commitment, first starter or deck card is
the first difference; an unfinished or seed-dealt record cannot be checked (exit 2)."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisps import CrispsGame
from crisp.engine.crisps.shuffle import deck_from_key, starter_from_key
from crisp.games.records import verify_main as main

FAIR = Fairness(bytes(range(1, 33)), ("c0ffee", ""))


def finished(fair: Fairness = FAIR) -> dict[str, Any]:
    g = CrispsGame(["Ana", "Ben"], fairness=fair)
    g.start()
    rng = random.Random(1)
    while not g.over:
        assert g.due is not None
        g.apply(g.due[0], rng.choice(g.legal_moves(g.due[0])), g.now + 1)
    return g.record()


def run(tmp_path: Path, rec: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    code = main([str(path)])
    out, err = capsys.readouterr()
    return code, out.strip(), err.strip()


def test_a_finished_commit_reveal_game_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = finished()
    key = FAIR.key()
    assert rec["first_starter"] == starter_from_key(key)
    assert rec["decks"] == [deck_from_key(key, r + 1) for r in range(len(rec["decks"]))]
    assert run(tmp_path, rec, capsys) == (0, "verified", "")


def test_the_first_difference_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = finished()
    bad = copy.deepcopy(rec)
    bad["fairness"]["commitment"] = "0" * 64
    code, out, _ = run(tmp_path, bad, capsys)
    assert code == 1 and out.startswith("fairness.commitment differs")
    bad = copy.deepcopy(rec)
    bad["first_starter"] = 1 - rec["first_starter"]
    code, out, _ = run(tmp_path, bad, capsys)
    assert code == 1 and out.startswith("first_starter differs")
    bad = copy.deepcopy(rec)
    deck = bad["decks"][1]
    j = next(i for i in range(1, 40) if deck[i] != deck[0])
    bad["decks"][1] = deck[j] + deck[1:j] + deck[0] + deck[j + 1 :]
    code, out, _ = run(tmp_path, bad, capsys)
    assert (code, out) == (
        1,
        f"decks[1] differs at position 0: the seeds give {deck[0]}, the record says {deck[j]}",
    )


def test_unfinished_or_seeded_records_cannot_be_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    g = CrispsGame(["Ana", "Ben"], fairness=FAIR)
    g.start()
    code, _, err = run(tmp_path, g.record(), capsys)
    assert code == 2 and "revealed only once the game is over" in err
    s = CrispsGame(["Ana", "Ben"], seed=3)
    s.start()
    code, _, err = run(tmp_path, s.record(), capsys)
    assert code == 2 and "no fairness" in err


def test_docs_fairness_crisps_test_vectors_are_the_code_s() -> None:
    text = (ROOT / "docs/fairness.md").read_text("utf-8")
    section = text.split("### Crisps!, the second game", 1)[1].split("\n## ", 1)[0]
    key = Fairness(hashlib.sha256(b"crisp-seed:7").digest(), ("a1b2", "")).key()
    assert f"first starter\nseat {starter_from_key(key)};" in section
    assert f"round 1's deck `{deck_from_key(key, 1)}`" in section
    assert f"round 2's `{deck_from_key(key, 2)}`" in section


def test_the_example_record_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    example = ROOT / "examples/crisps-game.json"
    assert main([str(example)]) == 0
    assert capsys.readouterr().out == "verified\n"
