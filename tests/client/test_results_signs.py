"""Crisp's score history prints each round's score with its sign ("+20",
"−1", "0"), never "+-1" (crisp/static/games/crisp/results.js, run in Node)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from paths import ROOT

NODE = shutil.which("node")
SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem() {} };
const m = await import(process.argv[1]);
const g = { players: ["Ana", "Ben"], totals: [4, 20], options: { limit: 50 }, winners: [],
  history: [{ round: 1, scores: [-1, 20], totals: [-1, 20] },
    { round: 2, scores: [5, 0], totals: [4, 20] }],
  lastReveal: null, over: false };
const out = m.resultsBody(g, { scoresOnly: true });
const small = [...String(out.html ?? out).matchAll(/<small>([^<]*)<\\/small>/g)].map((x) => x[1]);
console.log(JSON.stringify(small));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_score_history_signs_each_rounds_score() -> None:
    module = (ROOT / "crisp" / "static" / "games" / "crisp" / "results.js").as_uri()
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, module],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    scores = json.loads(done.stdout.strip().splitlines()[-1])
    assert scores == ["\u22121", "+20", "+5", "0"], scores
    assert not any("+-" in s for s in scores)
