"""Teach in play, on every screen: the first-game guide never covers a card
or a move. At 320x568, 375x667, 412x915, 844x390, 568x320, 768x1024 and 1280x720, in both games,
with the guide on the table (in the status area: the field scrolls it into sight on a short
screen), nothing covers a card of the hand, a table card the player can tap (a Queen's targets)
or an action button.
Crisp: a real ``crisp serve`` practice game (a fixed seed, chosen by ``queen_seed``, gives the host
a Queen on the first draw); Crisps!: the stand-in server (tests/support/crisps_fake.py) with a
stacked deck. Screenshots: tests/artifacts/teach/."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from crisps_fake import CODE, FakeCrispsRoom, pages
from occlusion import occluded
from paths import TESTS
from playwright.sync_api import expect
from screens import SIZES
from seeded import fixed_deck, fixed_first_dealer
from statichost import StaticHost

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

NAMED = ["320x568", "375x667", "412x915", "844x390", "568x320", "768x1024", "1280x720"]
# what the guide must never cover: the hand, the table cards one may tap, the moves
TAPPABLE = {
    "your cards": '[data-test="hand"] button',
    "tappable cards": 'main button[data-test="card"]:not([disabled]):not([aria-disabled="true"])',
    "actions": '[data-test="actions"] button',
}
IN_STATUS = """() => {
  const g = document.querySelector('[data-test="guide"]');
  return Boolean(g && g.closest(".status-area"));
}"""


def covered(phone: Phone) -> list[str]:
    """What of TAPPABLE something covers (tests/support/occlusion.py: the guide included, though
    it lets taps through), and whether the guide is where it belongs: in the status area."""
    found = occluded(phone.page, TAPPABLE)
    if not phone.page.evaluate(IN_STATUS):
        found.append("the guide is not in the status area")
    return found


def shot(phone: Phone, name: str) -> None:
    out = TESTS / "artifacts" / "teach"
    out.mkdir(parents=True, exist_ok=True)
    phone.page.screenshot(path=str(out / f"{name}.png"), scale="css", animations="disabled")


def queen_seed() -> int:
    """R-DEALER, R-DEAL, R-FIRST: a 2-seat seed whose first dealer is the bot (seat 1: the host,
    seat 0, plays first) and whose first card after the deal is a Queen (the host draws it)."""
    for s in range(1, 50_000):
        if fixed_first_dealer(s, 2) == 1 and fixed_deck(s, 2)[6][0] == "Q":
            return s
    raise AssertionError("no such seed")


def viewer(phones: Any, srv: Any, size: str) -> Phone:
    return phones(
        srv,
        "Pixel 7",
        size,
        guide=True,
        viewport=SIZES[size],
        device_scale_factor=1,
        is_mobile=SIZES[size]["width"] < 1000,
        has_touch=True,
    )


def check(views: dict[str, Phone], moment: str, game: str, ready: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for size, phone in views.items():
        expect(phone.loc(ready).first).to_be_visible()
        expect(phone.loc('[data-test="guide-text"]')).to_have_count(1)
        wrong = covered(phone)
        if wrong:
            found[f"{size} {moment}"] = wrong
        shot(phone, f"placement-{game}-{size}-{moment}")
    return found


def test_crisp_guide_covers_no_card_and_no_move(server: Any, phones: Any) -> None:
    """The look (Ready), the turn (Draw), holding a Queen (its moves and the hand) and choosing
    its target (the other seat's cards, Cancel): the guide covers none of them, at every size."""
    seed = queen_seed()
    srv = server(seed, clock_speed=0.15)  # the look: 67 real s, while the pages open
    host = phones(srv, "Pixel 7", "host", viewport=SIZES["375x667"])
    host.page.goto("/")
    host.page.fill("#name", "Ana")
    host.page.select_option("#practice-bots", "1")
    host.tap("#practice")
    expect(host.loc('[data-test="hand"]')).to_be_visible()
    token = host.page.evaluate(
        "Object.entries(localStorage).find(([k]) => k.startsWith('crisp.token.'))"
    )
    code = token[0].removeprefix("crisp.token.")
    views: dict[str, Phone] = {}
    for size in NAMED:
        phone = viewer(phones, srv, size)
        phone.page.goto("/")
        phone.page.evaluate("([k, v]) => localStorage.setItem(k, v)", token)
        phone.page.goto(f"/r/{code}")
        views[size] = phone
    found: dict[str, list[str]] = {}
    if host.action("ready").count():
        found |= check(views, "look", "crisp", '[data-action="ready"]')
        host.tap(host.action("ready"))
    for phone in views.values():
        expect(phone.action("draw")).to_be_enabled(timeout=60_000)
    found |= check(views, "turn", "crisp", '[data-action="draw"]')
    host.tap(host.action("draw"))
    assert host.held()[0] == "Q", "the deal gives the host a Queen"
    found |= check(views, "queen", "crisp", '[data-action="queen"]')
    for phone in views.values():  # the choice is each page's own until Confirm
        phone.tap(phone.action("queen"))
        phone.tap(phone.my_card("left"))
    found |= check(views, "queen-target", "crisp", '[data-test="card"].pickable')
    (TESTS / "artifacts" / "teach" / "placement-crisp.json").write_text(json.dumps(found, indent=1))
    assert not found, found
    for phone in views.values():
        phone.errors = [e for e in phone.errors if "navigator.vibrate" not in e]
    assert_clean([host, *views.values()])


HAND0 = "1334555689XX"
HAND1 = "111222234666"
DECK = HAND0 + HAND1 + "7999" + "8" + "344577788XX"


@pytest.fixture(scope="module")
def host() -> Any:
    with StaticHost(pages()) as h:
        yield h


@pytest.mark.parametrize("size", NAMED)
def test_crisps_guide_covers_no_card_and_no_move(phones: Any, host: Any, size: str) -> None:
    """The lead (the hand, Play) and a follow with a card selected (the hand, Play, Pass): the
    guide covers none of them."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana = viewer(phones, host, size)
    room.attach(ana.page, 0)
    ana.page.goto(f"/r/{CODE}")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    views = {size: ana}
    found = check(views, "lead", "crisps", '[data-test="my-card"]')
    ana.tap(ana.loc('[data-test="my-card"][data-rank="1"]').first)
    ana.tap(ana.action("play"))
    room.act(1, {"do": "play", "cards": "2"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(2)
    card = ana.loc('[data-test="my-card"][data-rank="3"]').first
    ana.tap(card)
    expect(card).to_have_attribute("aria-pressed", "true")
    expect(ana.action("play")).to_be_enabled()
    found |= check(views, "follow", "crisps", '[data-action="play"]')
    assert not found, found
    assert_clean([ana])
