"""The shared screen: the lobby and the ≡ menu link to /r/CODE/tv; on it
no phone control shows (≡, sound, language), its QR code covers nothing (the Rules link is
reachable: the element at its centre is it), and a Crisps! game (2 seats) and a Crisp game (2 and
8 seats) at 1280x720 and 1920x1080 use the 16:9 screen (the table, not a narrow column) with cards
readable from a sofa: a seat's face-down card at least 90 px high at 720p and 120 px at 1080p with
2 seats (64 and 90 with 8), the pile and the deck at least 120 and 160 px, the names at least 20
and 28 px; every seat on screen, no scrolling, no hand and no moves of a phone, and no button
(nobody taps a TV: the move list's "All moves" was one). The TV is a watcher
(tests/support/leakcheck.py checks that channel elsewhere). A real ``crisp serve``."""

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

TV = """({seats, minDown, minBig, minName}) => {
  const out = [];
  for (const sel of ['[data-action="scores"]', '[data-action="sound"]', "#lang", "#lang-menu"]) {
    const el = document.querySelector(sel);
    if (el && el.getClientRects().length) out.push(`a phone control shows: ${sel}`);
  }
  if (document.querySelector('main [data-test="actions"] button, [data-test="hand"]')) {
    out.push("a phone's hand or moves show");
  }
  // nobody taps a TV: no button on it (the move list's "All moves" was one)
  const live = 'main button:not([disabled]):not([aria-disabled="true"])';
  for (const el of document.querySelectorAll(live)) {
    if (el.getClientRects().length) out.push(`a control nobody can tap: ${el.textContent.trim()}`);
  }
  // names read from a sofa too
  for (const el of document.querySelectorAll("main [data-test=seat] .name")) {
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < minName) out.push(`a name in ${px} px: ${el.textContent.trim()}`);
  }
  const qr = document.querySelector(".tv-join");
  if (!qr) out.push("no QR code");
  const q = qr ? qr.getBoundingClientRect() : null;
  const seen = "main a, main button, main .card, main .cs-card, .status, [data-test=seat], .feed";
  for (const el of document.querySelectorAll(seen)) {
    if (!el.getClientRects().length || (qr && qr.contains(el))) continue;
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit && qr && qr.contains(hit)) out.push(`the QR code covers ${el.className || el.tagName}`);
    if (q && r.left < q.right && r.right > q.left && r.top < q.bottom && r.bottom > q.top) {
      out.push(`overlaps the QR code: ${el.className || el.tagName}`);
    }
  }
  const doc = document.documentElement;
  if (doc.scrollHeight > innerHeight + 1 || doc.scrollWidth > innerWidth + 1) {
    out.push(`the page scrolls: ${doc.scrollWidth}x${doc.scrollHeight}`);
  }
  const main = document.querySelector("main.table").getBoundingClientRect();
  const w = Math.round(main.width);
  if (w < innerWidth * 0.9) out.push(`the table is ${w} px of ${innerWidth}`);
  // the table uses the 16:9 screen: its content spans most of the width, not a narrow column
  const wide = "main [data-test=seat], main .center, main .cs-middle";
  const parts = [...document.querySelectorAll(wide)]
    .filter((el) => el.getClientRects().length).map((el) => el.getBoundingClientRect());
  const span = Math.max(...parts.map((r) => r.right)) - Math.min(...parts.map((r) => r.left));
  if (span < innerWidth * 0.6) out.push(`the content spans ${Math.round(span)} of ${innerWidth}`);
  const shown = [...document.querySelectorAll("main [data-test=seat]")].filter((el) => {
    const r = el.getBoundingClientRect();
    return el.getClientRects().length && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 1
      && r.right <= innerWidth + 1;
  });
  if (shown.length !== seats) out.push(`${shown.length} of ${seats} seats on screen`);
  const heights = (sel) => [...document.querySelectorAll(sel)]
    .filter((el) => el.getClientRects().length)
    .map((el) => Math.round(el.getBoundingClientRect().height));
  const down = heights("main [data-test=seat] .card.down"); // Crisp: each seat's face-down cards
  if (down.some((h) => h < minDown)) out.push(`a seat's card under ${minDown} px: ${down}`);
  const big = heights("main .center .card.big, main .cs-middle .cs-card.big"); // pile and deck
  if (!big.length || big.some((h) => h < minBig)) out.push(`the pile under ${minBig} px: ${big}`);
  return out;
}"""

SCREENS = {"1280x720": SIZES["1280x720"], "1920x1080": {"width": 1920, "height": 1080}}
# From a sofa: a seat's face-down card, and the pile and the deck, at least this high (CSS px).
MIN_DOWN = {("1280x720", 2): 90, ("1920x1080", 2): 120, ("1280x720", 8): 64, ("1920x1080", 8): 90}
MIN_BIG = {"1280x720": 120, "1920x1080": 160}
MIN_NAME = {"1280x720": 20, "1920x1080": 28}  # a seat's name, CSS px


@pytest.mark.parametrize("size", list(SCREENS))
@pytest.mark.parametrize(("game", "seats"), [("crisps", 2), ("crisp", 2), ("crisp", 8)])
def test_the_shared_screen(server: Any, phones: Any, game: str, seats: int, size: str) -> None:
    """Crisps! has two seats (CS-SEATS), Crisp two and eight; a 16:9 screen of 1280x720 and
    1920x1080: the whole table on screen, no scrolling, every seat shown, cards readable."""
    srv = server(11, clock_speed=0.5)
    ana: Phone = phones(srv, "Pixel 7", "ana", device_scale_factor=1)
    ana.page.goto("/")
    ana.page.locator(f'[data-test="game-{game}"]').check()
    code = ana.create_room("Ana")
    link = ana.loc('[data-test="tv-link"]')
    expect(link).to_have_attribute("href", f"/r/{code}/tv")
    for n in range(2, seats + 1):
        ana.tap('[data-action="add-bot"]')
        expect(ana.loc('[data-test="member"]')).to_have_count(n)
    tv: Phone = phones(
        srv, "Pixel 7", "tv", viewport=SCREENS[size], device_scale_factor=1, is_mobile=False
    )
    tv.page.goto(f"/r/{code}/tv")
    expect(tv.loc(".tv-lobby")).to_be_visible()
    ana.tap("#start")
    expect(tv.loc("main.table")).to_be_visible()
    expect(tv.loc('[data-test="rules"]')).to_be_visible()
    expect(tv.loc('main [data-test="seat"]')).to_have_count(seats)
    limits = {
        "seats": seats,
        "minDown": MIN_DOWN[(size, seats)],
        "minBig": MIN_BIG[size],
        "minName": MIN_NAME[size],
    }
    found = list(tv.page.evaluate(TV, limits))
    shot(tv.page, f"tv-{game}-{seats}-{size}")
    ana.tap('[data-test="scores"]')  # the ≡ menu links to the shared screen too
    expect(ana.loc('.results [data-test="tv-link"]')).to_have_attribute("href", f"/r/{code}/tv")
    assert not found, found
    tv.errors = [e for e in tv.errors if "navigator.vibrate" not in e]
    assert_clean([ana, tv])
