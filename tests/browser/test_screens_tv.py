"""Issue 20, "The shared screen" (finding 3): the lobby and the ≡ menu link to /r/CODE/tv; on it
no phone control shows (≡, sound, language), its QR code covers nothing (the Rules link is
reachable: the element at its centre is it), and a Crisps! and a Crisp game at 1280x720 use the
screen's width (the table, not a narrow column) with cards readable from a sofa. The TV is a
watcher (tests/support/leakcheck.py checks that channel elsewhere). A real ``crisp serve``."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from playwright.sync_api import expect
from screens import SIZES, shot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

TV = """() => {
  const out = [];
  for (const sel of ['[data-action="scores"]', '[data-action="sound"]', "#lang", "#lang-menu"]) {
    const el = document.querySelector(sel);
    if (el && el.getClientRects().length) out.push(`a phone control shows: ${sel}`);
  }
  const qr = document.querySelector(".tv-join");
  if (!qr) out.push("no QR code");
  const q = qr ? qr.getBoundingClientRect() : null;
  const seen = "main a, main button, main .card, main .cs-card, .status";
  for (const el of document.querySelectorAll(seen)) {
    if (!el.getClientRects().length || (qr && qr.contains(el))) continue;
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit && qr && qr.contains(hit)) out.push(`the QR code covers ${el.className || el.tagName}`);
    if (q && r.left < q.right && r.right > q.left && r.top < q.bottom && r.bottom > q.top) {
      out.push(`overlaps the QR code: ${el.className || el.tagName}`);
    }
  }
  const main = document.querySelector("main.table").getBoundingClientRect();
  const w = Math.round(main.width);
  if (w < innerWidth * 0.9) out.push(`the table is ${w} px of ${innerWidth}`);
  const cards = [...document.querySelectorAll("main .cs-card.big, main .card.big")]
    .filter((el) => el.getClientRects().length).map((el) => el.getBoundingClientRect().height);
  if (!cards.length || Math.max(...cards) < 120) out.push(`cards too small from a sofa: ${cards}`);
  return out;
}"""


@pytest.mark.parametrize("game", ["crisps", "crisp"])
def test_the_shared_screen(server: Any, phones: Any, game: str) -> None:
    srv = server(11, clock_speed=0.5)
    ana: Phone = phones(srv, "Pixel 7", "ana", device_scale_factor=1)
    ana.page.goto("/")
    ana.page.locator(f'[data-test="game-{game}"]').check()
    code = ana.create_room("Ana")
    link = ana.loc('[data-test="tv-link"]')
    expect(link).to_have_attribute("href", f"/r/{code}/tv")
    ana.tap('[data-action="add-bot"]')
    expect(ana.loc('[data-test="member"]')).to_have_count(2)
    tv: Phone = phones(
        srv, "Pixel 7", "tv", viewport=SIZES["1280x720"], device_scale_factor=1, is_mobile=False
    )
    tv.page.goto(f"/r/{code}/tv")
    expect(tv.loc(".tv-lobby")).to_be_visible()
    ana.tap("#start")
    expect(tv.loc("main.table")).to_be_visible()
    expect(tv.loc('[data-test="rules"]')).to_be_visible()
    found = list(tv.page.evaluate(TV))
    shot(tv.page, f"tv-{game}-1280x720")
    ana.tap('[data-test="scores"]')  # the ≡ menu links to the shared screen too
    expect(ana.loc('.results [data-test="tv-link"]')).to_have_attribute("href", f"/r/{code}/tv")
    assert not found, found
    tv.errors = [e for e in tv.errors if "navigator.vibrate" not in e]
    assert_clean([ana, tv])
