"""The table's layouts in a real browser (Debian's Chromium, headless, Python Playwright) against a
real ``crisp serve``: 2, 5 and 8 seats (the host and bots, "Practice against the computer") on a
small phone (320x658), a large one (390x844), a phone in landscape (844x390), a tablet (768x1024)
and a desktop (1440x900). At each moment where the player has something to do (the look: Ready;
the turn: Draw; holding the drawn card: its moves) the player's own cards and every action button
are inside the viewport without scrolling, and nothing overflows horizontally. Screenshots of each
are saved under tests/artifacts/screenshots/ for review."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from playwright.sync_api import expect

from crisp.engine.crisp.rng import first_dealer

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

VIEWPORTS = {
    "phone-320x658": {"width": 320, "height": 658, "is_mobile": True, "has_touch": True},
    "phone-390x844": {"width": 390, "height": 844, "is_mobile": True, "has_touch": True},
    "landscape-844x390": {"width": 844, "height": 390, "is_mobile": True, "has_touch": True},
    "tablet-768x1024": {"width": 768, "height": 1024, "has_touch": True},
    "desktop-1440x900": {"width": 1440, "height": 900},
}


def seed_where_host_plays_first(players: int) -> int:
    """R-DEALER, R-FIRST: a seed whose first dealer is the last seat, so seat 0 (the host) plays
    first."""
    return next(s for s in range(1, 10_000) if first_dealer(s, players) == players - 1)


def layout_problems(phone: Phone) -> list[str]:
    """What is outside the viewport or overflows: own cards, action buttons, the page's width."""
    return list(
        phone.page.evaluate("""() => {
        const out = [];
        const vw = window.innerWidth, vh = window.innerHeight;
        const doc = document.documentElement;
        if (doc.scrollWidth > vw + 1) out.push(`horizontal overflow: ${doc.scrollWidth} > ${vw}`);
        const targets = [...document.querySelectorAll(
          '[data-test="hand"] button.card, [data-test="actions"] button')];
        if (!targets.length) out.push("no own cards or actions found");
        for (const el of targets) {
          const r = el.getBoundingClientRect();
          const name = el.dataset.action || `card ${el.dataset.slot}`;
          if (r.width === 0 || r.height === 0) out.push(`${name}: not shown`);
          if (r.top < 0 || r.left < -1 || r.bottom > vh + 1 || r.right > vw + 1) {
            out.push(`${name} outside the viewport: ${JSON.stringify(r)} in ${vw}x${vh}`);
          }
        }
        // a shown menu's chosen entry is not cut ("Englis▾"): its text and the arrow fit
        const ctx = document.createElement("canvas").getContext("2d");
        for (const el of document.querySelectorAll("header select")) {
          if (!el.offsetParent) continue;
          const css = getComputedStyle(el);
          ctx.font = `${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
          const text = ctx.measureText(el.selectedOptions[0]?.text ?? "").width;
          const pad = parseFloat(css.paddingLeft) + parseFloat(css.paddingRight);
          const room = el.clientWidth - pad - 16;
          if (text > room) out.push(`#${el.id} cut: needs ${Math.ceil(text)} px, has ${room}`);
        }
        for (const el of document.querySelectorAll("header.top > *")) {
          const r = el.getBoundingClientRect();
          if (r.width && (r.left < -1 || r.right > vw + 1)) out.push(`header cut: ${el.className}`);
        }
        for (const pts of document.querySelectorAll('[data-test="seat"] .pts')) {
          const who = pts.parentElement.getBoundingClientRect(), r = pts.getBoundingClientRect();
          const seat = pts.parentElement.textContent.trim();
          if (r.right > who.right + 1) out.push(`a seat's score is cut: ${seat}`);
        }
        if (window.scrollY !== 0) out.push(`scrolled: ${window.scrollY}`);
        return out;
    }""")
    )


