"""The table as players feel it, in a real browser (Debian's Chromium, headless, Python Playwright)
against a real ``crisp serve``: a whole game by taps on three phones in three languages,
whose move feed names every opponent move (seats, slots and public cards only, French elision);
the connection banner when the phone goes offline or the link dies silently (heartbeat), with
the moves disabled and a resync on return; a timeout told by a toast and a feed line, after the
low-time warning; the TV view (/r/CODE/tv) through a whole game with the independent leak
checker over every frame it received; and a look card that keeps its element (no second flip)
when another player taps Ready."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

import leakcheck as lc
from browser import (
    ARGS,
    CHROMIUM,
    FEED_RECORDER,
    NAME,
    TIMEOUT_MS,
    Frames,
    Phone,
    TapPlayer,
    assert_clean,
    card_name,
    play_until,
    practice,
    wait_until,
)
from playwright.sync_api import expect
from wsclient import ENGINE_TYPES

from crisp.engine.crisp.record import stream as record_stream

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)
MOVES = ("draw", "swap", "discard", "jack", "queen", "king", "take", "timeout", "crisp")
PUBLIC = ("swap", "discard", "jack", "queen", "king", "take", "timeout")


def seat_phones(srv: Any, phones: list[Phone], names: list[str]) -> str:
    """A room made over HTTP; each phone opens it with its seat token (the first one hosts)."""
    host = srv.create_room(names[0])
    tokens = [host["token"]] + [srv.join(host["code"], n)["token"] for n in names[1:]]
    for phone, token in zip(phones, tokens, strict=True):
        phone.page.goto("/")
        phone.page.evaluate(
            "([k, v]) => localStorage.setItem(k, v)", [f"crisp.token.{host['code']}", token]
        )
        phone.page.goto(f"/r/{host['code']}")
    for phone in phones:
        try:
            expect(phone.loc('[data-test="member"][data-connected="true"]')).to_have_count(
                len(names)
            )
        except AssertionError as err:
            reports = "\n".join(p.report() for p in phones)
            server_log = "".join(srv.output[-40:])
            raise AssertionError(f"{err}\n{reports}\nthe server's log:\n{server_log}") from None
    return str(host["code"])


def expected_words(msg: dict[str, Any], players: list[str], me: int, lang: str) -> list[str]:
    """What the feed line of an opponent's move must name: the mover, a Queen's target, and the
    public card (the one that landed on the pile)."""
    words = [players[msg["seat"]]]
    if msg["type"] == "queen" and msg["target"] != me:
        words.append(players[msg["target"]])
    if msg["type"] in PUBLIC and msg.get("card"):
        words.append(card_name(msg["card"], lang))
    return words


def feed_tells_every_move(phone: Phone, frames: Frames, seat: int) -> int:
    """Every opponent move this phone received has a feed line, in order, naming it; the feed
    names no card that was not public (R-SEE-PUBLIC: no drawn card, no look). Returns the
    number of moves checked."""
    lang = str(phone.page.evaluate("document.documentElement.lang"))
    lines: list[str] = phone.page.evaluate("window.__feed")
    players = next(m["players"] for m in frames.received if m["type"] == "game")
    at = 0
    checked = 0
    public: set[str] = set()
    for msg in frames.received:
        if msg.get("type") in PUBLIC and msg.get("card"):
            public.add(card_name(msg["card"], lang))
        if msg.get("type") not in MOVES or msg.get("seat") == seat:
            continue
        words = expected_words(msg, players, seat, lang)
        while at < len(lines) and not all(w in lines[at] for w in words):
            at += 1
        assert at < len(lines), f"{phone.label}: no feed line for {msg} (wanted {words})"
        at += 1
        checked += 1
    named = {m.group(0) for line in lines for m in NAME.finditer(line)}
    assert named <= public, f"{phone.label}'s feed names non-public cards {named - public}"
    return checked


# -- 1. a whole game, three phones, three languages ---------------------------------------------


def test_a_whole_game_by_taps_in_three_languages_tells_every_move(server: Any, phones: Any) -> None:
    """Three phones (English, French, Japanese) play a whole game by taps
    (Jacks, Queens, Kings, swaps, crisp calls, Next round) to R-GAME-END; each phone's move feed
    has a line for every opponent move, in order, naming the player, a Queen's target and the
    public card in the phone's language (French court letters V/D/R), and no other card; French
    lines elide ("d’Ana", never "de Ana"); Japanese sentences are not separated by spaces."""
    srv = server(11, clock_speed=2.5)
    made = [
        phones(srv, "Pixel 7", "ana", locale="en-GB"),
        phones(srv, "Galaxy S8", "emile", locale="fr-FR"),
        phones(srv, "iPhone 13", "yui", locale="ja-JP"),
    ]
    frames = []
    for phone in made:
        phone.page.add_init_script(FEED_RECORDER)
        frames.append(Frames(phone.page))
    seat_phones(srv, made, ["Ana", "Émile", "Yui"])
    made[0].page.select_option("#opt-limit", "50")
    for phone in made:
        expect(phone.loc("#opt-limit")).to_have_value("50")
    made[0].tap("#start")
    for phone in made:
        expect(phone.loc('[data-test="hand"]')).to_be_visible()
    # the in-game Scores menu (standings, settings) and the round's whole feed open and close
    yui = made[2]
    yui.tap('[data-test="scores"]')
    expect(yui.loc('[data-test="standings"] li')).to_have_count(3)
    expect(yui.loc("#four-colour")).to_be_visible()
    # the four-colour deck is Crisp's own setting (its module's onSetting): on, then off again
    yui.tap("#four-colour")
    expect(yui.loc("body")).to_have_class(re.compile(r"\bfour\b"))
    assert yui.page.evaluate("localStorage.getItem('crisp.fourcolour')") == "on"
    yui.tap("#four-colour")
    expect(yui.loc("body")).not_to_have_class(re.compile(r"\bfour\b"))
    yui.tap('[data-test="scores"]')
    expect(yui.loc('[data-test="results"]')).to_have_count(0)
    yui.tap('[data-test="feed-toggle"]')
    expect(yui.loc(".feed.open ol")).to_be_visible()
    yui.tap('[data-test="feed-toggle"]')
    expect(yui.loc(".feed.open")).to_have_count(0)
    players = [TapPlayer(p, crisp_after=2 + i) for i, p in enumerate(made)]
    shot = {"done": False}

    def over() -> bool:
        if not shot["done"] and made[1].loc('[data-test="feed"] li').count() >= 6:
            made[1].shot(f"feed-{made[1].slug}")
            made[2].shot(f"feed-{made[2].slug}")
            shot["done"] = True
        return made[0].loc('[data-test="winners"]').count() > 0

    play_until(players, over, timeout=400)
    for phone in made:
        expect(phone.loc('[data-test="winners"]')).to_be_visible()
        expect(phone.loc('[data-test="history"]')).to_be_visible()
        expect(phone.loc("header .codechip")).to_be_in_viewport(ratio=1)  # not cut at the left
        phone.shot(f"game-over-{phone.slug}")
    counts = {
        p.label: feed_tells_every_move(p, f, seat)
        for seat, (p, f) in enumerate(zip(made, frames, strict=True))
    }
    assert all(n > 10 for n in counts.values()), counts
    french: list[str] = made[1].page.evaluate("window.__feed")
    bad = [x for x in french if re.search(r"\b(de|que) [AEIOUYÉÈ]", x)]
    assert not bad, f"French lines without elision: {bad}"
    japanese: list[str] = made[2].page.evaluate("window.__feed")
    assert not [x for x in japanese if "。 " in x], japanese
    status = made[2].loc('[data-test="status"]')
    assert "。 " not in (status.text_content() or "")
    print(f"feed lines checked per phone: {counts}")
    # the score history outlives a reload: the view holds every finished round (R-CUMULATIVE)
    rows = made[0].loc('[data-test="history"] [role="row"]')
    before = [rows.nth(i).text_content() for i in range(rows.count())]
    assert len(before) >= 2, before  # a heading row and every round
    made[0].page.reload()
    expect(made[0].loc('[data-test="history"]')).to_be_visible()
    expect(rows).to_have_count(len(before))
    assert [rows.nth(i).text_content() for i in range(rows.count())] == before
    refusals = {p.label: p.refusals for p in made if p.refusals}
    assert not refusals, f"the client offered an action the server refused: {refusals}"
    assert_clean(made)


# -- 2. the connection ------------------------------------------------------------------------


def test_offline_shows_the_banner_disables_moves_and_resyncs(server: Any, phones: Any) -> None:
    """Offline: the browser goes offline: within 5 s a banner says so (with Retry now),
    the moves are disabled with the reason in words, a tap sends nothing; back online, the
    banner goes, the table is resynced and the moves work again."""
    srv = server(5, clock_speed=0.5)  # the look lasts 20 real seconds
    ana = phones(srv, "Pixel 7", "ana")
    practice(ana)
    expect(ana.action("ready")).to_be_enabled()
    sent: list[str] = []
    ana.page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(str(p))))
    ana.context.set_offline(True)
    banner = ana.loc('[data-test="conn"]')
    expect(banner).to_be_visible(timeout=5_000)
    expect(banner).to_have_attribute("role", "alert")
    expect(ana.loc('[data-test="retry"]')).to_be_visible()
    expect(ana.action("ready")).to_be_disabled()
    expect(ana.action("ready")).to_be_in_viewport(ratio=1)  # the banner pushes nothing down
    expect(ana.loc('[data-test="status"]')).to_be_in_viewport(ratio=1)
    expect(ana.loc('[data-test="offline-why"]')).to_be_visible()
    ana.shot(f"offline-{ana.slug}")
    ana.loc('[data-test="retry"]').tap()  # still offline: the banner stays
    expect(banner).to_be_visible()
    ana.context.set_offline(False)
    expect(banner).to_have_count(0, timeout=10_000)
    expect(ana.action("ready")).to_be_enabled()
    ana.tap(ana.action("ready"))
    expect(ana.loc('[data-test="feed"]')).to_contain_text("You are ready")
    assert any('"ready"' in x for x in sent), sent
    assert_clean([ana])


SEEN_BANNER = """() => {
  window.__connSeen = false;
  const note = () => {
    const banner = document.querySelector('[data-test="conn"]');
    if (banner && !window.__connSeen) window.__connText = banner.textContent;
    if (banner) window.__connSeen = true;
  };
  new MutationObserver(note).observe(document.body, { childList: true, subtree: true });
}"""


def test_a_silent_link_is_noticed_by_the_heartbeat(server: Any, phones: Any) -> None:
    """A silent link: the link stays open but nothing comes back (no pong): within about 5 s
    the banner says the connection is lost, the client reconnects by itself, and the banner
    goes once the new connection answers."""
    srv = server(5, clock_speed=0.5)
    ana = phones(srv, "Pixel 7", "ana")
    deaf = {"on": False}
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        """Only the first socket goes deaf: a reconnection that came before the test switched
        deafness off must not lose its welcome and state (a real link drops no single frame)."""
        first = not sockets
        sockets.append(ws)
        server_side = ws.connect_to_server()
        server_side.on_message(lambda m: None if deaf["on"] and first else ws.send(m))

    ana.page.route_web_socket(re.compile(r"/ws/"), route)
    practice(ana)
    # The banner may show for only a few hundred ms (the first reconnection comes ~0.3 s after
    # the loss and is heard at once): an observer in the page notes it, where polling could miss it.
    ana.page.evaluate(SEEN_BANNER)
    deaf["on"] = True
    ana.tap(ana.action("ready"))  # sent, but its answer never comes: the tap shows it is pending
    expect(ana.action("ready")).to_have_attribute("aria-busy", "true")
    expect(ana.action("ready")).to_have_class(re.compile(r"\bpending\b"))
    ana.page.wait_for_function("() => window.__connSeen === true", timeout=10_000)  # 5 s of silence
    # told first as no answer (the link is silent), then lost once the socket is dropped
    assert re.search("No answer|Connection lost", ana.page.evaluate("() => window.__connText"))
    deaf["on"] = False  # the next connection is heard again
    banner = ana.loc('[data-test="conn"]')
    expect(banner).to_have_count(0, timeout=15_000)
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    # resynced: the Ready the server did get is in the new state (the look may be over already)
    expect(ana.action("ready")).to_have_count(0)
    expect(ana.loc('[data-test="status"]')).not_to_have_text(re.compile("Memorise"))
    assert_clean([ana])


# -- 3. a timeout -------------------------------------------------------------------------------


def test_a_timeout_is_told_by_a_toast_and_the_feed(server: Any, phones: Any) -> None:
    """R-TIMER, R-TIMEOUT: with 30 s per draw, a player who does nothing sees
    the low-time warning, then both phones say whose time ran out (a toast and a feed line); the
    per-draw clock never shows more than the draw's time."""
    srv = server(7, clock_speed=3)
    pair = [phones(srv, "Pixel 7", "fay"), phones(srv, "Moto G4", "gus")]
    seat_phones(srv, pair, ["Fay", "Gus"])
    pair[0].page.select_option("#opt-timer", "30")
    expect(pair[1].loc("#opt-timer")).to_have_value("30")
    pair[0].tap("#start")
    for phone in pair:
        expect(phone.loc('[data-test="hand"]')).to_be_visible()
        phone.tap(phone.action("ready"))
    idle = wait_until(
        lambda: next((p for p in pair if p.action("draw").count()), None), what="a Draw button"
    )
    other = pair[1] if idle is pair[0] else pair[0]
    secs = idle.loc('[data-test="timer"] .secs')
    expect(secs).not_to_have_text("")
    assert int(secs.text_content() or "0") <= 30
    expect(idle.loc('[data-test="timer"].low')).to_be_visible()
    idle.shot(f"low-time-{idle.slug}")
    name = "Fay" if idle is pair[0] else "Gus"
    for phone, words in ((idle, "Your time ran out"), (other, f"{name}'s time ran out")):
        expect(phone.loc('[data-test="toast"]').filter(has_text=words)).to_be_visible()
        expect(phone.loc('[data-test="feed"]')).to_contain_text(words)
    other.shot(f"timeout-{other.slug}")
    assert_clean(pair)


