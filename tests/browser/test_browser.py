"""The phone client in a real browser: Debian's Chromium, headless, driven by Python Playwright,
against a real ``crisp serve``. Emulated phones (one browser context each) create and join a room
by taps, play a whole round (Jack, Queen with a cancel, a crisp call in the window), reload
mid-game, switch languages; the tests also check that a look leaves no card face in the page or the
storage (R-SEE-LOOK, R-SEE-DRAWN), that no page logs a console error, and save screenshots for
review under tests/artifacts/screenshots/."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import (
    CHROMIUM,
    SLOTS,
    STORED_CODE,
    TIMEOUT_MS,
    Phone,
    assert_clean,
    card_name,
    deal,
    face,
    value,
    wait_until,
)
from paths import ROOT
from playwright.sync_api import expect
from seeded import fixed_deck, fixed_first_dealer
from serverproc import ServerProcess

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
PLAIN = set("A23456789T")  # cards that may be swapped into a hand (R-SPECIAL)
UP = re.compile(r"\bup\b")
DOWN = re.compile(r"\bdown\b")

expect.set_options(timeout=TIMEOUT_MS)


# -- the deal, derived from the seed ------------------------------------------------------------


def find_seed(players: int, wanted: Callable[[list[str]], bool]) -> int:
    """The first seed whose round-1 draws (the deck after the deal, top first) suit ``wanted``."""
    for seed in range(1, 200_000):
        if wanted(fixed_deck(seed, players)[3 * players :]):
            return seed
    raise AssertionError("no seed found")


def dealt(seed: int, players: int) -> tuple[int, list[list[str]], list[str]]:
    """(first seat, hands, draws): R-DEALER, R-DEAL, R-FIRST from the engine's seeded source."""
    dealer = fixed_first_dealer(seed, players)
    deck = fixed_deck(seed, players)
    return (dealer + 1) % players, deal(deck, players, dealer), deck[3 * players :]


# -- shared steps -------------------------------------------------------------------------------


def seat_by_api(server: ServerProcess, phones: list[Phone], names: list[str]) -> str:
    """A room made over HTTP (the first name hosts); each phone gets its seat token in storage
    (as the client keeps it) and opens the room link: the lobby shows everyone connected."""
    host = server.create_room(names[0])
    tokens = [host["token"]] + [server.join(host["code"], n)["token"] for n in names[1:]]
    code = host["code"]
    for phone, token in zip(phones, tokens, strict=True):
        phone.page.goto("/")
        phone.page.evaluate(
            "([k, v]) => localStorage.setItem(k, v)", [f"crisp.token.{code}", token]
        )
        phone.page.goto(f"/r/{code}")
    for phone in phones:
        expect(phone.loc('[data-test="member"][data-connected="true"]')).to_have_count(len(phones))
    return code


def start_game(host: Phone, phones: list[Phone]) -> dict[int, Phone]:
    host.tap("#start")
    for phone in phones:
        expect(phone.loc('[data-test="hand"]')).to_be_visible()
    return {phone.seat(): phone for phone in phones}


def all_ready(phones: list[Phone]) -> None:
    for phone in phones:
        phone.tap(phone.action("ready"))
    all_down(phones)


def all_down(phones: list[Phone]) -> None:
    """The look is over: every card of every phone is face down (R-LOOK-START, R-SEE-LOOK)."""
    for phone in phones:
        for slot in SLOTS:
            expect(phone.my_card(slot)).to_have_class(DOWN)
        expect(phone.loc("button.card.up")).to_have_count(0)


def draw(phone: Phone, by_seat: dict[int, Phone]) -> str:
    """The phone whose turn it is (its Draw button) draws; every other phone shows whose turn it
    is; returns the drawn card as ``[data-test=held]`` shows it."""
    seat = phone.seat()
    for other in by_seat.values():
        if other is not phone:
            expect(other.loc(f'[data-test="seat"][data-seat="{seat}"]')).to_have_class(
                re.compile(r"\bturn\b")
            )
            expect(other.action("draw")).to_have_count(0)
    phone.tap(phone.action("draw"))  # waits until it is enabled (R-WINDOW: 2 s after the turn)
    return phone.held()


