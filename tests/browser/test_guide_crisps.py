"""Teach in play, for Crisps!,, in Chromium: on a first game the guide is on
the table from the first screen (the turn due when the page loads is taught, not only the next
one), says what can follow what (the same kind, as many cards, an equal or higher rank, or pass),
is skippable, and is remembered per device (after a reload it does not come back). The stand-in
server (tests/support/crisps_fake.py) deals a stacked deck. Screenshots: tests/artifacts/teach/."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from crisps_fake import CODE, FakeCrispsRoom, pages
from paths import TESTS
from playwright.sync_api import expect
from statichost import StaticHost

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

HAND0 = "1334555689XX"
HAND1 = "111222234666"
DECK = HAND0 + HAND1 + "7999" + "8" + "344577788XX"
LOCALES = {"en": "en-US", "fr": "fr-FR", "ja": "ja-JP"}
# games/crisps/i18n/*.js cs.guide.lead and cs.guide.follow (what can follow what)
LEAD = {
    "en": "You lead: play any combination",
    "fr": "Tu ouvres : joue la combinaison de ton choix",
    "ja": "あなたが親です。好きな組み合わせを出しましょう",
}
FOLLOW = {
    "en": "To follow: the same kind, as many cards, an equal or higher rank — or pass.",
    "fr": "Pour suivre : le même type, autant de cartes, un rang égal ou supérieur — ou passe.",
    "ja": "続けるには：同じ種類・同じ枚数で、同じか上のランク。またはパス。",
}
SKIP = {"en": "Skip the guide", "fr": "Passer le guide", "ja": "ガイドを閉じる"}


@pytest.fixture(scope="module")
def host() -> Any:
    with StaticHost(pages()) as h:
        yield h


def shot(phone: Phone, name: str) -> None:
    out = TESTS / "artifacts" / "teach"
    out.mkdir(parents=True, exist_ok=True)
    phone.page.screenshot(path=str(out / f"{name}.png"), scale="css", animations="disabled")


@pytest.mark.parametrize("lang", list(LOCALES))
def test_crisps_guide_first_game_skippable_and_remembered(
    phones: Any, host: Any, lang: str
) -> None:
    """The first screen of a first game teaches the lead (the turn due at load time);
    after a single is led by Ben the guide says what can follow what; Skip removes it, the
    device remembers it (crisp.guide.crisps), and after a reload it is not shown again."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana: Phone = phones(host, "Pixel 7", f"ana-{lang}", guide=True, locale=LOCALES[lang])
    room.attach(ana.page, 0)
    ana.page.add_init_script(f"localStorage.setItem('crisp.lang', '{lang}')")
    ana.page.goto(f"/r/{CODE}")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    guide = ana.loc('[data-test="guide"]')
    text = ana.loc('[data-test="guide-text"]')
    expect(guide).to_be_visible()
    expect(text).to_contain_text(LEAD[lang])
    shot(ana, f"crisps-guide-lead-{lang}")
    ana.tap(ana.loc('[data-test="my-card"][data-rank="1"]').first)
    ana.tap(ana.action("play"))
    room.act(1, {"do": "play", "cards": "2"})
    expect(text).to_have_text(("" if lang == "ja" else " ").join([FOLLOW[lang], FOLLOW_MORE[lang]]))
    expect(guide).to_be_in_viewport(ratio=1)
    shot(ana, f"crisps-guide-follow-{lang}")
    expect(ana.loc('[data-test="guide-skip"]')).to_have_text(SKIP[lang])
    ana.tap('[data-test="guide-skip"]')
    expect(guide).to_have_count(0)
    assert ana.storage()["local"].get("crisp.guide.crisps") == "done"
    ana.page.reload()
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    ana.tap(ana.loc('[data-test="my-card"][data-rank="3"]').first)
    ana.tap(ana.action("play"))
    room.act(1, {"do": "play", "cards": "4"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(4)
    expect(guide).to_have_count(0)
    assert_clean([ana])


FOLLOW_MORE = {
    "en": "Three or four of a kind beat any play with a Crisp.",
    "fr": "Un brelan ou un carré bat tout coup avec un Crisp.",
    "ja": "スリーカードとフォーカードはクリスプを含む札にも出せます。",
}
