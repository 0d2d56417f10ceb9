"""One overlay at a time, and real tap targets in them: the ≡ menu and the move list close each
other (the list never opens over the menu, nor the menu over the list), and the menu's Rules
link is a full tap target (44x44 CSS px). Crisps! on the stand-in server
(tests/support/crisps_fake.py), at 320x568 and 390x844. Screenshots: tests/artifacts/screens/."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from crisps_fake import CODE, DECK, FakeCrispsRoom
from playwright.sync_api import expect
from screens import MIN_TARGET, shot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)


SIZES = {"320x568": {"width": 320, "height": 568}, "390x844": {"width": 390, "height": 844}}


def table(phones: Any, host: Any, size: str = "390x844") -> Phone:
    room = FakeCrispsRoom(decks=[DECK], first_starter=0, present=(1,))
    ana: Phone = phones(host, "Pixel 7", "ana", viewport=SIZES[size], device_scale_factor=1)
    room.attach(ana.page, 0)
    ana.page.goto(f"/r/{CODE}")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    room.act(0, {"do": "play", "cards": "1"})  # a move: the list has a line
    expect(ana.loc('[data-test="feed"] li')).not_to_have_count(0)
    return ana


def press(phone: Phone, selector: str) -> None:
    """What a keyboard or a screen reader does: activates the control wherever it lies."""
    phone.loc(selector).first.evaluate("el => el.click()")


@pytest.mark.parametrize("size", list(SIZES))
def test_menu_and_move_list_close_each_other(phones: Any, host: Any, size: str) -> None:
    """The move list opened while the ≡ menu is open closes the menu, and the other way round:
    never both on screen."""
    ana = table(phones, host, size)
    menu = ana.loc('[data-test="results"]')
    moves = ana.loc(".feed.open ol")
    ana.tap('[data-test="scores"]')
    expect(menu).to_be_visible()
    press(ana, '[data-test="feed-toggle"]')
    expect(moves).to_be_visible()
    shot(ana.page, f"overlays-moves-after-menu-{size}")
    expect(menu).to_have_count(0)
    press(ana, '[data-test="scores"]')
    expect(menu).to_be_visible()
    expect(moves).to_have_count(0)
    assert_clean([ana])


def test_the_menus_rules_link_is_a_full_tap_target(phones: Any, host: Any) -> None:
    """The Rules link in the ≡ menu was 43x19 px: it is at least 44x44."""
    ana = table(phones, host)
    ana.tap('[data-test="scores"]')
    link = ana.loc('[data-test="results"] .menu-rules [data-test="rules"]')
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert box, "the link is laid out"
    assert box["width"] >= MIN_TARGET and box["height"] >= MIN_TARGET, box
    assert_clean([ana])