def discard_plainly(phone: Phone, by_seat: dict[int, Phone]) -> list[str]:
    """Play a turn from what the page shows: a King is used (then draw again), anything else is
    discarded. Returns the cards drawn."""
    cards = [draw(phone, by_seat)]
    while cards[-1][0] == "K":
        phone.tap(phone.action("king"))
        cards.append(phone.held())
    phone.tap(phone.action("discard"))
    return cards


def see_flashes(flashes: list[tuple[Any, str]]) -> None:
    """Each card button shows the given face at some moment (the looks run at the same time on
    several phones, for 3 s each: watch them together)."""
    seen: set[int] = set()

    def check() -> bool:
        for i, (card, name) in enumerate(flashes):
            if i not in seen and (card.text_content() or "").strip().startswith(name):
                seen.add(i)
        return len(seen) == len(flashes)

    wait_until(check, what=f"the looks {[name for _, name in flashes]}")


def expect_pile(phones: list[Phone], code: str) -> None:
    for phone in phones:
        expect(phone.loc('[data-test="pile"] .card.up')).to_have_text(face(phone.name_of(code)))


def storage_has_no_card(phone: Phone) -> None:
    """R-SEE-LOOK / R-SEE-DRAWN: the phone keeps no card anywhere: its storage holds only the seat
    token (per room), the name, the language and the sound and deck settings, the guide's "done"
    and, per room, the lobby's commitment and the client seed this phone sent (crisp.fair.*: the
    shuffle's check, docs/fairness.md); no value but a token or those hex strings looks like a
    card code."""
    stored = phone.storage()
    assert stored["session"] == {}, stored
    for key, text in stored["local"].items():
        settings = ("crisp.name", "crisp.lang", "crisp.sound", "crisp.fourcolour")
        kept = key.startswith(("crisp.token.", "crisp.fair.", "crisp.guide."))
        assert key in settings or kept, (key, text)
        if key.startswith("crisp.fair."):
            for entry in json.loads(text):  # hex only: a commitment and a seed
                assert set(entry) <= {"commitment", "seed"}, (key, text)
                assert all(re.fullmatch(r"[0-9a-f]*", v or "") for v in entry.values()), text
        elif not key.startswith("crisp.token."):
            assert not STORED_CODE.search(text), (key, text)


def names_left(phone: Phone, allowed: set[str]) -> None:
    """Every card name in the page is an allowed one (a held card, the top of the pile, a look),
    in its markup and in what assistive technology reads out (accessible names, the feed)."""
    names = phone.card_names_in_page()
    assert names <= allowed, f"{phone.label} shows {sorted(names - allowed)}"
    heard = phone.card_names_heard()
    assert heard <= allowed, f"{phone.label} reads out {sorted(heard - allowed)}"


# -- 1. three phones, a whole round by taps ---------------------------------------------------


