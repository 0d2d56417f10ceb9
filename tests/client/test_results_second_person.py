"""Your own events in the second person. The game-over line says "You win!"
to the winner's phone and "Ben wins!" to the others' (Crisp and Crisps!), and Crisps!'s round end
says "you emptied your hand" / "Your hand:" of your own hand (results.js, table.js, in Node)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from paths import ROOT

NODE = shutil.which("node")
SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem() {} };
const [crisp, crisps, table, i18n, en] = await Promise.all(
  process.argv.slice(1).map((u) => import(u)));
// the game's English strings, as the phone adds them
await i18n.addCatalogue("crisps", en.default, async () => en);
const text = (x) => String(x.html ?? x).replace(/<[^>]*>/g, " ").replace(/\\s+/g, " ")
  .replace(/&#39;/g, "'");
const g1 = { players: ["Ana", "Ben"], totals: [60, 20], options: { limit: 50 }, winners: [1],
  history: [], lastReveal: { round: 1, caller: 1, hands: [[], []], scores: [60, 20],
  totals: [60, 20] }, over: true };
const last = { round: 2, winner: 1, points: [1, 3], set_aside: "", loser_hand: "" };
const g2 = { players: ["Ana", "Ben"], over: true, winner: 1, lastRound: last, points: [1, 3],
  history: [], rounds: [] };
const out = {};
for (const seat of [0, 1, null]) {
  out[`crisp ${seat}`] = text(crisp.resultsBody(g1, { seat }));
  out[`crisps ${seat}`] = text(table.revealMarkup(g2, { seat, closable: false }));
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_your_own_win_and_hand_are_told_to_you() -> None:
    games = ROOT / "crisp" / "static" / "games"
    modules = [
        (games / "crisp" / "results.js").as_uri(),
        (games / "crisps" / "results.js").as_uri(),
        (games / "crisps" / "table.js").as_uri(),
        (ROOT / "crisp" / "static" / "i18n.js").as_uri(),
        (games / "crisps" / "i18n" / "en.js").as_uri(),
    ]
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, *modules],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "You win!" in out["crisp 1"] and "wins!" not in out["crisp 1"], out
    assert "Ben wins!" in out["crisp 0"] and "You win" not in out["crisp 0"], out
    assert "Ben wins!" in out["crisp null"], out  # a watcher
    assert "you emptied your hand" in out["crisps 1"], out
    assert "Ben emptied their hand" in out["crisps 0"], out
    assert "Your hand:" in out["crisps 0"] and "Ana's hand" not in out["crisps 0"], out
    assert "Ana's hand:" in out["crisps 1"], out
