"""Every screen and its tap targets, for Crisps!: on every screen (320x568 to
1440x900, upright and on their side), on a follow turn with cards selected and with the round-end
panel open, the hand and every enabled move (Play, Pass) are inside the viewport and unobscured
without scrolling; every tappable target is at least 44x44 px; nothing in the header or the
names is cut, in English, French and Japanese. The stand-in server (tests/support/crisps_fake.py)
deals a stacked deck. Screenshots: tests/artifacts/screens/ (or $CRISP_ARTIFACTS/screens/)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from crisps_fake import CODE, DECK, ENDS, FakeCrispsRoom
from playwright.sync_api import expect
from screens import SIZES, problems, shot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)


def phone_at(
    phones: Any, host: Any, room: FakeCrispsRoom, seat: int, size: str, lang: str
) -> Phone:
    phone: Phone = phones(
        host,
        "Pixel 7",
        f"{size}-{lang}",
        viewport=SIZES[size],
        device_scale_factor=1,
        is_mobile=SIZES[size]["width"] < 1000,
        has_touch=True,
    )
    room.attach(phone.page, seat)
    phone.page.add_init_script(f"localStorage.setItem('crisp.lang', '{lang}')")
    phone.page.goto(f"/r/{CODE}")
    expect(phone.loc('[data-test="hand"]')).to_be_visible()
    return phone


def select(phone: Phone, cards: str) -> None:
    used: dict[str, int] = {}
    for c in cards:
        card = phone.loc(f'[data-test="my-card"][data-rank="{c}"]').nth(used.get(c, 0))
        phone.tap(card)
        expect(card).to_have_attribute("aria-pressed", "true")
        used[c] = used.get(c, 0) + 1


@pytest.mark.parametrize("size", list(SIZES))
def test_a_follow_turn_with_cards_selected_fits(phones: Any, host: Any, size: str) -> None:
    """Never again Play and Pass below the fold at 320x568, cut at 844x390, no hand at 568x320:
    on a follow turn with two cards selected, the hand, Play and Pass are on screen."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana = phone_at(phones, host, room, 0, size, "en")
    select(ana, "1")
    ana.tap(ana.action("play"))
    room.act(1, {"do": "play", "cards": "2"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(2)
    select(ana, "33")  # a pair: not a follow of a single (Play says why), Pass and Clear shown
    found = [f"two selected: {x}" for x in problems(ana.page)]
    ana.tap(ana.action("cs-clear"))
    select(ana, "3")
    expect(ana.action("play")).to_be_enabled()
    found += problems(ana.page)
    shot(ana.page, f"crisps-follow-{size}")
    assert not found, found
    assert_clean([ana])


@pytest.mark.parametrize("size", list(SIZES))
def test_the_round_end_panel_leaves_the_hand_and_moves_on_screen(
    phones: Any, host: Any, size: str
) -> None:
    """The round-end panel (CS-SEE-END) stays until Close; meanwhile the next
    round's leader still sees its hand and its moves."""
    room = FakeCrispsRoom(decks=[ENDS, DECK], first_starter=0)
    ben = phone_at(phones, host, room, 1, size, "en")
    room.act(0, {"do": "play", "cards": "112233445566"})
    expect(ben.loc('[data-test="reveal"]')).to_be_visible()
    select(ben, "1")
    expect(ben.action("play")).to_be_enabled()
    found = problems(ben.page)
    shot(ben.page, f"crisps-roundend-{size}")
    assert not found, found
    assert_clean([ben])


@pytest.mark.parametrize("lang", ["en", "fr", "ja"])
@pytest.mark.parametrize("size", ["320x568", "844x390"])
def test_nothing_is_cut_in_each_language(phones: Any, host: Any, size: str, lang: str) -> None:
    """No "Manch…" at 320 px in French: the header, the names and the moves fit."""
    room = FakeCrispsRoom(names=("Émilienne", "Bartholomew"), decks=[DECK], first_starter=1)
    ana = phone_at(phones, host, room, 0, size, lang)
    room.act(1, {"do": "play", "cards": "22"})
    select(ana, "33")
    expect(ana.action("play")).to_be_enabled()
    found = problems(ana.page)
    shot(ana.page, f"crisps-{lang}-{size}")
    assert not found, found
    assert_clean([ana])