def test_three_phones_play_a_round_by_taps(server: Any, phones: Any) -> None:
    """Create by the home page, join by link and by code; lobby presence; host options read-only
    for the others (R-OPT-LIMIT, R-OPT-DISCARD); the start look (R-LOOK-START); a Jack
    (R-JACK: the middle card flashes up, then down); a Queen between two phones with a cancel
    (R-QUEEN, R-QUEEN-LOOK); a swap (R-SWAP) and a crisp call in the window (R-WINDOW, R-CRISP);
    the final turns (R-FINAL-TURNS); every phone shows the results (R-ROUND-SCORE,
    R-CALLER-BONUS)."""
    n = 3
    seed = find_seed(
        n, lambda d: d[0][0] == "J" and d[1][0] == "Q" and all(c[0] in PLAIN for c in d[2:5])
    )
    first, hands, _ = dealt(seed, n)
    srv = server(seed, clock_speed=1.5)  # the crisp window: 2 real seconds
    ana = phones(srv, "Pixel 7", "ana")
    ben = phones(srv, "iPhone 13", "ben")
    chloe = phones(srv, "Moto G4", "chloe")  # 360 x 640
    everyone = [ana, ben, chloe]

    # the host creates a room on the home page
    code = ana.create_room("Ana")
    assert re.fullmatch(r"[A-Z]{12}", code), code
    link = ana.loc('[data-test="link"]').inner_text().strip()
    assert link == f"{srv.base}/r/{code}"
    expect(ana.loc('img[data-test="qr"]')).to_be_visible()
    # The QR code loads like any image: wait for it (it fails the wait if it never decodes).
    ana.page.wait_for_function(
        "() => document.querySelector('img[data-test=qr]')?.naturalWidth > 0"
    )
    assert ana.page.evaluate("document.querySelector('img[data-test=qr]').naturalWidth") > 0

    # one friend opens the link; the other types the code on the home page
    ben.page.goto(link)
    ben.page.fill("#name", "Ben")
    ben.tap("#join")
    chloe.page.goto("/")
    chloe.page.fill("#code", " " + code.lower())
    chloe.tap("#join-code")
    expect(chloe.page).to_have_url(f"{srv.base}/r/{code}")
    expect(chloe.loc("#join")).to_be_visible()  # the join form, not the home page it replaces
    chloe.page.fill("#name", "Chloé")
    chloe.tap("#join")
    for phone in everyone:
        expect(phone.loc('[data-test="member"][data-connected="true"]')).to_have_count(3)
        expect(phone.loc('[data-test="member"] .name')).to_have_text(["Ana", "Ben", "Chloé"])

    # the host sets the options; the others see them, read-only. Two changes made faster than the
    # server answers (here in one tick) must both hold: each message carries every option.
    ana.page.select_option("#opt-timer", "30")
    ana.page.evaluate("""() => {
        const limit = document.querySelector("#opt-limit");
        limit.value = "50";
        limit.dispatchEvent(new Event("change", {bubbles: true}));
        const take = document.querySelector("#opt-take");
        take.checked = true;
        take.dispatchEvent(new Event("change", {bubbles: true}));
    }""")
    expect(ben.loc("#opt-timer")).to_have_value("30")
    ana.page.select_option("#opt-timer", "")  # back to no time per draw
    expect(ana.loc("#opt-limit")).to_be_enabled()
    for phone in everyone:
        expect(phone.loc("#opt-limit")).to_have_value("50")
        expect(phone.loc("#opt-take")).to_be_checked()
        expect(phone.loc("#opt-timer")).to_have_value("")
    for phone in (ben, chloe):
        for control in ("#opt-limit", "#opt-timer", "#opt-take"):
            expect(phone.loc(control)).to_be_disabled()
        expect(phone.loc("#start")).to_have_count(0)
    chloe.shot(f"lobby-{chloe.slug}")
    chloe.shot(f"lobby-{chloe.slug}-full", full_page=True)

    # the host starts; seats in join order (R-PLAYERS); the start look: left and right face up
    by_seat = start_game(ana, everyone)
    assert {phone.label: phone.seat() for phone in everyone} == {"ana": 0, "ben": 1, "chloe": 2}
    for seat, phone in by_seat.items():  # each taps Ready as soon as it has looked
        expect(phone.my_card("left")).to_have_text(face(card_name(hands[seat][0])))
        expect(phone.my_card("right")).to_have_text(face(card_name(hands[seat][2])))
        expect(phone.my_card("middle")).to_have_class(DOWN)
        expect(phone.loc('[data-test="seat"] button.card.up')).to_have_count(0)
        if phone is chloe:
            chloe.shot(f"look-{chloe.slug}")
        phone.tap(phone.action("ready"))
    all_down(everyone)

    # turn 1: a Jack -> the middle card flashes face up, then face down (R-JACK)
    jack = by_seat[first]
    held = draw(jack, by_seat)
    assert held[0] == "J", held
    expect(jack.action("jack")).to_be_visible()
    jack.shot(f"table-holding-{jack.slug}")
    jack.tap(jack.action("jack"))
    expect_pile(everyone, held)
    middle = jack.my_card("middle")
    expect(middle).to_have_class(UP)
    expect(middle).to_have_text(face(card_name(hands[first][1])))
    jack.shot(f"jack-look-{jack.slug}")
    expect(middle).to_have_class(DOWN, timeout=10_000)
    expect(middle).to_have_text("")

    # turn 2: a Queen between two phones, cancelled once, then confirmed (R-QUEEN, R-QUEEN-LOOK)
    queen_seat, target = (first + 1) % n, (first + 2) % n
    queen = by_seat[queen_seat]
    held = draw(queen, by_seat)
    assert held[0] == "Q", held
    assert queen.my_card("left").get_attribute("class").count("pickable") == 0  # type: ignore
    queen.tap(queen.action("queen"))
    expect(queen.my_card("left")).to_have_class(re.compile(r"\bpickable\b"))
    queen.tap(queen.my_card("left"))
    expect(queen.their_card(target, "right")).to_have_class(re.compile(r"\bpickable\b"))
    queen.tap(queen.action("cancel"))
    expect(queen.action("queen")).to_be_visible()
    expect(queen.loc(".card.chosen")).to_have_count(0)
    queen.tap(queen.action("queen"))
    queen.tap(queen.my_card("left"))
    queen.tap(queen.their_card(target, "right"))
    expect(queen.action("confirm")).to_be_visible()
    expect(queen.loc(".card.chosen")).to_have_count(2)
    queen.shot(f"queen-confirm-{queen.slug}")
    queen.tap(queen.action("confirm"))
    expect_pile(everyone, held)
    mine, theirs = hands[queen_seat][0], hands[target][2]
    hands[queen_seat][0], hands[target][2] = theirs, mine
    # each looks at the card that lands in its left or right slot (R-QUEEN-LOOK), then it is down
    see_flashes(
        [
            (queen.my_card("left"), card_name(theirs)),
            (by_seat[target].my_card("right"), card_name(mine)),
        ]
    )
    expect(queen.my_card("left")).to_have_class(DOWN, timeout=10_000)
    expect(by_seat[target].my_card("right")).to_have_class(DOWN, timeout=10_000)

    # turn 3: a plain card swapped into the middle, then crisp within the 3-s window (R-WINDOW)
    caller = by_seat[target]
    held = draw(caller, by_seat)
    assert held[0] in PLAIN, held
    expect(caller.my_card("middle")).to_have_class(re.compile(r"\bpickable\b"))
    caller.tap(caller.my_card("middle"))
    caller.tap(caller.action("crisp"), pulsing=True)
    expect_pile(everyone, hands[target][1])
    hands[target][1] = held
    for phone in everyone:
        expect(phone.loc("main.table.final")).to_be_visible()

    # the final turns: one each, in order, starting after the caller (R-FINAL-TURNS)
    for k in (1, 2):
        phone = by_seat[(target + k) % n]
        discard_plainly(phone, by_seat)

    # every phone: the results, with the revealed hands, the round scores and the totals
    raw = [sum(value(c) for c in hand) for hand in hands]
    lowest = all(raw[target] < raw[s] for s in range(n) if s != target)
    scores = [r + ((-5 if lowest else 5) if s == target else 0) for s, r in enumerate(raw)]
    for phone in everyone:
        results = phone.loc('[data-test="results"]')
        expect(results).to_be_visible()
        rows = results.locator("tbody tr")
        expect(rows).to_have_count(n)
        for seat in range(n):
            row = rows.nth(seat)
            expect(row.locator("th")).to_contain_text(["Ana", "Ben", "Chloé"][seat])
            names = [face(card_name(c)) for c in hands[seat]]
            expect(row.locator("td.hand span.face")).to_have_text(names)
            assert int(row.locator("td").nth(1).inner_text().split()[0]) == scores[seat]
            assert int(row.locator("td").nth(2).inner_text().strip()) == scores[seat]
    chloe.shot(f"results-{chloe.slug}")
    refusals = {p.label: p.refusals for p in everyone if p.refusals}
    assert not refusals, f"the client offered an action the server refused: {refusals}"
    assert_clean(everyone)