# -- 4. the TV view ---------------------------------------------------------------------------


def test_tv_view_through_a_game_leaks_nothing(server: Any, phones: Any) -> None:
    """The TV view, docs/rules.md §7: /r/CODE/tv connects as a watcher (hello without a token)
    and shows the public table big, with the QR code to join; through a whole game (the host by
    taps, two bots), every frame it received passes the independent leak checker as a
    spectator's stream (and its states as spectator views), and its page never shows a face
    that was not public."""
    srv = server(21, clock_speed=4)
    ana = phones(srv, "Pixel 7", "ana")
    tv = phones(srv, "Desktop Chrome", "tv", viewport={"width": 1280, "height": 720})
    code = ana.create_room("Ana")
    tv_frames = Frames(tv.page)
    sent: list[str] = []
    tv.page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(str(p))))
    tv.page.goto(f"/r/{code}/tv")
    expect(tv.loc('img[data-test="qr"]')).to_be_visible()
    ana.page.select_option("#opt-limit", "50")
    for _ in range(3):
        ana.tap('[data-test="add-bot"]')
    expect(tv.loc('[data-test="member"]')).to_have_count(4)
    # a bot shows as a bot (no offline dot, no "make host"); removing asks first
    last = ana.loc('[data-test="member"]').last
    expect(last.locator(".tag.bot")).to_be_visible()
    expect(last.locator('[data-action="makehost"]')).to_have_count(0)
    last.locator('[data-action="kick-ask"]').tap()
    expect(ana.loc('[data-test="kick-yes"]')).to_be_visible()
    ana.shot(f"lobby-confirm-kick-{ana.slug}")
    ana.tap('[data-test="kick-yes"]')
    expect(tv.loc('[data-test="member"]')).to_have_count(3)
    tv.shot("tv-lobby")
    ana.tap("#start")
    expect(tv.loc('[data-test="seat"]')).to_have_count(3)
    seen_names: set[str] = set()
    host = TapPlayer(ana, crisp_after=3)

    def over() -> bool:
        seen_names.update(tv.card_names_in_page())
        if len(seen_names) == 3 and tv.loc('[data-test="feed"] li').count() >= 4:
            tv.shot("tv-table")
        return ana.loc('[data-test="winners"]').count() > 0

    play_until([host], over, timeout=400)
    expect(tv.loc('[data-test="results"]')).to_be_visible()
    tv.shot("tv-results")
    assert '"hello"' in sent[0] and "token" not in sent[0], sent[0]
    status, record = srv.request("GET", f"/api/rooms/{code}/record")
    assert status == 200, record
    stream = [
        {k: v for k, v in m.items() if k != "v"}
        for m in tv_frames.received
        if m.get("type") in ENGINE_TYPES
    ]
    assert stream == record_stream(copy.deepcopy(record), None)
    failures = lc.check_stream(record, stream, None)
    assert not failures, "\n".join(failures[:20])
    names = frozenset(record["players"])
    so_far: list[dict[str, Any]] = []
    for m in tv_frames.received:
        if m.get("type") in ENGINE_TYPES:
            so_far.append({k: v for k, v in m.items() if k != "v"})
        elif m.get("type") == "state" and m["view"] is not None:
            assert not lc.check_view(record, so_far, None, m["view"], use_record_last_action=False)
        elif m.get("type") != "state":
            assert not lc.card_codes(m, skip=names), m
    public = {card_name(m["card"]) for m in stream if m.get("card")} | {
        card_name(c) for m in stream if m["type"] == "reveal" for hand in m["hands"] for c in hand
    }
    assert seen_names <= public, seen_names - public
    assert_clean([ana, tv])


