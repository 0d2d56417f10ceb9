"""The accessibility rule ("axe-core: no serious or critical violation on any screen of either game,
light and dark"): axe-core (vendored, tests/support/axe.py, WCAG 2.0 A/AA and 2.1 AA) on every
screen of Crisp and of Crisps!, in the light and the dark colour scheme, in Chromium. Every
violation found is printed (id, impact, targets); a serious or critical one fails its screen.

Crisp, on a real ``crisp serve`` (a 2-seat room, the host and a bot, score limit 50, a fixed seed
whose host draws a Queen first): home, lobby, "How to play", the table on your turn, holding the
drawn card, the Queen's choice, the shared screen (/r/CODE/tv), the round-end results and the
game over. Crisps!, on a real server: home, lobby, "How to play", the table and its shared screen;
and on the stand-in server with a stacked deck (tests/support/crisps_fake.py): a follow turn with
cards selected, the round-end panel and the game over.

The rule behind the change (``label-content-name-mismatch``, WCAG 2.5.3 Label in Name): a face-up
card button's visible text (its corner index, e.g. "7", "10", "D" in French) is part of its
accessible name ("Your left card: 7♥", "7"). Screenshots: tests/artifacts/cards/axe-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from axe import TAGS, Violation, blocking, report, run
from browser import CHROMIUM, TIMEOUT_MS, Phone, TapPlayer, play_until
from crisps_fake import CODE, DECK, ENDS, FakeCrispsRoom, pages
from paths import TESTS
from playwright.sync_api import expect
from seeded import fixed_deck, fixed_first_dealer
from serverproc import ServerProcess
from statichost import StaticHost

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

SCHEMES = ("light", "dark")
SHOTS = TESTS / "artifacts" / "cards"
CRISP_SCREENS = (
    "home",
    "lobby",
    "howto",
    "turn",
    "holding",
    "queen",
    "tv",
    "roundend",
    "gameover",
)
CRISPS_SCREENS = ("home", "lobby", "howto", "table", "tv", "follow", "roundend", "gameover")
SCREENS = [("crisp", s) for s in CRISP_SCREENS] + [("crisps", s) for s in CRISPS_SCREENS]

# WCAG 2.0 A/AA and 2.1 A/AA: tests/support/axe.py's tags and wcag21a, where axe files
# label-content-name-mismatch (2.5.3 Label in Name).
RULES = (*TAGS, "wcag21a")
Found = dict[tuple[str, str, str], list[Violation]]
HEADINGS: dict[tuple[str, str], int] = {}  # (game, screen) -> page-has-heading-one violations
# page-has-heading-one is one of axe's best practices (no WCAG tag): asked for by name.
HEADING_ONE = """async () => (await axe.run(document,
  { runOnly: { type: "rule", values: ["page-has-heading-one"] } })).violations.length"""


def queen_seed(players: int) -> int:
    """R-DEALER, R-DEAL: a fixed seed whose first dealer is the last seat (the host, seat 0,
    plays first) and whose first card after the deal is a Queen (the host draws it)."""
    for s in range(1, 50_000):
        drawn = fixed_deck(s, players)[3 * players]
        if fixed_first_dealer(s, players) == players - 1 and drawn[0] == "Q":
            return s
    raise AssertionError("no such seed")


def audit(phone: Phone, game: str, screen: str, found: Found) -> None:
    """axe on the page as it is, in each scheme; every violation printed; a screenshot each."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in SCHEMES:
        phone.page.emulate_media(color_scheme=scheme)
        phone.page.evaluate("new Promise((r) => requestAnimationFrame(() => r(true)))")
        found[game, screen, scheme] = run(phone.page, RULES)[0]
        print(report(f"{game} {screen} ({scheme})", found[game, screen, scheme]))
        phone.page.screenshot(
            path=str(SHOTS / f"axe-{game}-{screen}-{scheme}.png"), animations="disabled"
        )
    phone.page.emulate_media(color_scheme="light")
    HEADINGS[game, screen] = phone.page.evaluate(HEADING_ONE)
    if HEADINGS[game, screen]:
        print(f"axe {game} {screen}: page-has-heading-one")


def open_howto(phone: Phone) -> None:
    phone.tap('[data-test="rules"]')
    expect(phone.loc('[data-test="howto"]')).to_be_visible()


def close_howto(phone: Phone) -> None:
    phone.tap('[data-test="howto-close"]')
    expect(phone.loc('[data-test="howto"]')).to_have_count(0)


def walk_crisp(browser: Any, playwright: Any, data: Path, found: Found) -> None:
    srv = ServerProcess(data, clock_speed=3, env={"CRISP_FIXED_SEED": str(queen_seed(2))}).start()
    ana = Phone(browser, playwright, "Pixel 7", srv.base, "ana")
    tv = None
    try:
        ana.page.goto("/")
        expect(ana.loc("#create")).to_be_visible()
        audit(ana, "crisp", "home", found)
        code = ana.create_room("Ana")
        ana.page.select_option("#opt-limit", "50")
        ana.tap('[data-action="add-bot"]')
        expect(ana.loc('[data-test="member"]')).to_have_count(2)
        ana.page.wait_for_function("() => document.querySelector('img[data-test=qr]')?.complete")
        audit(ana, "crisp", "lobby", found)
        open_howto(ana)
        audit(ana, "crisp", "howto", found)
        close_howto(ana)
        ana.tap("#start")
        ana.tap(ana.action("ready"))
        expect(ana.action("draw")).to_be_enabled(timeout=40_000)
        audit(ana, "crisp", "turn", found)
        ana.tap(ana.action("draw"))
        expect(ana.action("queen")).to_be_visible()
        audit(ana, "crisp", "holding", found)
        ana.tap(ana.action("queen"))
        ana.tap(ana.my_card("left"))
        expect(ana.loc('[data-test="card"].pickable').first).to_be_visible()
        audit(ana, "crisp", "queen", found)
        tv = Phone(browser, playwright, "Desktop Chrome", srv.base, "tv")
        tv.page.set_viewport_size({"width": 1280, "height": 720})
        tv.page.goto(f"/r/{code}/tv")
        expect(tv.loc('[data-test="seat"]').first).to_be_visible()
        audit(tv, "crisp", "tv", found)
        ana.tap(ana.loc('[data-test="card"]').first)
        ana.tap(ana.action("confirm"))
        player = TapPlayer(ana, crisp_after=1)
        results = ana.loc('[data-test="results"]')
        play_until([player], results.is_visible, timeout=120)
        audit(ana, "crisp", "roundend", found)
        winners = ana.loc('[data-test="winners"]')
        play_until([player], lambda: winners.count() > 0, timeout=400)
        expect(ana.loc('[data-test="results"] .card.up').first).to_be_visible()
        audit(ana, "crisp", "gameover", found)
    finally:
        ana.close()
        if tv:
            tv.close()
        srv.stop()