# -- 2. a look leaves no face in the page ------------------------------------------------------


def test_a_look_leaves_no_card_face_in_the_page(server: Any, phones: Any) -> None:
    """R-SEE-LOOK, R-SEE-DRAWN, R-LOOK-START, R-JACK: during the start look only your left and
    right faces are in the page; after Ready, and after a Jack's flash, the page holds no face but
    the top of the pile (and a card you hold drawn): not in the text, not in any attribute; the
    other phone never sees a drawn card; the storage holds no card."""
    n = 2
    seed = find_seed(n, lambda d: d[0][0] == "J")
    first, hands, _ = dealt(seed, n)
    srv = server(seed, clock_speed=1)  # the start look lasts 10 real seconds
    pair = [phones(srv, "Pixel 7", "dana"), phones(srv, "Galaxy S8", "eli", locale="ja-JP")]
    seat_by_api(srv, pair, ["Dana", "Eli"])
    by_seat = start_game(pair[0], pair)
    every_hand = {card_name(c) for hand in hands for c in hand}

    for seat, phone in by_seat.items():
        seen = {card_name(hands[seat][0]), card_name(hands[seat][2])}
        expect(phone.my_card("left")).to_have_text(face(card_name(hands[seat][0])))
        expect(phone.my_card("right")).to_have_text(face(card_name(hands[seat][2])))
        assert phone.card_names_in_page() == seen
        storage_has_no_card(phone)
    pair[1].shot(f"look-{pair[1].slug}")

    all_ready(pair)
    for phone in pair:
        html = phone.body_html()
        assert not [name for name in every_hand if name in html]
        names_left(phone, set())
        storage_has_no_card(phone)

    jack = by_seat[first]
    other = by_seat[1 - first]
    held = draw(jack, by_seat)
    assert held[0] == "J", held
    names_left(jack, {card_name(held)})
    # the other phone has the draw (the deck count went down) but not the card (R-SEE-DRAWN)
    expect(other.loc('[data-test="deck"] .count')).to_have_text(str(52 - 3 * n - 1))
    names_left(other, set())
    jack.tap(jack.action("jack"))
    middle = jack.my_card("middle")
    expect(middle).to_have_text(face(card_name(hands[first][1])))
    expect(middle).to_have_class(DOWN, timeout=10_000)
    for phone in pair:
        expect_pile([phone], held)
        html = phone.body_html()
        assert not [name for name in every_hand if name in html]
        names_left(phone, {card_name(held)})
        storage_has_no_card(phone)
    assert_clean(pair)


