"""Every screen and its tap targets, for Crisp: a practice game of 3 and of 8 seats (the
host and bots, a real ``crisp serve``), the same seat open on every screen of the issue (320x568
to 1440x900, upright and on their side) and at 320x568 in French and Japanese. At each moment
where the player has something to do (the look: Ready; the turn: Draw; holding a Queen: its
moves; choosing the Queen's target: the other seats' cards and Cancel) the hand and every enabled
action are inside the viewport and unobscured without scrolling, every tappable target (a Queen's
target card included) is at least 44x44 px, and nothing in the header or the names is cut.
Screenshots: tests/artifacts/screens/ (or $CRISP_ARTIFACTS/screens/)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from playwright.sync_api import expect
from screens import SIZES, artifacts, problems, shot
from seeded import fixed_deck, fixed_first_dealer

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

VIEWS = [(size, "en") for size in SIZES] + [("320x568", "fr"), ("320x568", "ja")]


def queen_seed(players: int) -> int:
    """R-DEALER, R-DEAL: a seed whose first dealer is the last seat (the host, seat 0, plays
    first) and whose first two cards after the deal are Queens (the host draws one)."""
    for s in range(1, 50_000):
        deck = fixed_deck(s, players)
        first = 3 * players
        if (
            fixed_first_dealer(s, players) == players - 1
            and deck[first][0] == deck[first + 1][0] == "Q"
        ):
            return s
    raise AssertionError("no such seed")


def check(views: dict[str, Phone], moment: str, seats: int, ready: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for label, phone in views.items():
        expect(phone.loc(ready).first).to_be_visible()
        wrong = problems(phone.page)
        if wrong:
            found[f"{label} {moment}"] = wrong
        shot(phone.page, f"crisp-{seats}seats-{label}-{moment}")
    return found


@pytest.mark.parametrize("seats", [3, 8])
def test_every_screen_every_moment(server: Any, phones: Any, seats: int) -> None:
    """No more Queen targets of 26x36 (3 seats) and 27x56 (8 seats), Cancel below the fold at 8
    seats 320x658, header icons of 40 px, a feed control of 36 px, a Rules link of 30 px,
    "Manch…" in French at 320 px: the hand and the moves always on screen."""
    srv = server(queen_seed(seats), clock_speed=0.15)  # the look: 67 real s
    host = phones(srv, "Pixel 7", "host", viewport=SIZES["320x658"], device_scale_factor=1)
    host.page.goto("/")
    host.page.fill("#name", "Bartholomew")
    host.page.select_option("#practice-bots", str(seats - 1))
    host.page.select_option("#practice-level", "easy")
    host.tap("#practice")
    expect(host.loc('[data-test="hand"]')).to_be_visible()
    token = host.page.evaluate(
        "Object.entries(localStorage).find(([k]) => k.startsWith('crisp.token.'))"
    )
    code = token[0].removeprefix("crisp.token.")
    views: dict[str, Phone] = {}
    for size, lang in VIEWS:
        label = size if lang == "en" else f"{size}-{lang}"
        phone = phones(
            srv,
            "Pixel 7",
            label,
            viewport=SIZES[size],
            device_scale_factor=1,
            is_mobile=SIZES[size]["width"] < 1000,
            has_touch=True,
        )
        phone.page.goto("/")
        phone.page.evaluate("([k, v]) => localStorage.setItem(k, v)", token)
        phone.page.evaluate(f"localStorage.setItem('crisp.lang', '{lang}')")
        phone.page.goto(f"/r/{code}")
        views[label] = phone
    found: dict[str, list[str]] = {}
    if host.action("ready").count():  # the look may be over while the pages open
        found |= check(views, "look", seats, '[data-action="ready"]')
        host.tap(host.action("ready"))
    for phone in views.values():
        expect(phone.action("draw")).to_be_enabled(timeout=40_000)
    found |= check(views, "turn", seats, '[data-action="draw"]')
    host.tap(host.action("draw"))
    found |= check(views, "holding", seats, '[data-action="queen"]')
    for phone in views.values():  # the choice is each page's own until Confirm
        phone.tap(phone.action("queen"))
        phone.tap(phone.my_card("left"))
    found |= check(views, "queen-target", seats, '[data-test="card"].pickable')
    (artifacts() / f"crisp-{seats}seats-problems.json").write_text(json.dumps(found, indent=1))
    assert not found, found
    for phone in views.values():  # Chromium's intervention on a page never tapped: not the client's
        phone.errors = [e for e in phone.errors if "navigator.vibrate" not in e]
    assert_clean([host, *views.values()])