def check_all(views: dict[str, Phone], moment: str, seats: int, ready: str) -> dict[str, list[str]]:
    """On every screen, once ``ready`` (a selector) is visible: the problems, and a screenshot."""
    problems: dict[str, list[str]] = {}
    for label, phone in views.items():
        expect(phone.loc(ready).first).to_be_visible()
        found = layout_problems(phone)
        if found:
            problems[f"{label} {moment}"] = found
        phone.shot(f"layout-{seats}seats-{label}-{moment}")
    return problems


@pytest.mark.parametrize("seats", [2, 5, 8])
def test_own_cards_and_moves_fit_every_screen(server: Any, phones: Any, seats: int) -> None:
    """At 2, 5 and 8 seats, on five screens, the own cards and every action are
    in the viewport without scrolling, and nothing overflows horizontally; the practice flow
    (the practice table) makes the table: one tap, bots of the chosen level, started at once."""
    srv = server(seed_where_host_plays_first(seats), clock_speed=0.5)  # the look: 20 real s
    labels = list(VIEWPORTS)
    host = phones(srv, "Pixel 7", "host", viewport=VIEWPORTS[labels[0]], device_scale_factor=1)
    host.page.goto("/")
    host.page.fill("#name", "Ana")
    host.page.select_option("#practice-bots", str(seats - 1))
    host.page.select_option("#practice-level", "easy")
    host.tap("#practice")
    expect(host.loc('[data-test="hand"]')).to_be_visible()
    expect(host.loc('[data-test="seat"]')).to_have_count(seats - 1)
    token = host.page.evaluate(
        "Object.entries(localStorage).find(([k]) => k.startsWith('crisp.token.'))"
    )
    code = token[0].removeprefix("crisp.token.")
    views = {labels[0]: host}
    for label in labels[1:]:  # the same seat on other screens (a token may connect many times)
        phone = phones(
            srv,
            "Pixel 7",
            label,
            viewport=VIEWPORTS[label],
            device_scale_factor=1,
            is_mobile=VIEWPORTS[label].get("is_mobile", False),
            has_touch=VIEWPORTS[label].get("has_touch", False),
        )
        phone.page.goto("/")
        phone.page.evaluate("([k, v]) => localStorage.setItem(k, v)", token)
        phone.page.goto(f"/r/{code}")
        views[label] = phone
    problems = check_all(views, "look", seats, '[data-action="ready"]')
    host.tap(host.action("ready"))
    for phone in views.values():
        expect(phone.action("draw")).to_be_enabled(timeout=40_000)
    problems |= check_all(views, "turn", seats, '[data-action="draw"]')
    host.tap(host.action("draw"))
    problems |= check_all(views, "holding", seats, '[data-test="held"].up')
    assert not problems, problems
    if seats == 8:  # a phone's table header has no room for the language: the ≡ menu has it
        small = views["phone-320x658"]
        expect(small.loc("header #lang")).to_be_hidden()
        small.tap('[data-test="scores"]')
        small.page.select_option("#lang-menu", "fr")
        expect(small.loc("#lang-menu")).to_have_value("fr")
        expect(small.loc(".menu-rules .rules")).to_have_text(re.compile("Règles"))
    if seats == 5:  # dark mode: the table and the Scores menu, for review
        dark = phones(
            srv,
            "Pixel 7",
            "dark",
            viewport=VIEWPORTS["phone-390x844"],
            color_scheme="dark",
            device_scale_factor=1,
        )
        dark.page.goto("/")
        dark.page.evaluate("([k, v]) => localStorage.setItem(k, v)", token)
        dark.page.goto(f"/r/{code}")
        expect(dark.loc('[data-test="hand"]')).to_be_visible()
        dark.shot("dark-table-5seats-phone-390x844")
        dark.tap('[data-test="scores"]')
        expect(dark.loc('[data-test="standings"]')).to_be_visible()
        dark.shot("dark-scores-5seats-phone-390x844")
        views["dark"] = dark
    assert_clean(list(views.values()))