# -- 3. reload mid-game ------------------------------------------------------------------------


def test_reload_mid_game_keeps_the_seat_and_plays_on(server: Any, phones: Any) -> None:
    """A phone reloaded during its turn comes back to its seat (token in storage, a fresh
    state): same seat and opponents, its turn, its drawn card while held (R-SEE-DRAWN), and it
    can still act; the game goes on for everyone."""
    n = 2
    seed = find_seed(n, lambda d: all(c[0] in PLAIN for c in d[:3]))
    first, hands, draws = dealt(seed, n)
    srv = server(seed, clock_speed=2)
    pair = [phones(srv, "Pixel 7", "fay"), phones(srv, "iPhone 13", "gus", locale="fr-FR")]
    seat_by_api(srv, pair, ["Fay", "Gus"])
    by_seat = start_game(pair[0], pair)
    all_ready(pair)
    me = by_seat[first]
    other = by_seat[1 - first]
    before = me.opponents()
    expect(me.action("draw")).to_be_enabled()

    me.page.reload()  # on its turn, before drawing
    expect(me.loc('[data-test="hand"]')).to_be_visible()
    assert me.seat() == first
    assert me.opponents() == before
    for slot in SLOTS:
        expect(me.my_card(slot)).to_have_class(DOWN)
    held = draw(me, by_seat)
    assert held == draws[0]

    me.page.reload()  # holding the drawn card
    expect(me.loc('[data-test="held"].up')).to_have_text(face(me.name_of(held)))
    expect(me.loc('[data-test="conn"]')).to_have_count(0)
    me.shot(f"table-after-reload-{me.slug}")
    expect(me.my_card("left")).to_have_class(re.compile(r"\bpickable\b"))
    me.tap(me.my_card("left"))  # R-SWAP: the replaced card goes on the pile
    expect_pile(pair, hands[first][0])

    # the game goes on: the other phone plays, then the reloaded phone again
    assert draw(other, by_seat) == draws[1]
    other.shot(f"table-holding-{other.slug}")
    other.tap(other.action("discard"))
    drawn = discard_plainly(me, by_seat)
    expect_pile(pair, drawn[-1])
    expect(other.action("draw")).to_be_visible()

    # the round's feed outlives a reload, each move told again but without its card: a discard
    # was public when it landed only (R-SEE-PUBLIC); the Scores history is there too
    lines = other.loc('[data-test="feed"] li')
    told = lines.all_text_contents()
    swapped = other.name_of(hands[first][0])
    assert any(swapped in line for line in told), told
    other.page.reload()
    expect(other.loc('[data-test="hand"]')).to_be_visible()
    expect(lines).to_have_count(len(told))
    again = lines.all_text_contents()
    hidden = ("une carte", "a card")  # the card, told again without its face
    assert all(a == b or any(h in a for h in hidden) for a, b in zip(again, told, strict=True)), (
        again,
        told,
    )
    assert not any(swapped in line for line in again), again
    assert sum(a == b for a, b in zip(again, told, strict=True)) >= 3  # rounds, readies, draws
    assert_clean(pair)