# -- 5. rendering updates what changed ----------------------------------------------------------


def test_a_look_card_keeps_its_element_when_another_taps_ready(server: Any, phones: Any) -> None:
    """The renderer patches what changed: during the start look, another
    player's Ready redraws the status, not the face-up cards (same elements: no second flip).
    Also: the sound toggle (on by default, a tap mutes, kept), and another player's lost
    connection on his seat."""
    srv = server(3, clock_speed=0.5)
    pair = [phones(srv, "Pixel 7", "ana"), phones(srv, "Pixel 7", "ben")]
    seat_phones(srv, pair, ["Ana", "Ben"])
    pair[0].tap("#start")
    ana, ben = pair
    expect(ana.my_card("left")).to_have_class(re.compile(r"\blook\b"))
    ana.page.evaluate("document.querySelector('[data-test=my-card][data-slot=left]').__mark = 1")
    ben.tap(ben.action("ready"))
    expect(ana.loc('[data-test="feed"]')).to_contain_text("Ben is ready")
    expect(ana.loc('[data-test="sound"]')).to_have_attribute("aria-pressed", "true")
    ana.tap('[data-test="sound"]')  # sound is on by default; one toggle, kept
    expect(ana.loc('[data-test="sound"]')).to_have_attribute("aria-pressed", "false")
    assert ana.page.evaluate("localStorage.getItem('crisp.sound')") == "off"
    ben.page.close()  # Ben's phone goes away: his seat says so on Ana's table
    seat = ana.loc('[data-test="seat"][data-seat="1"]')
    expect(seat).to_have_attribute("data-connected", "false")
    expect(seat.locator('[data-test="seat-offline"]')).to_have_text("offline")
    assert ana.page.evaluate(
        "document.querySelector('[data-test=my-card][data-slot=left]').__mark === 1"
    ), "the look card was drawn again"
    wait_until(lambda: ana.my_card("left").get_attribute("class"), what="the card")
    assert_clean(pair)


