"""The front door shows the games: at 320x568 and 390x844, in light and dark, each game is
presented with its own cards (Crisp's drawn with its card art), each choice's radio lines up with
its name, and practice against the computer is one tap away, on the first screen. The page is
served by tests/support/statichost.py (the home page needs no server until a tap).
Screenshots: tests/artifacts/screens/ (or $CRISP_ARTIFACTS/screens/)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from playwright.sync_api import expect
from screens import shot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

SIZES = {"320x568": {"width": 320, "height": 568}, "390x844": {"width": 390, "height": 844}}
ALIGNED = """() => {
  const out = [];
  for (const choice of document.querySelectorAll(".game-choice")) {
    const radio = choice.querySelector('input[type="radio"]').getBoundingClientRect();
    const name = choice.querySelector(".game-name").getBoundingClientRect();
    const mid = radio.top + radio.height / 2;
    if (mid < name.top - 2 || mid > name.bottom + 2) {
      out.push(`${choice.textContent.trim().slice(0, 20)}: radio at ${Math.round(mid)}, `
        + `name ${Math.round(name.top)}-${Math.round(name.bottom)}`);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_front_door_shows_both_games_with_their_cards(
    phones: Any, host: Any, size: str, scheme: str
) -> None:
    """A newcomer sees card games before the first tap: both games with their cards, the radios
    in line with the names, and Practice on the first screen."""
    ana: Phone = phones(
        host,
        "Pixel 7",
        f"door-{size}-{scheme}",
        viewport=SIZES[size],
        device_scale_factor=1,
        color_scheme=scheme,
    )
    ana.page.goto("/")
    for game in ("crisp", "crisps"):
        cards = ana.loc(f'[data-showcase="{game}"] > *')
        expect(cards.first).to_be_visible()
        assert cards.count() >= 3, f"{game}: {cards.count()} cards"
    expect(ana.loc('[data-showcase="crisp"] svg').first).to_be_attached()  # the card art
    assert ana.page.evaluate(ALIGNED) == []
    expect(ana.loc("#practice")).to_be_in_viewport(ratio=1)
    shot(ana.page, f"front-door-{size}-{scheme}")
    assert_clean([ana])