# -- 4. languages ------------------------------------------------------------------------------


def catalogue(phone: Phone, lang: str) -> dict[str, str]:
    """A language's strings as the browser loads them: the shell's (crisp/static/i18n/<lang>.js),
    the games registry's (games/i18n/) and Crisp's (games/crisp/i18n/)."""
    out: dict[str, str] = {}
    for folder in ("i18n", "games/i18n", "games/crisp/i18n"):
        path = ROOT / "crisp" / "static" / folder / f"{lang}.js"
        assert path.exists(), f"{path} is missing"
        js = f"async () => (await import('/static/{folder}/{lang}.js')).default"
        out.update(phone.page.evaluate(js))
    return out


def test_language_switch_and_browser_locale(server: Any, phones: Any) -> None:
    """select#lang switches the page to French and Japanese (strings of i18n/fr.js, ja.js), the
    choice is kept across a reload, and a browser whose locale is fr-FR starts in French."""
    srv = server(1, clock_speed=2)
    hana = phones(srv, "Pixel 7", "hana", locale="en-US")
    ines = phones(srv, "Galaxy S8", "ines", locale="fr-FR")
    hana.page.goto("/")
    cats = {lang: catalogue(hana, lang) for lang in ("en", "fr", "ja")}
    keys = ("home.create", "home.name", "home.join", "app.tagline")
    for lang in ("fr", "ja"):
        assert all(cats[lang][k] != cats["en"][k] for k in keys), lang
    expect(hana.loc("#create")).to_have_text(cats["en"]["home.create"])

    for lang in ("fr", "ja"):
        hana.page.select_option("select#lang", lang)
        expect(hana.loc("html")).to_have_attribute("lang", lang)
        expect(hana.loc("#create")).to_have_text(cats[lang]["home.create"])
        expect(hana.loc("label[for=name]")).to_have_text(cats[lang]["home.name"])
        expect(hana.loc("#join-code")).to_have_text(cats[lang]["home.join"])
        expect(hana.loc(".tagline")).to_have_text(cats[lang]["app.tagline"])
    hana.shot(f"home-{hana.slug}")

    hana.page.reload()  # the choice is kept
    expect(hana.loc("#create")).to_have_text(cats["ja"]["home.create"])
    hana.page.fill("#name", "Hana")
    hana.tap("#create")  # and the lobby speaks Japanese too
    expect(hana.loc(".options h2")).to_have_text(cats["ja"]["lobby.options"])
    expect(hana.loc("select#lang")).to_have_value("ja")
    hana.shot(f"lobby-{hana.slug}", full_page=True)

    ines.page.goto("/")  # a French browser starts in French
    expect(ines.loc("html")).to_have_attribute("lang", "fr")
    expect(ines.loc("#create")).to_have_text(cats["fr"]["home.create"])
    expect(ines.loc("select#lang")).to_have_value("fr")
    ines.shot(f"home-{ines.slug}")
    wait_until(
        lambda: ines.page.evaluate("localStorage.getItem('crisp.lang')") == "fr",
        what="the language saved",
    )
    assert_clean([hana, ines])
