"""Nothing drawn over the game: for every state of a screenshot matrix (both games; 320x568,
390x844, 412x915, 568x320, 844x390, 768x1024, 1280x720; light and dark; English, French and
Japanese) nothing opaque lies over what the state depends on (tests/support/occlusion.py: your
cards, the tappable cards, the actions, the trick to beat, the opponents' cards, the pile, the
results, the header's title), with the first-game guide showing; and no word of the header or of
Crisps!'s supply labels is broken across lines (tests/support/wholewords.py).

One page per game walks the matrix: the viewport, the colour scheme and the language change in
place (the language by the page's own menu), so the whole matrix costs a few page loads. Crisp: a
real ``crisp serve`` practice game (a seed that gives the host a Queen on the first draw); Crisps!:
the stand-in server (tests/support/crisps_fake.py) with stacked decks. Screenshots of the phone
sizes: tests/artifacts/occlusion/ (or $CRISP_ARTIFACTS/occlusion/)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, TapPlayer, assert_clean, play_until, practice
from crisps_fake import CODE, DECK, ENDS, FakeCrispsRoom
from occlusion import PROTECTED, occluded
from paths import TESTS
from playwright.sync_api import expect
from seeded import fixed_deck, fixed_first_dealer
from wholewords import broken_words

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

SIZES = {
    "320x568": (320, 568),
    "390x844": (390, 844),
    "412x915": (412, 915),
    "568x320": (568, 320),
    "844x390": (844, 390),
    "768x1024": (768, 1024),
    "1280x720": (1280, 720),
}
THEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")
LANGS = ("en", "fr", "ja")
SHOT_SIZES = ("320x568", "390x844", "568x320", "844x390")


def shots_dir() -> Path:
    base = os.environ.get("CRISP_ARTIFACTS")
    out = (Path(base) if base else TESTS / "artifacts") / "occlusion"
    out.mkdir(parents=True, exist_ok=True)
    return out


def set_language(page: Any, lang: str) -> None:
    """The page's own language menu (the header's, hidden or not: the ≡ menu has its twin)."""
    page.evaluate(
        """(lang) => {
          const el = document.querySelector('[data-setting="lang"]');
          el.value = lang;
          el.dispatchEvent(new Event("change", { bubbles: true }));
        }""",
        lang,
    )
    page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)


def shoot(size: str, theme: str, lang: str) -> bool:
    """The views kept as screenshots: the phones in light English, 320x568 dark in the others."""
    if (theme, lang) == ("light", "en"):
        return size in SHOT_SIZES
    return size == "320x568" and theme == "dark"


def sweep(
    phone: Phone, game: str, state: str, protect: dict[str, str] | None = None
) -> dict[str, list[str]]:
    """The state on every screen, scheme and language: what of ``protect`` (by default all that
    tests/support/occlusion.py protects) is covered, by view."""
    page = phone.page
    found: dict[str, list[str]] = {}
    for lang in LANGS:
        set_language(page, lang)
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)
            for size, (w, h) in SIZES.items():
                page.set_viewport_size({"width": w, "height": h})
                view = f"{game}-{state}-{size}-{theme}-{lang}"
                wrong = occluded(page, protect) + broken_words(page)
                if wrong:
                    found[view] = wrong
                if shoot(size, theme, lang):
                    page.screenshot(
                        path=str(shots_dir() / f"{view}.png"), scale="css", animations="disabled"
                    )
    set_language(page, "en")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 390, "height": 844})
    return found


def guided(phones: Any, srv: Any, label: str) -> Phone:
    """A phone on its first game: the guide shows."""
    phone: Phone = phones(
        srv,
        "Pixel 7",
        label,
        guide=True,
        viewport={"width": 390, "height": 844},
        device_scale_factor=1,
        is_mobile=True,
        has_touch=True,
    )
    return phone


def queen_seed() -> int:
    """R-DEALER, R-DEAL, R-FIRST: a 2-seat seed whose first dealer is the bot (the host, seat 0,
    plays first) and whose first card after the deal is a Queen (the host draws it)."""
    for s in range(1, 50_000):
        if fixed_first_dealer(s, 2) == 1 and fixed_deck(s, 2)[6][0] == "Q":
            return s
    raise AssertionError("no such seed")


def guide_shown(phone: Phone) -> None:
    expect(phone.loc('[data-test="guide-text"]')).to_be_visible()


def test_crisp_nothing_covers_what_each_state_depends_on(server: Any, phones: Any) -> None:
    """Crisp: the look (Ready), the turn (Draw), holding a Queen (its moves), choosing the
    Queen's target (the other seat's cards): nothing covers the hand, the moves, the tappable
    cards, the opponents' cards, the pile or the header's title, in any view of the matrix."""
    srv = server(queen_seed(), clock_speed=0.15)  # the look: 67 real s
    ana = guided(phones, srv, "crisp")
    practice(ana)
    found: dict[str, list[str]] = {}
    if ana.action("ready").count():
        guide_shown(ana)
        found |= sweep(ana, "crisp", "look")
        ana.tap(ana.action("ready"))
    expect(ana.action("draw")).to_be_enabled(timeout=60_000)
    guide_shown(ana)
    found |= sweep(ana, "crisp", "turn")
    ana.tap(ana.action("draw"))
    expect(ana.action("queen")).to_be_visible()
    found |= sweep(ana, "crisp", "queen")
    ana.tap(ana.action("queen"))
    ana.tap(ana.my_card("left"))
    expect(ana.loc('[data-test="card"].pickable').first).to_be_visible()
    found |= sweep(ana, "crisp", "queen-target")
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())
    ana.errors = [e for e in ana.errors if "navigator.vibrate" not in e]
    assert_clean([ana])


# The results are a sheet over the table: what they depend on is the sheet, its next step and the
# header above it (the table's cards under the sheet are the sheet's to show).
RESULTS = {k: v for k, v in PROTECTED.items() if k in ("results", "next step", "header title")}


def test_crisp_round_results_leave_next_round_in_sight(server: Any, phones: Any) -> None:
    """Crisp's round results (R-SCORE): the sheet and its Next round are on screen and covered by
    nothing (no guide, no toast), in every view of the matrix; the guide is gone with its state."""
    srv = server(queen_seed(), clock_speed=4.0)
    ana = guided(phones, srv, "crisp-results")
    practice(ana)
    player = TapPlayer(ana, crisp_after=1)
    play_until([player], lambda: player.visible('[data-action="continue"]'))
    expect(ana.loc('[data-test="guide"]')).to_have_count(0)
    # the crisp call's banner crosses the header for 1.4 s by design (games/crisp/anim.js)
    expect(ana.loc('[data-test="crisp-banner"]')).to_have_count(0)
    found = sweep(ana, "crisp", "results", RESULTS)
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())
    ana.errors = [e for e in ana.errors if "navigator.vibrate" not in e]
    assert_clean([ana])


def test_crisps_nothing_covers_what_each_state_depends_on(phones: Any, host: Any) -> None:
    """Crisps!: the lead (the hand, Play), a follow with a card selected (the trick to beat,
    Play, Pass), and the round's end (its panel, the next lead): nothing covers them, in any
    view of the matrix."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0, present=(1,))  # Ben is online
    ana = guided(phones, host, "crisps")
    room.attach(ana.page, 0)
    ana.page.goto(f"/r/{CODE}")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    guide_shown(ana)
    found = sweep(ana, "crisps", "lead")
    ana.tap(ana.loc('[data-test="my-card"][data-rank="1"]').first)
    ana.tap(ana.action("play"))
    room.act(1, {"do": "play", "cards": "2"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(2)
    card = ana.loc('[data-test="my-card"][data-rank="3"]').first
    ana.tap(card)
    expect(ana.action("play")).to_be_enabled()
    found |= sweep(ana, "crisps", "follow")
    ends = FakeCrispsRoom(decks=[ENDS, DECK], first_starter=0, present=(0,))
    ben = guided(phones, host, "crisps-end")
    ends.attach(ben.page, 1)
    ben.page.goto(f"/r/{CODE}")
    expect(ben.loc('[data-test="hand"]')).to_be_visible()
    ends.act(0, {"do": "play", "cards": "112233445566"})
    expect(ben.loc('[data-test="reveal"]')).to_be_visible()
    found |= sweep(ben, "crisps", "round-end")
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())
    assert_clean([ana, ben])
