"""Your own events in the second person in every language
(en, fr, ja), in Node. Crisp's feed (games/crisp/feed.js) never names you by your name: your own
moves are "You drew a card.", a Queen on your card says "your middle"; several winners with you
among them are "You and Zoé win!" / "Toi et Zoé gagnez !" / "あなたとZoéの勝ち！"
(games/crisp/results.js); Crisps!'s round end says "You still held: …" of your own hand, and in
Japanese never "Anaさんの…" of it (games/crisps/feed.js)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
from paths import ROOT

NODE = shutil.which("node")
SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem() {} };
const [i18n, crispFeed, crispsFeed, results, crispEn, crispsEn] = await Promise.all(
  process.argv.slice(1, 7).map((u) => import(u)));
const [crispDir, crispsDir] = process.argv.slice(7);
await i18n.addCatalogue("crisp", crispEn.default, (l) => import(`${crispDir}/${l}.js`));
await i18n.addCatalogue("crisps", crispsEn.default, (l) => import(`${crispsDir}/${l}.js`));
const text = (x) => String(x?.html ?? x ?? "").replace(/<[^>]*>/g, " ").replace(/\\s+/g, " ")
  .replace(/&#39;/g, "'").trim();
const ME = 1; // Ana
const crisp = { players: ["Zoé", "Ana", "Ben"], round: { top: "5H" } };
const moves = [
  { type: "round", round: 2, dealer: ME },
  { type: "ready", seat: ME },
  { type: "draw", seat: ME, draw: 1 },
  { type: "swap", seat: ME, slot: "left", card: "9C" },
  { type: "discard", seat: ME, card: "8D" },
  { type: "jack", seat: ME, card: "JD" },
  { type: "queen", seat: ME, slot: "left", target: 0, target_slot: "right", card: "QS" },
  { type: "king", seat: ME, card: "KH" },
  { type: "take", seat: ME, slot: "right", card: "7C" },
  { type: "timeout", seat: ME },
  { type: "timeout", seat: ME, card: "4S" },
  { type: "crisp", seat: ME },
];
const onYou = { type: "queen", seat: 0, slot: "middle", target: ME, target_slot: "left",
  card: "QH" };
const game = (winners) => ({ players: ["Zoé", "Ana", "Ben"], totals: [20, 20, 20],
  options: { limit: 50 }, winners, history: [], over: true, lastReveal: { round: 1,
  caller: null, hands: [[], [], []], scores: [20, 20, 20], totals: [20, 20, 20] } });
const winners = (w, seat) => text(results.resultsBody(game(w), { seat }))
  .match(/^.*?[!！]/u)?.[0] ?? "";
const out = {};
for (const lang of ["en", "fr", "ja"]) {
  globalThis.document = { documentElement: {} };
  await i18n.setLanguage(lang);
  delete globalThis.document;
  const strip = (s) => s.replace(/^.*?(Partie terminée|Game over|ゲーム終了)\\s*/u, "");
  out[lang] = {
    own: moves.map((m) => String(crispFeed.describe(crisp, m, ME))),
    onyou: String(crispFeed.describe(crisp, onYou, ME)),
    two: strip(winners([0, 1], ME)),
    three: strip(winners([0, 1, 2], ME)),
    watch: strip(winners([0, 1], null)),
    loser: String(crispsFeed.describe({ players: ["Zoé", "Ana"] }, { type: "round_end",
      round: 1, winner: 0, points: [1, 0], set_aside: "1234", loser_hand: "55" }, ME)),
  };
}
console.log(JSON.stringify(out));
"""


def run() -> dict[str, Any]:
    games = ROOT / "crisp" / "static" / "games"
    modules = [
        (ROOT / "crisp" / "static" / "i18n.js").as_uri(),
        (games / "crisp" / "feed.js").as_uri(),
        (games / "crisps" / "feed.js").as_uri(),
        (games / "crisp" / "results.js").as_uri(),
        (games / "crisp" / "i18n" / "en.js").as_uri(),
        (games / "crisps" / "i18n" / "en.js").as_uri(),
        (games / "crisp" / "i18n").as_uri(),
        (games / "crisps" / "i18n").as_uri(),
    ]
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, *modules],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def told() -> dict[str, Any]:
    if NODE is None:
        pytest.skip("node is not installed")
    return run()


@pytest.mark.parametrize("lang", ["en", "fr", "ja"])
def test_your_own_moves_never_name_you(told: dict[str, Any], lang: str) -> None:
    """Every feed line of your own move (R-DRAW, R-SWAP, R-DISCARD, R-JACK, R-QUEEN,
    R-KING, R-OPT-DISCARD, R-TIMEOUT, the crisp call) and a Queen on your card are told to you,
    without your name."""
    lines = [*told[lang]["own"], told[lang]["onyou"]]
    assert all(lines), lines
    for line in lines:
        assert "Ana" not in line, (lang, line)
    you = {
        "en": "You drew a card.",
        "fr": "Tu as pioché une carte.",
        "ja": "山札から1枚引きました。",
    }
    assert you[lang] in told[lang]["own"][2], told[lang]["own"][2]
    mine = {"en": "your left", "fr": "ta carte de gauche", "ja": "あなたの左"}
    assert mine[lang] in told[lang]["onyou"], told[lang]["onyou"]


@pytest.mark.parametrize("lang", ["en", "fr", "ja"])
def test_several_winners_with_you(told: dict[str, Any], lang: str) -> None:
    """A tie won with you among the winners is told in the second person."""
    # (the page's text with its spaces made plain: French's no-break space before "!" is one)
    two = {"en": "You and Zoé win!", "fr": "Toi et Zoé gagnez !", "ja": "あなたとZoéの勝ち！"}
    three = {
        "en": "You, Zoé and Ben win!",
        "fr": "Toi, Zoé et Ben gagnez !",
        "ja": "あなた、ZoéとBenの勝ち！",
    }
    watch = {"en": "Zoé and Ana win!", "fr": "Zoé et Ana gagnent !", "ja": "ZoéとAnaの勝ち！"}
    assert told[lang]["two"] == two[lang], told[lang]
    assert told[lang]["three"] == three[lang], told[lang]
    assert told[lang]["watch"] == watch[lang], told[lang]


@pytest.mark.parametrize("lang", ["en", "fr", "ja"])
def test_crisps_your_own_hand_at_round_end(told: dict[str, Any], lang: str) -> None:
    """Crisps! (CS-SEE-END): the cards you still held are told as yours, never as
    "Ana still held" nor "Anaさんの残りの手札"."""
    line = told[lang]["loser"]
    yours = {
        "en": "You still held: 5 5.",
        "fr": "Il te restait\u00a0: 5 5.",
        "ja": "あなたの残りの手札",
    }
    assert yours[lang] in line, line
    assert "Ana" not in line, line
