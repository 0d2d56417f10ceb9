"""The screenshots for review. For each game, a real game in progress (a real
``crisp serve``, Ana against a bot) photographed on Ana's phone at 320x568 and 844x390 on her turn
with her moves shown, and on the shared screen (/r/CODE/tv) at 1280x720, into
tests/artifacts/note/<game>-<size>.png (or $CRISP_ARTIFACTS/note/). Each phone shot has the hand
and every move button wholly inside the viewport; the shared screen shows every seat."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from paths import TESTS
from playwright.sync_api import expect
from screens import SIZES

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

PHONES = ["320x568", "844x390"]

OUTSIDE = """() => {
  const out = [];
  const els = [...document.querySelectorAll('[data-test="hand"], [data-test="actions"] button')]
    .filter((el) => el.getClientRects().length);
  if (!els.some((el) => el.matches("button"))) out.push("no move shown");
  if (!els.some((el) => el.matches('[data-test="hand"]'))) out.push("no hand shown");
  for (const el of els) {
    const r = el.getBoundingClientRect();
    const px = (n) => Math.round(n);
    if (r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5
      || r.right > innerWidth + 0.5) {
      const name = el.dataset.action || el.dataset.test;
      out.push(`${name} not wholly inside ${innerWidth}x${innerHeight}: `
        + `${px(r.left)},${px(r.top)} ${px(r.width)}x${px(r.height)}`);
    }
  }
  return out;
}"""

SEATS_SHOWN = """() => [...document.querySelectorAll('main [data-test="seat"]')].filter((el) => {
  const r = el.getBoundingClientRect();
  return el.getClientRects().length && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 1
    && r.right <= innerWidth + 1;
}).length"""


def note_dir() -> Path:
    base = os.environ.get("CRISP_ARTIFACTS")
    out = (Path(base) if base else TESTS / "artifacts") / "note"
    out.mkdir(parents=True, exist_ok=True)
    return out


def photo(page: Any, game: str, size: str) -> None:
    page.screenshot(path=str(note_dir() / f"{game}-{size}.png"), scale="css", animations="disabled")


def your_turn(ana: Phone, game: str) -> None:
    """Ana's turn, her moves shown: in Crisp she has drawn (Swap and Discard, or the face card's
    use); in Crisps! it is her turn (Pass; and a card chosen when she may play)."""
    moves = ana.loc('[data-test="actions"] button:not([disabled])')
    if game == "crisp":
        ana.tap(ana.action("ready"))
        expect(ana.action("draw")).to_be_enabled()
        ana.tap(ana.action("draw"))
        expect(ana.loc('[data-test="held"].up')).to_be_visible()
    else:
        expect(ana.loc('[data-action="play"], [data-action="pass"]').first).to_be_visible()
        if ana.action("play").count():
            ana.tap(ana.loc('[data-test="my-card"]').first)
            expect(ana.loc('[data-test="my-card"][aria-pressed="true"]')).to_have_count(1)
    expect(moves.first).to_be_visible()


@pytest.mark.parametrize("game", ["crisp", "crisps"])
def test_the_notes_screenshots(server: Any, phones: Any, game: str) -> None:
    srv = server(21, clock_speed=1)
    ana: Phone = phones(srv, "Pixel 7", "ana", viewport=SIZES["320x568"])
    ana.page.goto("/")
    ana.page.locator(f'[data-test="game-{game}"]').check()
    code = ana.create_room("Ana")
    ana.tap('[data-action="add-bot"]')
    expect(ana.loc('[data-test="member"]')).to_have_count(2)
    tv: Phone = phones(
        srv, "Pixel 7", "tv", viewport=SIZES["1280x720"], device_scale_factor=1, is_mobile=False
    )
    tv.page.goto(f"/r/{code}/tv")
    expect(tv.loc(".tv-lobby")).to_be_visible()
    ana.tap("#start")
    your_turn(ana, game)
    found: list[str] = []
    for size in PHONES:
        ana.page.set_viewport_size(SIZES[size])
        expect(ana.loc('[data-test="hand"]')).to_be_in_viewport()
        found += [f"{size}: {x}" for x in ana.page.evaluate(OUTSIDE)]
        photo(ana.page, game, size)
    expect(tv.loc('main [data-test="seat"]')).to_have_count(2)
    seats = tv.page.evaluate(SEATS_SHOWN)
    photo(tv.page, game, "1280x720")
    assert not found, found
    assert seats == 2, f"the shared screen shows {seats} of 2 seats"
    tv.errors = [e for e in tv.errors if "navigator.vibrate" not in e]
    assert_clean([ana, tv])
