"""Your own events in the second person in "Replay the round"
(R-SEE-STORY, crisp/static/games/crisp/replay.js) tells the viewer's own moves as "You draw 7♠",
a Queen that swapped with the viewer as "Ben swaps a card with you", and others' moves by name;
Crisps!'s "turn skipped" line says "Your turn" on the skipped player's phone. In en, fr and ja,
in Node."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from paths import ROOT

NODE = shutil.which("node")
SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.document = { documentElement: {} };
const [replay, i18n, table] = await Promise.all(process.argv.slice(1, 4).map((u) => import(u)));
const [crispDir, crispsDir] = process.argv.slice(4);
await i18n.addCatalogue("crisp", (await import(crispDir + "en.js")).default,
  (lang) => import(crispDir + lang + ".js"));
await i18n.addCatalogue("crisps", (await import(crispsDir + "en.js")).default,
  (lang) => import(crispsDir + lang + ".js"));
const story = { round: 1, hands: [["7S", "2H", "KD"], ["AC", "9H", "QS"]], moves: [
  { type: "draw", seat: 0, card: "5C" }, { type: "discard", seat: 0, card: "5C" },
  { type: "draw", seat: 1, card: "QD" },
  { type: "queen", seat: 1, slot: "left", target: 0, target_slot: "middle", card: "QD" },
  { type: "crisp", seat: 0 } ] };
const text = (x) => String(x.html ?? x).replace(/<[^>]*>/g, " ").replace(/\\s+/g, " ").trim()
  .replace(/&#39;/g, "'");
const skipped = { skipped: true, passer: 0 };
const g = { players: ["Ana", "Ben"], round: { trick: [], lastTrick: skipped } };
const out = {};
for (const lang of ["en", "fr", "ja"]) {
  await i18n.setLanguage(lang);
  for (const you of [0, 1]) {
    out[`${lang} ${you}`] = replay.steps(story, ["Ana", "Ben"], you).map((s) => s.line);
  }
  out[`${lang} skipped`] = [0, 1].map((seat) => text(table.trickMarkup(g, { seat })));
}
console.log(JSON.stringify(out));
"""


def run() -> dict[str, list[str]]:
    games = ROOT / "crisp" / "static" / "games"
    args = [
        (games / "crisp" / "replay.js").as_uri(),
        (ROOT / "crisp" / "static" / "i18n.js").as_uri(),
        (games / "crisps" / "table.js").as_uri(),
        (games / "crisp" / "i18n").as_uri() + "/",
        (games / "crisps" / "i18n").as_uri() + "/",
    ]
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_replay_tells_your_own_moves_to_you_en_fr_ja() -> None:
    out = run()
    ana, ben = out["en 0"], out["en 1"]
    assert ana[1].startswith("You draw") and ana[2].startswith("You play"), ana
    assert ana[4] == "Ben swaps a card with you", ana
    assert ana[5] == "You call crisp!", ana
    assert ben[1].startswith("Ana draws") and ben[4] == "You swap a card with Ana", ben
    assert ben[5] == "Ana calls crisp!", ben
    assert out["fr 0"][1].startswith("Tu pioches") and out["fr 0"][4].endswith("avec toi")
    assert out["fr 1"][1].startswith("Ana pioche")
    assert out["ja 0"][1].startswith("あなたが") and "Anaさん" not in " ".join(out["ja 0"])
    assert out["ja 1"][1].startswith("Anaさんが")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_skipped_turn_is_yours_on_your_own_phone_en_fr_ja() -> None:
    out = run()
    assert out["en skipped"][0].startswith("Your turn was skipped"), out["en skipped"]
    assert out["en skipped"][1].startswith("Ana's turn was skipped"), out["en skipped"]
    assert out["fr skipped"][0].startswith("Ton tour"), out["fr skipped"]
    assert out["ja skipped"][0].startswith("あなたの番"), out["ja skipped"]