# -- 6. the strict Content-Security-Policy -------------------------------------------------------

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


def test_the_client_runs_under_the_strict_csp(server: Any, playwright: Any) -> None:
    """The page served with the CSP that every page is getting (no inline script or style, no
    remote resource): home, practice, the table through a few moves, the Scores menu and the
    full feed work, and the browser reports no violation. (The header is added by a Playwright
    route; Chromium's local-network checks, which a routed page would fail against 127.0.0.1,
    are off in this browser.)"""
    srv = server(9, clock_speed=3)
    args = [*ARGS, "--disable-features=LocalNetworkAccessChecks"]
    own = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
    try:
        ana = Phone(own, playwright, "Pixel 7", srv.base, "ana")
        run_under_csp(ana)
    finally:
        own.close()


def run_under_csp(ana: Phone) -> None:

    def with_csp(route: Any) -> None:
        response = route.fetch()
        headers = {**response.headers, "content-security-policy": CSP}
        route.fulfill(response=response, headers=headers)

    ana.page.route(re.compile(r"^[^?]*/(r/[A-Z]{5}(/tv)?)?$"), with_csp)
    ana.page.add_init_script(VIOLATIONS)
    practice(ana, bots=2)
    player = TapPlayer(ana)
    play_until([player], lambda: ana.loc('[data-test="feed"] li').count() >= 8, timeout=120)
    ana.tap('[data-test="scores"]')
    expect(ana.loc('[data-test="standings"]')).to_be_visible()
    ana.tap('[data-test="scores"]')
    ana.tap('[data-test="feed-toggle"]')
    expect(ana.loc(".feed.open ol")).to_be_visible()
    assert ana.page.evaluate("window.__csp") == []
    assert_clean([ana])
    # the policy was in force: an inline style attribute is refused (and reported)
    color = ana.page.evaluate("""() => {
        const box = document.createElement('div');
        box.innerHTML = '<span style="color: rgb(255, 0, 0)">x</span>';
        document.body.append(box);
        return getComputedStyle(box.firstChild).color;
    }""")
    assert color != "rgb(255, 0, 0)"
    ana.wait_for(lambda: ana.page.evaluate("window.__csp.length") == 1, what="the violation")