def walk_crisps_server(browser: Any, playwright: Any, data: Path, found: Found) -> None:
    srv = ServerProcess(data, clock_speed=3, env={"CRISP_FIXED_SEED": "11"}).start()
    ana = Phone(browser, playwright, "Pixel 7", srv.base, "ana")
    tv = None
    try:
        ana.page.goto("/")
        ana.tap('[data-test="game-crisps"]')
        expect(ana.loc('[data-test="game-crisps"]')).to_be_checked()
        audit(ana, "crisps", "home", found)
        ana.page.fill("#name", "Ana")
        ana.tap("#create")
        code = ana.loc('[data-test="room-code"]').inner_text().strip().replace("-", "")
        ana.tap('[data-action="add-bot"]')
        expect(ana.loc('[data-test="member"]')).to_have_count(2)
        ana.page.wait_for_function("() => document.querySelector('img[data-test=qr]')?.complete")
        audit(ana, "crisps", "lobby", found)
        open_howto(ana)
        audit(ana, "crisps", "howto", found)
        close_howto(ana)
        ana.tap("#start")
        expect(ana.loc('[data-test="hand"] [data-test="my-card"]').first).to_be_visible()
        audit(ana, "crisps", "table", found)
        tv = Phone(browser, playwright, "Desktop Chrome", srv.base, "tv")
        tv.page.set_viewport_size({"width": 1280, "height": 720})
        tv.page.goto(f"/r/{code}/tv")
        expect(tv.loc('[data-test="seat"]').first).to_be_visible()
        audit(tv, "crisps", "tv", found)
    finally:
        ana.close()
        if tv:
            tv.close()
        srv.stop()


def fake_phone(browser: Any, playwright: Any, host: StaticHost, room: FakeCrispsRoom) -> Phone:
    phone = Phone(browser, playwright, "Pixel 7", host.base, "fake")
    room.attach(phone.page, 0)
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


def walk_crisps_fake(browser: Any, playwright: Any, found: Found) -> None:
    with StaticHost(pages()) as host:
        room = FakeCrispsRoom(decks=[DECK], first_starter=1)
        ana = fake_phone(browser, playwright, host, room)
        try:
            room.act(1, {"do": "play", "cards": "2"})
            expect(ana.loc('[data-test="trick"] li')).to_have_count(1)
            select(ana, "3")
            expect(ana.action("play")).to_be_enabled()
            audit(ana, "crisps", "follow", found)
        finally:
            ana.close()
        room = FakeCrispsRoom(decks=[ENDS] * 5, first_starter=0)
        ana = fake_phone(browser, playwright, host, room)
        try:
            room.act(0, {"do": "play", "cards": "112233445566"})
            expect(ana.loc('[data-test="reveal"]')).to_be_visible()
            audit(ana, "crisps", "roundend", found)
            for _ in range(5):  # CS-START: the one behind leads, and goes out at once (3-5 rounds)
                if room.game.over:
                    break
                room.act(room.game.due[0], {"do": "play", "cards": "112233445566"})
            expect(ana.loc('[data-test="winners"]')).to_be_visible()
            audit(ana, "crisps", "gameover", found)
        finally:
            ana.close()


@pytest.fixture(scope="module")
def audits(browser: Any, playwright: Any, tmp_path_factory: Any) -> Iterator[Found]:
    found: Found = {}
    walk_crisp(browser, playwright, tmp_path_factory.mktemp("axe-crisp"), found)
    walk_crisps_server(browser, playwright, tmp_path_factory.mktemp("axe-crisps"), found)
    walk_crisps_fake(browser, playwright, found)
    everything = [v for key in sorted(found) for v in found[key]]
    print(f"axe: {len(found)} screens audited, {len(everything)} violation(s) in all")
    yield found


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("game", "screen"), SCREENS, ids=[f"{g}-{s}" for g, s in SCREENS])
def test_no_serious_or_critical_axe_violation(
    audits: Found, game: str, screen: str, scheme: str
) -> None:
    """axe-core reports no serious or critical violation on this screen of this
    game in this colour scheme (label-content-name-mismatch on face-up cards included)."""
    assert (game, screen, scheme) in audits, f"{game} {screen} was not reached"
    bad = blocking(audits[game, screen, scheme])
    assert not bad, report(f"{game} {screen} ({scheme})", bad)


def test_every_screen_has_a_level_one_heading(audits: Found) -> None:
    """axe's page-has-heading-one on the tables: axe finds a level-one heading on
    every screen of either game."""
    assert len(HEADINGS) == len(SCREENS), sorted(HEADINGS)
    missing = [key for key, count in HEADINGS.items() if count]
    assert not missing, missing
