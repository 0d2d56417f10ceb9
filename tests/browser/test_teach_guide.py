"""The guide and the feed, in Chromium (tests/browser/conftest.py): a first game is taught on
the table (games/common/guide.js: a skippable guide, remembered per device), How to play opens in
the app, the waiting line names the crisp window with its countdown, and the feed (feedline.js)
shows its newest line whole and is told again in a new language. Screenshots:
tests/artifacts/screenshots/teach-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from browser import assert_clean, practice
from playwright.sync_api import expect

LOCALES = {"en": "en-US", "fr": "fr-FR", "ja": "ja-JP"}
LOOK = {"en": "Ready", "fr": "Prêt", "ja": "準備OK"}
HOWTO = {"en": "Crisp in 60 seconds", "fr": "Crisp en 60 secondes", "ja": "60秒でわかるCrisp"}
READY = {"en": "You are ready.", "fr": "Tu es prêt.", "ja": "準備OKです。"}


@pytest.mark.parametrize("lang", list(LOCALES))
def test_first_game_guide_is_skippable_and_remembered(server: Any, phones: Any, lang: str) -> None:
    """On a first game the guide is on the table (not a new tab) and says what to do
    now (the look: tap Ready); Skip removes it; after a reload it does not come back; How to
    play opens as an overlay in the page, in the phone's language."""
    srv = server(5, clock_speed=0.5)
    ana = phones(srv, "Pixel 7", "ana", guide=True, locale=LOCALES[lang])
    practice(ana)
    guide = ana.loc('[data-test="guide"]')
    expect(guide).to_be_visible()
    expect(guide).to_be_in_viewport(ratio=1)
    expect(ana.loc('[data-test="guide-text"]')).to_contain_text(LOOK[lang])
    expect(ana.action("ready")).to_be_in_viewport(ratio=1)  # the guide covers no button
    ana.shot(f"teach-guide-look-{ana.slug}")
    ana.tap('[data-test="guide-howto"]')
    howto = ana.loc('[data-test="howto"]')
    expect(howto).to_be_visible()
    expect(howto).to_contain_text(HOWTO[lang])
    assert len(ana.context.pages) == 1  # in the app, not a new tab
    ana.shot(f"teach-howto-{ana.slug}")
    ana.tap('[data-test="howto-close"]')
    expect(howto).to_have_count(0)
    ana.tap('[data-test="guide-skip"]')
    expect(guide).to_have_count(0)
    ana.page.reload()
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    ana.tap(ana.action("ready"))
    expect(ana.loc('[data-test="feed"]')).to_contain_text(READY[lang])
    expect(guide).to_have_count(0)
    assert_clean([ana])


def test_rules_link_opens_how_to_play_in_the_app(server: Any, phones: Any) -> None:
    """The room's Rules link opens How to play in the page (no new tab); the full
    rules stay one link away inside it."""
    srv = server(5, clock_speed=0.5)
    ana = phones(srv, "Pixel 7", "ana", guide=True)
    ana.create_room("Ana")
    ana.tap('[data-test="rules"]')
    howto = ana.loc('[data-test="howto"]')
    expect(howto).to_be_visible()
    assert len(ana.context.pages) == 1
    expect(howto.locator('a[href$="/rules/en.html"]')).to_have_count(1)
    ana.page.keyboard.press("Escape")
    expect(howto).to_have_count(0)
    assert_clean([ana])


def test_waiting_names_the_crisp_window_and_the_feed_is_told_again(
    server: Any, phones: Any
) -> None:
    """While Ana waits for her turn the guide says the previous player has 3 s
    to call crisp; the card she then holds is explained; the feed's newest
    line is whole (not cut with "…"); a language switch tells every line again in French."""
    srv = server(5, clock_speed=0.5)
    ana = phones(srv, "Pixel 7", "ana", guide=True)
    practice(ana, bots=2)
    ana.tap(ana.action("ready"))
    text = ana.loc('[data-test="guide-text"]')
    expect(text).to_contain_text("3 s to call crisp", timeout=60_000)
    expect(text).to_contain_text("Your turn next")
    expect(text).to_be_in_viewport(ratio=1)
    ana.shot(f"teach-window-{ana.slug}")
    expect(ana.action("draw")).to_be_enabled(timeout=30_000)
    ana.tap(ana.action("draw"))
    held = ana.held()
    name = ana.name_of(held)
    court = {"J": "A Jack", "Q": "A Queen", "K": "A King"}.get(held[0])
    expect(text).to_contain_text(court or f"You hold {name}")
    ana.shot(f"teach-held-{ana.slug}")
    newest = ana.loc('[data-test="feed"] li').last
    expect(newest).to_be_visible()
    cut = newest.evaluate(
        "el => getComputedStyle(el).textOverflow === 'ellipsis' || el.scrollWidth > el.clientWidth"
    )
    assert not cut, "the newest feed line is whole"
    ana.tap('[data-test="scores"]')  # the ≡ menu has the language on a phone's table
    ana.page.select_option("#lang-menu", "fr")
    expect(ana.loc("#lang-menu")).to_have_value("fr")
    ana.tap('[data-test="scores"]')
    feed = ana.loc('[data-test="feed"]')
    expect(feed).to_contain_text("Tu es prêt.")
    assert "You are ready." not in feed.inner_text()
    expect(text).to_contain_text(f"Tu tiens {ana.name_of(held)}" if not court else "Un")
    ana.tap('[data-test="feed-toggle"]')
    first = ana.loc('[data-test="feed"] li').first
    last = ana.loc('[data-test="feed"] li').last
    top_first = first.bounding_box()
    top_last = last.bounding_box()
    assert top_first and top_last and top_last["y"] < top_first["y"], (
        "the full list is newest first"
    )
    ana.shot(f"teach-feed-all-{ana.slug}")
    assert_clean([ana])
