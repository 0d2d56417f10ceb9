"""A game's strings asked for twice while their load is in flight (crisp/static/i18n.js): the
second caller waits for that load. The page preloads the first game at start, the room's
controller loads it again when the room comes; before, the second call found the language
marked as loaded and went on at once, so a French phone reloaded mid-game told the round's feed
in English (browser test test_reload_mid_game_keeps_the_seat_and_plays_on, when the server's
messages came fast). In Node."""

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
const i18n = await import(process.argv[1]);
await i18n.setLanguage("fr");
const french = { default: { k: "en français" } };
const slow = () => new Promise((done) => setTimeout(() => done(french), 50));
const english = { k: "in English" };
const first = i18n.addCatalogue("g", english, slow); // the preload: not awaited
await i18n.addCatalogue("g", english, slow); // the room's: its strings must be there after it
const second = i18n.t("k");
await first;
console.log(JSON.stringify({ second, after: i18n.t("k") }));
"""


def test_a_second_load_of_a_catalogue_waits_for_the_first() -> None:
    if NODE is None:
        pytest.skip("node is not installed")
    module = (ROOT / "crisp" / "static" / "i18n.js").as_uri()
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, module],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    told = json.loads(done.stdout.strip().splitlines()[-1])
    assert told == {"second": "en français", "after": "en français"}
