"""Told again after the reveal (R-SEE-STORY): at a round's reveal, "Replay the round"
plays the round's turns again face up (crisp/static/games/crisp/replay.js, from the engine's
``round_story``): the panel starts from the hands as dealt and ends on the hands the reveal
showed, step by step, in the phone's language."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, NAME, TIMEOUT_MS, TapPlayer, assert_clean, play_until
from playwright.sync_api import expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)

FRAMES = """(() => { window.__stories = []; const Real = window.WebSocket;
  window.WebSocket = class extends Real { constructor(...a) { super(...a);
    this.addEventListener("message", (e) => { try { const d = JSON.parse(e.data);
      for (const m of Array.isArray(d) ? d : [d])  // a frame: one message, or an array of several
        if (m.type === "round_story" || m.type === "reveal") window.__stories.push(m.type);
    } catch {} }); } };
})();"""


def _names(loc: Any) -> list[str]:
    out = []
    for i in range(loc.count()):
        found = NAME.match((loc.nth(i).text_content() or "").strip())
        assert found, loc.nth(i).text_content()
        out.append(found.group(0))
    return out


@pytest.mark.parametrize(
    # the round the phone saw revealed: the first, or (the player calls crisp at once, and a
    # busy machine polls late) a later one, whose hands the test then reads
    ("locale", "title"),
    [("en-GB", re.compile(r"Round \d+, told again")), ("fr-FR", re.compile(r"Manche \d+"))],
)
def test_the_round_is_replayed_face_up_after_the_reveal(
    server: Any, phones: Any, locale: str, title: re.Pattern[str]
) -> None:
    srv = server(21, clock_speed=4.0)
    ana = phones(srv, "Pixel 7", "ana", locale=locale)
    ana.page.add_init_script(FRAMES)
    ana.page.goto("/")
    ana.page.fill("#name", "Ana")
    ana.page.select_option("#practice-bots", "1")
    ana.tap("#practice")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    button = ana.loc('[data-test="replay-round"]')
    play_until([TapPlayer(ana, crisp_after=0)], lambda: button.count() > 0, timeout=240)
    # the story came right after the reveal, never before it
    assert ana.page.evaluate("window.__stories")[:2] == ["reveal", "round_story"]
    revealed = [
        _names(ana.loc(f"table.hands tbody tr:nth-child({i + 1}) td.hand .card")) for i in range(2)
    ]
    ana.tap(button)
    panel = ana.loc('[data-test="replay"]')
    expect(panel).to_be_visible()
    expect(panel.locator("h2")).to_contain_text(title)
    expect(panel.locator(".rseat")).to_have_count(2)
    first = [_names(panel.locator(f".rseat:nth-child({i + 1}) .card")) for i in range(2)]
    assert all(len(h) == 3 for h in first), first
    ana.shot(f"replay-start-{ana.slug}")
    expect(panel).to_have_attribute("data-done", "true", timeout=120_000)
    last = [_names(panel.locator(f".rseat:nth-child({i + 1}) .card")) for i in range(2)]
    assert last == revealed, (last, revealed)
    steps = int(panel.get_attribute("data-step") or "0")
    assert steps >= 2, steps
    assert re.search(r"\d+/\d+", panel.locator(".rcount").inner_text())
    ana.shot(f"replay-end-{ana.slug}")
    ana.tap('[data-test="replay-close"]')
    expect(panel).to_have_count(0, timeout=TIMEOUT_MS)
    print(f"\n{locale}: {steps + 1} steps; dealt {first}, revealed {revealed}")
    assert_clean([ana])
