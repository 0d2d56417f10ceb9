"""The Crisps! phone table in a real browser (Debian's Chromium, Playwright).

With the real server (``crisp serve``, the adapter crisp/games/crisps/):
- the home page offers both games; a Crisps! room is created and joined by link; the lobby shows
  Crisps!'s options (the host's form, read-only for the guest) and the Crisps! rules pages;
- a whole game of two phones by taps only (CS-LEAD, CS-FOLLOW, CS-PASS, CS-DRAW, CS-OUT,
  CS-GAME-END): after each move the other phone's feed names it; the results name the winner
  and offer Play again; every WebSocket frame each page got passes the independent leak checker
  (tests/support/leakcheck_crisps.py, CS-SEE-*), and the page never shows nor names the opponent's
  hand;
- practice against a bot from the home page.

With a stand-in for the server (tests/support/crisps_fake.py: the real engine behind the page's
WebSocket, a stacked deck), for what needs a chosen hand or time:
- the selection names the combination from the server's legal list ("Pair of 3s", "Run 3–6",
  "Three 5s") and says why another is not playable (CS-COMBO, CS-CRISP-RUN, CS-FOLLOW);
- the draw choice names the face-up card; the feed says who took what, and the blind card only
  to the one who got it (CS-SEE-DRAW); timeouts and skips are told (CS-TIMEOUT, CS-OPT-SKIP);
- layouts at 320x658 and 844x390 without horizontal overflow, tap targets of 44 px and more,
  axe clean in light and dark, reduced motion honoured.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from axe import blocking, gradient_contrast, report, run
from browser import Phone, assert_clean, wait_until
from crisp_cmd import crisp
from crisps_fake import CODE, DECK, HAND0, HAND1, FakeCrispsRoom
from leakcheck_crisps import check_stream, strip_server
from playwright.sync_api import expect
from wsclient import messages_of

from crisp.engine.crisps.options import CrispsOptions

# A stacked deck (CS-DEAL: 12 cards each, 4 set aside, 1 face up, the pile top first): seat 0
# holds 1334555689XX, seat 1 111222234666; 7999 are set aside, 8 is face up, the pile 3445777…
VIEWPORTS = {
    "320x658": {"width": 320, "height": 658},
    "844x390": {"width": 844, "height": 390},
    "320x568": {"width": 320, "height": 568},
    "1280x800": {"width": 1280, "height": 800},
}


def fake_phone(
    phones: Any,
    host: Any,
    room: FakeCrispsRoom,
    seat: int,
    label: str,
    viewport: str = "320x658",
    **options: Any,
) -> Phone:
    phone: Phone = phones(
        host, "Pixel 7", label, viewport=VIEWPORTS[viewport], device_scale_factor=1, **options
    )
    room.attach(phone.page, seat)
    phone.page.goto(f"/r/{CODE}")
    expect(phone.loc('[data-test="hand"]')).to_be_visible()
    return phone


def cards_of(phone: Phone, rank: str) -> Any:
    return phone.loc(f'[data-test="my-card"][data-rank="{rank}"]')


def select(phone: Phone, cards: str) -> None:
    """Tap the cards ``cards`` (ranks) of the hand, after clearing any selection; each tap is
    seen to take (a tap's click comes after the touch)."""
    if phone.action("cs-clear").count():
        phone.tap(phone.action("cs-clear"))
        expect(phone.loc('[data-test="my-card"][aria-pressed="true"]')).to_have_count(0)
    used: dict[str, int] = {}
    for c in cards:
        card = cards_of(phone, c).nth(used.get(c, 0))
        phone.tap(card)
        expect(card).to_have_attribute("aria-pressed", "true")
        used[c] = used.get(c, 0) + 1


def last_line(phone: Phone) -> int:
    """The number of the feed's last line (the feed keeps its last 200 lines)."""
    keys = phone.loc('[data-test="feed"] li').evaluate_all("els => els.map(e => e.dataset.key)")
    return int(keys[-1][1:]) if keys else 0


def lines_since(phone: Phone, number: int) -> list[str]:
    found = phone.loc('[data-test="feed"] li').evaluate_all(
        "els => els.map(e => [Number(e.dataset.key.slice(1)), e.textContent.trim()])"
    )
    return [text for n, text in found if n > number]


def feed(phone: Phone) -> list[str]:
    return [x.strip() for x in phone.loc('[data-test="feed"] li').all_inner_texts()]


def hand_in_page(phone: Phone) -> str:
    return "".join(
        phone.loc('[data-test="my-card"]').evaluate_all("els => els.map(e => e.dataset.rank)")
    )


def faces_outside(phone: Phone) -> list[str]:
    """Card faces in the page outside the places a seat may see cards: its hand, the trick, the
    face-up card, the round-end reveal (CS-SEE-*), and a play flying to the trick (a played card
    is the table's: it flies face up, .fly, on its way to the trick)."""
    return list(
        phone.page.evaluate("""() => [...document.querySelectorAll('[data-card]')]
      .filter((el) => !el.closest('[data-test="hand"], [data-test="trick"], [data-test="faceup"], '
        + '[data-test="reveal"], .cs-card.up.fly'))
      .map((el) => el.outerHTML.slice(0, 80))""")
    )


def check_opponent_hidden(phone: Phone, opponent: str) -> None:
    """The memory rule in the page: the opponent's hand is a count, never cards, in the DOM and
    in the accessibility tree."""
    assert not faces_outside(phone), faces_outside(phone)
    box = phone.loc('[data-test="opp-hand"]')
    assert box.locator("[data-card]").count() == 0
    label = box.get_attribute("aria-label") or ""
    assert re.fullmatch(rf"{re.escape(opponent)}: \d+ cards", label), label
    tree = phone.loc('[data-test="seat"]').aria_snapshot().replace(label, "")
    tree = re.sub(r"\d of 3 points", "", tree)
    assert not re.search(r"\b[1-9X]\b|Crisp", tree), tree


# -- the stand-in server: chosen hands -----------------------------------------------------------


def test_the_selection_names_the_combination_or_says_why_not(phones: Any, host: Any) -> None:
    """CS-COMBO, CS-RUN, CS-CRISP-RUN, CS-FOLLOW: the Play button names the selected play from
    the server's legal list; an unplayable selection says why in words."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana = fake_phone(phones, host, room, 0, "ana")
    assert hand_in_page(ana) == HAND0  # CS-SEE-HAND: the hand in rank order
    expect(ana.loc('[data-test="status"]')).to_have_text("Your lead: play any combination.")
    for cards, name in (
        ("33", "Pair of 3s"),
        ("3456", "Run 3–6"),
        ("555", "Three 5s"),
        ("X", "Single Crisp"),
        ("XX", "Pair of Crisps"),
        ("1", "Single 1"),
    ):
        select(ana, cards)
        expect(ana.action("play")).to_have_text(f"Play: {name}")
        expect(ana.action("play")).to_be_enabled()
        expect(ana.loc('[data-test="selection"]')).to_have_text(name)
    select(ana, "3345")
    expect(ana.action("play")).to_be_disabled()
    expect(ana.loc('[data-test="selection"]')).to_contain_text("make no combination")
    select(ana, "89X")
    expect(ana.loc('[data-test="selection"]')).to_contain_text("a Crisp cannot be part of a run")
    expect(ana.action("pass")).to_have_count(0)  # CS-LEAD: the leader may not pass
    select(ana, "1")
    ana.tap(ana.action("play"))
    expect(ana.loc('[data-test="trick"]')).to_contain_text("Single 1")
    room.act(1, {"do": "play", "cards": "2"})
    expect(ana.loc('[data-test="status"]')).to_have_text(
        "Your turn: play on a 2 from Ben, or pass."
    )
    expect(ana.loc('[data-test="feed"] li').last).to_have_text("Ben played a 2.")
    select(ana, "33")
    expect(ana.loc('[data-test="selection"]')).to_have_text("Pair of 3s cannot follow a 2.")
    expect(ana.action("play")).to_be_disabled()
    select(ana, "3")
    expect(ana.action("play")).to_have_text("Play: Single 3")
    check_opponent_hidden(ana, "Ben")
    ana.shot("crisps-selection-320x658")
    assert_clean([ana])


def test_the_draw_choice_and_the_feed_name_only_what_each_may_see(phones: Any, host: Any) -> None:
    """CS-DRAW, CS-REFILL, CS-SEE-DRAW: the winner's choice names the face-up card; the feed tells
    both what was taken, the blind card only to the one who got it."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0)
    ana = fake_phone(phones, host, room, 0, "ana")
    ben = fake_phone(phones, host, room, 1, "ben")
    select(ana, "1")
    ana.tap(ana.action("play"))
    expect(ben.loc('[data-test="feed"] li').last).to_have_text("Ana played a 1.")
    ben.tap(ben.action("pass"))
    expect(ana.loc('[data-test="feed"] li').last).to_have_text("Ben passed.")
    expect(ana.loc('[data-test="status"]')).to_have_text(
        "You won the trick: take the face-up 8 or the blind card."
    )
    expect(ana.loc('[data-test="faceup"]')).to_have_attribute("aria-label", "Face-up card: 8")
    expect(ana.loc('[data-test="pile"]')).to_have_attribute("aria-label", "Draw pile: 11 cards")
    expect(ben.action("take-faceup")).to_have_count(0)
    ana.tap(ana.action("take-faceup"))
    # Ana took the 8; Ben got the pile's top card, the 3, seen by Ben only; the 4 is turned up
    expect(ana.loc('[data-test="feed"] li').last).to_have_text(
        "You took the face-up 8; Ben got the blind card. New face-up card: 4."
    )
    expect(ben.loc('[data-test="feed"] li').last).to_have_text(
        "Ana took the face-up 8; you got the blind card: 3. New face-up card: 4."
    )
    assert hand_in_page(ana) == "3345556889XX"  # in rank order, the 8 among them (CS-SEE-HAND)
    assert hand_in_page(ben) == "1112222334666"
    expect(ana.loc('[data-test="faceup"]')).to_have_attribute("aria-label", "Face-up card: 4")
    expect(ana.loc('[data-test="opp-hand"]')).to_have_attribute("aria-label", "Ben: 13 cards")
    expect(ana.loc('[data-test="status"]')).to_have_text("Your lead: play any combination.")
    for phone, other in ((ana, "Ben"), (ben, "Ana")):
        check_opponent_hidden(phone, other)
    ana.shot("crisps-after-draw-320x658")
    assert_clean([ana, ben])


def test_timeouts_and_skips_are_told(phones: Any, host: Any) -> None:
    """CS-TIMER, CS-TIMEOUT, CS-OPT-SKIP: the per-decision clock runs; a timeout is told on both
    phones ("Ben's time ran out"), a skipped turn too."""
    room = FakeCrispsRoom(
        decks=[DECK], first_starter=0, options=CrispsOptions(timer=30, auto_skip=True)
    )
    ana = fake_phone(phones, host, room, 0, "ana")
    expect(ana.loc('[data-test="timer"] .secs')).to_have_text(re.compile(r"^(30|29|28)$"))
    room.time_out()  # Ana, to lead, times out: her lowest card, the 1, is played (CS-TIMEOUT)
    expect(ana.loc('[data-test="feed"] li').last).to_have_text("Your time ran out. You played a 1.")
    expect(ana.loc('[data-test="toast"]')).to_contain_text("Your time ran out.")
    room.time_out()  # Ben, to follow, passes
    expect(ana.loc('[data-test="feed"] li').last).to_have_text("Ben's time ran out. Ben passed.")
    room.time_out()  # Ana, to choose her draw, takes the face-up card
    expect(ana.loc('[data-test="feed"] li').last).to_contain_text(
        "Your time ran out. You took the face-up 8"
    )
    # a pair of Crisps may be answered by a special (Ben holds 111): no skip, Ben's turn
    select(ana, "XX")
    ana.tap(ana.action("play"))
    expect(ana.loc('[data-test="feed"] li').last).to_have_text("You played a pair of Crisps.")
    expect(ana.loc('[data-test="status"]')).to_have_text(
        "Ben is answering a pair of Crisps from you."
    )
    assert_clean([ana])


def test_a_skipped_turn_is_told(phones: Any, host: Any) -> None:
    """CS-OPT-SKIP: nothing unplayed can follow four Crisps: the other turn is skipped."""
    deck = "12345678XXXX" + "111222333444" + "5556" + "6" + "67778889999"
    room = FakeCrispsRoom(decks=[deck], first_starter=0, options=CrispsOptions(auto_skip=True))
    ana = fake_phone(phones, host, room, 0, "ana")
    ben = fake_phone(phones, host, room, 1, "ben")
    select(ana, "XXXX")
    expect(ana.action("play")).to_have_text("Play: Four Crisps")
    ana.tap(ana.action("play"))
    expect(ben.loc('[data-test="feed"] li').nth(-2)).to_have_text("Ana played four Crisps.")
    expect(ben.loc('[data-test="feed"] li').last).to_have_text("Your turn was skipped.")
    expect(ana.loc('[data-test="feed"] li').last).to_have_text("Ben's turn was skipped.")
    expect(ana.loc('[data-test="trick"]')).to_have_text(
        "Ben's turn was skipped: the trick is over."
    )
    assert_clean([ana, ben])


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", ["320x658", "844x390", "320x568", "1280x800"])
def test_layout_targets_contrast_and_axe(
    phones: Any, host: Any, viewport: str, scheme: str
) -> None:
    """No horizontal overflow, every card and move a tap target of 44 px or more, axe with no
    serious or critical violation, text over the felt at 4.5:1, on a small phone and in
    landscape, light and dark; reduced motion: nothing flies."""
    room = FakeCrispsRoom(decks=[DECK], first_starter=0, options=CrispsOptions(timer=45))
    ana = fake_phone(
        phones, host, room, 0, "ana", viewport, color_scheme=scheme, reduced_motion="reduce"
    )
    select(ana, "1")
    ana.tap(ana.action("play"))
    room.act(1, {"do": "play", "cards": "2"})
    expect(ana.loc('[data-test="trick"] li')).to_have_count(2)
    select(ana, "33")
    problems = ana.page.evaluate("""() => {
      const out = [];
      const doc = document.documentElement;
      const vw = window.innerWidth;
      if (doc.scrollWidth > vw + 1) out.push(`overflow ${doc.scrollWidth} > ${vw}`);
      const targets = '[data-test="hand"] button, [data-test="actions"] button';
      for (const el of document.querySelectorAll(targets)) {
        const name = el.dataset.action || el.dataset.slot;
        const r = el.getBoundingClientRect();
        if (r.width < 44 || r.height < 44) out.push(`${name}: ${r.width}x${r.height}`);
        if (r.right > vw + 1 || r.left < -1) out.push(`${name} off screen`);
      }
      if (document.querySelector('.fly')) out.push('a card flies under reduced motion');
      return out;
    }""")
    assert not problems, problems
    ana.shot(f"crisps-table-{viewport}-{scheme}", full_page=True)
    found, undecided = run(ana.page)
    assert not blocking(found), report(f"crisps table {viewport} {scheme}", found)
    low = [t for t in gradient_contrast(ana.page, undecided) if t["worst"] < t["needed"]]
    assert not low, low
    assert_clean([ana])


def test_the_round_end_reveals_the_set_aside_cards_and_the_losers_hand(
    phones: Any, host: Any
) -> None:
    """CS-OUT, CS-POINT, CS-SEE-END, CS-START: a play that empties the hand ends the round; both
    phones see the set-aside cards and the loser's hand; the next round is dealt at once, its
    starter the player with fewer points; the points race shows 1 of 3."""
    first = "112233445566" * 2 + "789X" + "7" + "77888999XXX"
    room = FakeCrispsRoom(decks=[first, DECK], first_starter=0)
    ana = fake_phone(phones, host, room, 0, "ana")
    ben = fake_phone(phones, host, room, 1, "ben", "844x390")
    select(ana, "112233445566")
    expect(ana.action("play")).to_have_text("Play: Pair run 1–6")
    ana.tap(ana.action("play"))
    said = {
        ana: "Round 1: you emptied your hand (1–0).",
        ben: "Round 1: Ana emptied their hand (1–0).",
    }
    for phone in (ana, ben):  # Ana's own phone tells her in the second person
        reveal = phone.loc('[data-test="reveal"]')
        expect(reveal).to_contain_text(said[phone])
        labels = reveal.locator('[role="img"]').evaluate_all("els => els.map(e => e.ariaLabel)")
        assert labels == ["7", "8", "9", "Crisp", *"112233445566"], labels
    # Ben's own hand, told to Ben in the second person
    expect(ben.loc('[data-test="feed"]')).to_contain_text(
        "Ana won round 1 (1–0). Set aside: 7 8 9 Crisp. You still held: 1 1 2 2 3 3 4 4 5 5 6 6."
    )
    expect(ben.loc('[data-test="feed"] li').last).to_have_text("Round 2: you start.")
    expect(ana.loc('[data-test="status"]')).to_have_text("Ben is leading.")
    expect(ana.loc(".me-line .cs-pips")).to_have_attribute("aria-label", "1 of 3 points")
    assert hand_in_page(ben) == HAND1  # round 2: Ben, seat 1, holds positions 13-24 (CS-DEAL)
    ana.shot("crisps-round-end-320x658")
    ben.shot("crisps-round-end-844x390")
    ana.tap('[data-test="reveal-close"]')
    expect(ana.loc('[data-test="reveal"]')).to_have_count(0)
    assert_clean([ana, ben])


def test_french_and_japanese_tables(phones: Any, host: Any) -> None:
    """The table and its feed in French (elision before a vowel) and in Japanese."""
    room = FakeCrispsRoom(names=("Émile", "Ana"), decks=[DECK], first_starter=1)
    phone: Phone = phones(
        host, "Pixel 7", "fr", viewport=VIEWPORTS["320x658"], device_scale_factor=1, locale="fr-FR"
    )
    room.attach(phone.page, 0)
    phone.page.add_init_script("localStorage.setItem('crisp.lang', 'fr')")
    phone.page.goto(f"/r/{CODE}")
    expect(phone.loc('[data-test="status"]')).to_have_text("Ana ouvre le pli.")
    room.act(1, {"do": "play", "cards": "22"})
    expect(phone.loc('[data-test="status"]')).to_have_text(
        "À toi\u00a0: joue sur la combinaison d’Ana (une paire de 2), ou passe."
    )
    select(phone, "33")
    expect(phone.action("play")).to_have_text("Jouer\u00a0: Paire de 3")
    phone.shot("crisps-table-fr-320x658")
    phone.tap('[data-test="scores"]')  # a phone's table header has no room: the ≡ menu has it
    phone.page.select_option("#lang-menu", "ja")
    phone.tap('[data-test="scores"]')
    expect(phone.action("play")).to_have_text("出す：3のペア")
    expect(phone.loc('[data-test="status"]')).to_have_text(
        "あなたの番です。Anaさんの2のペアに出すか、パスしてください。"
    )
    phone.shot("crisps-table-ja-320x658")
    assert_clean([phone])


def test_one_phone_against_a_bot(phones: Any, host: Any) -> None:
    """A phone against a (random legal) bot seat: every bot move is named in the feed, the
    game goes on by taps until someone wins a round."""
    room = FakeCrispsRoom(seed=5, bot=1, options=CrispsOptions(crisp_runs=True))
    ana = fake_phone(phones, host, room, 0, "ana")
    expect(ana.loc('[data-test="seat"] .tag.bot')).to_have_count(1)
    for turn in range(200):
        if ana.page.locator('[data-test="feed"] li', has_text="won round").count():
            break
        wait_until(lambda: due_phone([ana]), timeout=20, what="Ana's turn")
        take_turn(ana, turn)
    lines = feed(ana)
    assert any(x.startswith("Ben played") for x in lines), lines
    assert any("won round 1" in x for x in lines), lines
    bot_moves = [
        m for m in room.sent[0] if m["type"] in ("play", "pass", "draw") and m["seat"] == 1
    ]
    told = [x for x in lines if x.startswith("Ben ") or "; Ben got" in x]
    assert bot_moves and len(told) >= min(len(bot_moves), 150) - 5, (len(bot_moves), len(told))
    check_opponent_hidden(ana, "Ben")
    assert_clean([ana])


# -- the real server -----------------------------------------------------------------------------


def frames(phone: Phone) -> list[dict[str, Any]]:
    return phone.ws_frames  # type: ignore[attr-defined,no-any-return]


def record_frames(phone: Phone) -> None:
    phone.ws_frames = []  # type: ignore[attr-defined]

    def on_ws(ws: Any) -> None:
        ws.on("framereceived", lambda payload: phone.ws_frames.extend(messages_of(payload)))  # type: ignore[attr-defined]

    phone.page.on("websocket", on_ws)


def snapshot(phone: Phone, since: int) -> dict[str, Any] | None:
    """The first ``state`` message this phone got after its ``since`` first frames."""
    return next((m for m in frames(phone)[since:] if m.get("type") == "state"), None)


def send(phone: Phone, action: str) -> None:
    """Tap a move's button and see it taken (busy, or gone, or already told in the feed: a tap's
    click comes after the touch, and a bot may answer at once)."""
    before = last_line(phone)
    phone.tap(phone.action(action))
    phone.wait_for(
        lambda: last_line(phone) > before or gone_or_busy(phone, action), f"{action} taken"
    )


def gone_or_busy(phone: Phone, action: str) -> bool:
    """The move's button is gone or disabled, read in one evaluation (a button counted, then
    re-rendered away before a second look, would make that look wait for it)."""
    return bool(
        phone.page.evaluate(
            '(a) => { const b = document.querySelector(`[data-action="${a}"]`);'
            " return !b || b.disabled; }",
            action,
        )
    )


def take_turn(phone: Phone, policy: int) -> str:
    """One decision of this phone, by taps: the draw (face-up or blind), a single that follows
    (tried card by card, as the Play button allows), else a pass; a lead plays the lowest card
    (or, once in a while, a pair). Returns what it did."""
    if not is_due(phone):
        return ""  # the table moved on meanwhile: look again
    if phone.action("take-faceup").count() or phone.action("take-blind").count():
        which = (
            "take-faceup"
            if policy % 2 == 0 and phone.action("take-faceup").count()
            else "take-blind"
        )
        send(phone, which)
        return which
    ranks = hand_in_page(phone)
    status = phone.loc('[data-test="status"]').inner_text()
    if status.startswith("Your lead"):
        pair = next((r for r in ranks if ranks.count(r) == 2), None)
        select(phone, pair * 2 if pair and policy % 3 == 0 else ranks[0])
        expect(phone.action("play")).to_be_enabled()
        send(phone, "play")
        return "lead"
    for r in dict.fromkeys(ranks) if phone.action("play").count() else ():
        select(phone, r)
        if phone.action("play").is_enabled():
            send(phone, "play")
            return "follow"
    send(phone, "pass")
    return "pass"


DUE = '[data-action="play"], [data-action="pass"], [data-action^="take-"]'


YOURS = ("Your lead", "Your turn", "You won the trick")


def is_due(p: Phone) -> bool:
    """This phone's decision is due: its moves are offered, its status says so, and no tap is
    on its way (read at once from the page, so that all three are of the same render)."""
    return bool(
        p.page.evaluate(
            """([due, yours]) => {
      const status = document.querySelector('[data-test="status"]')?.textContent ?? "";
      return document.querySelectorAll(due).length > 0 && yours.some((y) => status.startsWith(y))
        && !document.querySelector('[data-test="actions"] [aria-busy="true"]');
    }""",
            [DUE, list(YOURS)],
        )
    )


def due_phone(players: list[Phone]) -> Phone | None:
    """The phone whose decision is due."""
    return next((p for p in players if is_due(p)), None)


BLIND_TOLD = re.compile(r"got the blind card: [1-9X]\b|got the blind card: Crisp")


def told_move(lines: list[str], expected: str, did: str) -> bool:
    """The move ``expected`` among ``lines`` (and, for a face-up take, the blind card told)."""
    told = " ".join(lines)
    return expected in told and (did != "take-faceup" or BLIND_TOLD.search(told) is not None)


def test_two_phones_play_a_whole_game_by_taps(server: Any, phones: Any) -> None:
    """The home page offers both games; a Crisps! room by link; the host's options; a whole game
    by taps; the feed names every opponent move; results and Play again; the leak checker on
    every frame; the opponent's hand never in the page."""
    srv = server(seed=11, clock_speed=1.0)
    ana = phones(srv, "Pixel 7", "ana", viewport=VIEWPORTS["320x658"], device_scale_factor=1)
    ben = phones(srv, "Pixel 7", "ben", viewport=VIEWPORTS["844x390"], device_scale_factor=1)
    for p in (ana, ben):
        record_frames(p)
    ana.page.goto("/")
    expect(ana.loc('[data-test="game-crisp"]')).to_be_checked()
    ana.page.locator('[data-test="game-crisps"]').check()
    expect(ana.loc('[data-test="rules"]')).to_have_attribute(
        "href", "/static/games/crisps/rules/en.html"
    )
    ana.page.fill("#name", "Ana")
    ana.tap("#create")
    expect(ana.loc('[data-test="lobby-game"]')).to_have_text("Crisps!")
    code = ana.loc('[data-test="room-code"]').inner_text().replace("-", "")
    expect(ana.loc("#opt-auto_skip")).to_be_enabled()
    ana.page.locator("#opt-auto_skip").check()
    ben.page.goto(f"/r/{code}")
    ben.page.fill("#name", "Ben")
    ben.tap("#join")
    expect(ben.loc("#opt-auto_skip")).to_be_checked()
    expect(ben.loc("#opt-auto_skip")).to_be_disabled()
    expect(ben.loc('[data-test="rules"]')).to_have_attribute(
        "href", "/static/games/crisps/rules/en.html"
    )
    status, _ = srv.request("GET", "/static/games/crisps/rules/en.html")
    assert status == 200
    ana.tap("#start")
    for p in (ana, ben):
        expect(p.loc('[data-test="hand"]')).to_be_visible()
    names = {id(ana): "Ana", id(ben): "Ben"}
    moves = 0
    over = '[data-test="winners"]'
    while not ana.loc(over).count():
        phone = wait_until(
            lambda: due_phone([ana, ben]) or (ana.loc(over).count() and ana),
            timeout=20,
            what="a phone whose decision is due",
        )
        if ana.loc(over).count():
            break
        other = ben if phone is ana else ana
        before = last_line(other)
        did = take_turn(phone, moves)
        if not did:
            continue
        moves += 1
        who = names[id(phone)]
        expected = {
            "lead": f"{who} played",
            "follow": f"{who} played",
            "pass": f"{who} passed",
            "take-faceup": f"{who} took the face-up",
            "take-blind": f"{who} took the blind card",
        }[did]
        # The other phone's feed names the move (its own previous move may land after `before`
        # was read, so wait for the line rather than take the first new one); a face-up take
        # also tells the taker's blind card.
        wait_until(
            lambda o=other, b=before, e=expected, d=did: told_move(lines_since(o, b), e, d),
            what=f"{expected!r} in {names[id(other)]}'s feed after {did}",
        )
        if moves % 10 == 0:
            check_opponent_hidden(phone, names[id(other)])
        if moves == 15:  # a reconnect: the snapshot (the view) rebuilds Ben's table
            seen = len(frames(ben))
            ben.page.reload()
            state = ben.wait_for(lambda n=seen: snapshot(ben, n), what="Ben's snapshot")
            view = state["view"]
            wait_until(lambda h=view["hand"]: hand_in_page(ben) == h, what="Ben's hand (the view)")
            expect(ben.loc('[data-test="opp-hand"]')).to_have_attribute(
                "aria-label", f"Ana: {view['hands'][0]} cards"
            )
    for p in (ana, ben):  # the winner's phone says it in the second person
        expect(p.loc('[data-test="winners"]')).to_contain_text(re.compile(r"\w wins!|You win!"))
        expect(p.loc('[data-test="history"]')).to_be_visible()
    said = {p.loc('[data-test="winners"]').inner_text().strip() for p in (ana, ben)}
    assert "You win!" in said and any(x.endswith(" wins!") for x in said), said
    ana.shot("crisps-results-320x658")
    ben.shot("crisps-results-844x390")
    expect(ana.action("rematch")).to_be_visible()
    status, record = srv.request("GET", f"/api/rooms/{code}/record")
    assert status == 200, record
    for seat, p in ((0, ana), (1, ben)):
        problems = check_stream(record, seat, strip_server(frames(p)))
        assert not problems, problems[:5]
    ana.tap(ana.action("rematch"))
    expect(ana.loc('[data-test="lobby-game"]')).to_have_text("Crisps!")
    assert_clean([ana, ben])


def test_practice_against_the_computer(server: Any, phones: Any, tmp_path: Path) -> None:
    """Practice from the home page: Crisps!, a bot of the game's levels, one bot seat; a whole
    game against it by taps, every bot move named in the feed as it comes, the results; the
    game record downloaded from the results' menu replays (`crisp replay`) to that result."""
    srv = server(seed=12, clock_speed=4.0)
    ana = phones(srv, "Pixel 7", "ana", viewport=VIEWPORTS["320x658"], device_scale_factor=1)
    ana.page.goto("/")
    ana.page.locator('[data-test="game-crisps"]').check()
    levels = ana.page.locator("#practice-level option").evaluate_all("els => els.map(e => e.value)")
    assert levels == ["random", "normal", "hard"]
    expect(ana.loc("#practice-bots")).to_have_count(0)  # 2 seats: one bot
    ana.page.select_option("#practice-level", "random")
    ana.tap("#practice")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    expect(ana.loc('[data-test="seat"] .tag.bot')).to_have_count(1)
    over = '[data-test="winners"]'
    bot_lines = 0
    for turn in range(400):
        seen = last_line(ana)
        wait_until(
            lambda: due_phone([ana]) or ana.loc(over).count(),
            timeout=20,
            what="Ana's turn (the bot has moved)",
        )
        bot_lines += len([x for x in lines_since(ana, seen) if x.startswith("Ada")])
        if ana.loc(over).count():
            break
        take_turn(ana, turn)
    expect(ana.loc(over)).to_contain_text(re.compile(r"Ada \(bot\) wins!|You win!"))
    assert bot_lines >= 10, feed(ana)
    check_opponent_hidden(ana, "Ada (bot)")
    ana.shot("crisps-practice-results-320x658")
    # the game record, downloaded from the results' menu, replays to the result the phone shows
    ana.tap('[data-test="results-menu"] summary')
    with ana.page.expect_download() as got:
        ana.tap('[data-test="download"]')
    path = tmp_path / "crisps-record.json"
    got.value.save_as(path)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["format"] == "crisps-record/1"
    done = crisp("replay", str(path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["over"] and result["winner"] in (0, 1) and 3 in result["scores"], result
    winner = record["players"][result["winner"]]
    mine = not winner.endswith(" (bot)")  # the human's own win is told in the second person
    expect(ana.loc(over)).to_contain_text("You win!" if mine else winner.removesuffix(" (bot)"))
    assert_clean([ana])
