"""Playable without sight, Crisps!: a whole game against a bot, in a real browser, played with the
keyboard alone and read from the accessibility tree alone (roles, names and text; no CSS
selector), counting the key presses a decision costs. Every move of the bot is announced in the
move log (a live region). A greedy player: the lowest single when leading, the lowest play that
follows when following (CS-FOLLOW, CS-SPECIAL), else a pass (CS-PASS); the face-up card when the
draw is due (CS-DRAW)."""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, assert_clean, text_now, usable_now
from crisps_fake import CODE, FakeCrispsRoom
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

# What a decision (a play, a pass, a draw) may cost at most, on average, in key presses: the
# cards chosen and the press that acts included.
PRESSES_PER_DECISION = 4.0
RANKS = "123456789X"  # CS-RANK
BOT = "Ada (bot)"


def rank_of(word: str) -> str:
    """A rank as the table words it ("7", "7s", "Crisp", "Crisps") -> "7", "X"."""
    return "X" if word.startswith("Crisp") else word.removesuffix("s")


def play_told(words: str) -> tuple[str, str, int]:
    """The play to beat, as the status line tells it ("a pair of 3s", "a run 3–5", "three 7s")
    -> (kind, lowest rank, cards)."""
    for pattern, kind in (
        (r"a pair run (\w+)–(\w+)", "pair_run"),
        (r"a pair of (\w+)", "pair"),
        (r"a run (\w+)–(\w+)", "run"),
        (r"three (\w+)", "three"),
        (r"four (\w+)", "four"),
        (r"an? (\w+)", "single"),
    ):
        found = re.fullmatch(pattern, words)
        if not found:
            continue
        low = rank_of(found[1])
        if kind in ("run", "pair_run"):
            span = RANKS.index(rank_of(found[2])) - RANKS.index(low) + 1
            return kind, low, span * (2 if kind == "pair_run" else 1)
        return kind, low, {"single": 1, "pair": 2, "three": 3, "four": 4}[kind]
    raise AssertionError(f"a play not understood: {words!r}")


def runs(hand: str, each: int, size: int) -> list[str]:
    """Every run (``each`` = 1) or pair run (2) of ``size`` cards the hand holds, lowest first;
    no Crisp in a run (CS-CRISP-RUN, the option off)."""
    held = Counter(hand)
    span = size // each
    return [
        "".join(r * each for r in RANKS[lo : lo + span])
        for lo in range(len(RANKS) - span)  # the Crisp, last, never in one
        if all(held[r] >= each for r in RANKS[lo : lo + span])
    ]


def lowest_follow(hand: str, kind: str, low: str, size: int) -> str | None:
    """The lowest play of ``hand`` that follows (CS-FOLLOW: the same kind and size, an equal or
    higher rank; CS-SPECIAL: a bigger or higher three or four of a kind on a Special, any Special
    on a play holding a Crisp), else None."""
    held = Counter(hand)
    at_least = RANKS.index(low)
    if kind in ("single", "pair"):
        same = [r * size for r in RANKS[at_least:] if held[r] >= size]
    elif kind in ("run", "pair_run"):
        each = 1 if kind == "run" else 2
        same = [c for c in runs(hand, each, size) if RANKS.index(c[0]) >= at_least]
    else:  # a Special: as many cards and a higher rank, or more cards
        higher = [r * size for r in RANKS[at_least + 1 :] if held[r] >= size]
        more = [r * 4 for r in RANKS if size == 3 and held[r] == 4]
        return next(iter(higher + more), None)
    if same:
        return same[0]
    if kind in ("single", "pair") and low == "X":  # a Crisp: any Special
        bombs = [r * n for n in (3, 4) for r in RANKS if held[r] >= n]
        return bombs[0] if bombs else None
    return None


def button(where: Page | Locator, name: str | re.Pattern[str]) -> Locator:
    return where.get_by_role("button", name=name, exact=isinstance(name, str))


class KeyPlayer:
    """Reaches a control by the keys a keyboard user has (Tab and Shift+Tab, the skip link, the
    arrow keys, Home and End within the hand), then presses Enter; counts every press."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.presses = 0
        self.decisions = 0
        self.hand = page.get_by_role("group", name=re.compile(r"^Your hand: "))
        self.moves = page.get_by_role("navigation", name="Your moves")
        self.skip = button(page, "Skip to your moves")

    def press(self, key: str, times: int = 1) -> None:
        for _ in range(times):
            self.page.keyboard.press(key)
            self.presses += 1

    @staticmethod
    def holds_focus(where: Locator) -> bool:
        try:
            return bool(where.evaluate("el => el.contains(document.activeElement)", timeout=500))
        except Exception:  # gone meanwhile (the table moved on)
            return False

    def cards(self) -> list[tuple[str, bool]]:
        """The hand as the accessibility tree tells it: each card's rank and whether it is
        chosen (pressed)."""
        found = re.findall(r'- button "(\w+)"( \[pressed\])?', self.hand.aria_snapshot())
        return [(rank_of(name), bool(pressed)) for name, pressed in found]

    def focused_card(self) -> int:
        return int(
            self.hand.get_by_role("button").evaluate_all(
                "els => els.indexOf(document.activeElement)"
            )
        )

    def into_hand(self, limit: int = 40) -> None:
        """From wherever the focus is to the hand: the skip link, or back from the moves."""
        for _ in range(limit):
            if self.holds_focus(self.hand):
                return
            if self.holds_focus(self.moves):
                self.press("Shift+Tab")
            elif self.holds_focus(self.skip):
                self.press("Enter")
            else:
                self.press("Tab")
        raise AssertionError(f"the hand not reached in {limit} presses")

    def to_card(self, index: int) -> None:
        """The card at ``index`` takes the focus by the fewest presses: the arrow keys (which go
        round), or Home or End and then the arrows."""
        at, n = self.focused_card(), len(self.cards())
        ways = [
            ("", "ArrowRight", (index - at) % n),
            ("", "ArrowLeft", (at - index) % n),
            ("Home", "ArrowRight", index),
            ("End", "ArrowLeft", n - 1 - index),
        ]
        first, arrow, times = min(ways, key=lambda w: bool(w[0]) + w[2])
        if first:
            self.press(first)
        self.press(arrow, times)
        assert self.focused_card() == index, (self.focused_card(), index)

    def choose(self, play: str) -> None:
        """Choose the cards ``play`` (ranks) in the hand: each one reached and pressed."""
        ranks = [r for r, _ in self.cards()]
        wanted = sorted(ranks.index(r) + play[:k].count(r) for k, r in enumerate(play))
        self.into_hand()
        for index in wanted:
            self.to_card(index)
            self.press("Enter")
        chosen = "".join(r for r, pressed in self.cards() if pressed)
        assert chosen == play, f"chose {chosen!r} for {play!r}"

    def act(self, target: Locator, limit: int = 40) -> bool:
        """Focus the move ``target`` and press Enter: from the hand the next tab stop is the
        first move; from elsewhere the skip link. False when the move went away first (the
        table moved on: a timer, the bot)."""
        for _ in range(limit):
            if not usable_now(target):
                return False
            if self.holds_focus(target):
                self.press("Enter")
                self.decisions += 1
                return True
            if self.holds_focus(self.skip):
                self.press("Enter")
            else:
                self.press("Tab")
        raise AssertionError(f"{target} not reached in {limit} presses")


class LogCopy:
    """Every line the move log (role log) has shown, in order: the log keeps its latest lines
    only, so each reading is matched against the last one to find the lines new since."""

    def __init__(self, page: Page) -> None:
        self.log = page.get_by_role("log")
        self.lines: list[str] = []
        self.window: list[str] = []

    def read(self) -> None:
        now = [x.strip() for x in self.log.get_by_role("listitem").all_text_contents()]
        old = self.window
        shift = next(s for s in range(len(old) + 1) if now[: len(old) - s] == old[s:])
        self.lines += now[len(old) - shift :]
        self.window = now


def status(page: Page, text: str | re.Pattern[str]) -> Locator:
    return page.get_by_role("paragraph").filter(has_text=text)


FOLLOW = re.compile(r"^Your turn: play on (.+) from .+, or pass\.$")


def decide(player: KeyPlayer, page: Page) -> str:
    """One decision if one is due now (the status line says so): the face-up card when the draw
    is due, the lowest single when leading, the lowest play that follows when following, else a
    pass. Returns what was done ("" when nothing was due)."""
    take = button(player.moves, re.compile(r"^Take the face-up "))
    if usable_now(take):
        return "draw" if player.act(take.first) else ""
    lead = status(page, "Your lead: play any combination.")
    follow = status(page, FOLLOW)
    if not lead.count() and not follow.count():
        return ""
    assert not any(chosen for _, chosen in player.cards()), "a selection left over"
    hand = "".join(r for r, _ in player.cards())
    if lead.count():
        play: str | None = hand[0]
    else:
        told = FOLLOW.fullmatch(text_now(follow).strip())
        if told is None:  # the status line moved on meanwhile
            return ""
        play = lowest_follow(hand, *play_told(told[1]))
    if play is None:
        return "pass" if player.act(button(player.moves, "Pass")) else ""
    player.choose(play)
    return "play" if player.act(button(player.moves, re.compile(r"^Play: "))) else ""


def told_as(action: dict[str, Any]) -> re.Pattern[str]:
    """The log's line for a move of the bot (a record's action)."""
    if action["do"] == "pass":
        return re.compile(rf"{re.escape(BOT)} passed\.")
    if action["do"] == "draw":
        took = "the face-up " if action["take"] == "faceup" else "the blind card"
        return re.compile(rf"{re.escape(BOT)} took {took}.*")
    return re.compile(rf"{re.escape(BOT)} played (.+)\.")


def phase(srv: Any, code: str) -> str:
    return str(srv.request("GET", f"/api/rooms/{code}")[1]["phase"])


def test_a_whole_game_of_crisps_by_keyboard_alone(server: Any, phones: Any) -> None:
    """Practice against a bot, to 3 points (CS-GAME-END): every decision made by keys, every
    control found by its role and name, every move of the bot told in the move log as it came;
    the presses a decision costs stay few."""
    srv = server(seed=21, clock_speed=4)
    ana = phones(srv, "Pixel 7", "ana")
    page = ana.page
    page.goto("/")
    page.get_by_role("radio", name=re.compile(r"^Crisps!")).check()
    button(page, "Play now").click()
    player = KeyPlayer(page)
    expect(player.hand).to_be_visible()
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    log = LogCopy(page)
    done: Counter[str] = Counter()
    deadline = time.monotonic() + 600
    while phase(srv, code) != "over":
        assert time.monotonic() < deadline, f"the game did not end in time ({done})"
        did = decide(player, page)
        log.read()
        done[did] += 1
        if not did:
            page.wait_for_timeout(50)  # nothing to decide yet: look again (the bot plays)
    over = page.get_by_role("dialog", name="Game over")
    expect(over.get_by_text(re.compile(rf"^(You win!|{re.escape(BOT)} wins!)$"))).to_be_visible()
    log.read()
    _, record = srv.request("GET", f"/api/rooms/{code}/record")
    bot = record["players"].index(BOT)
    moves = [a for a in record["actions"] if a["seat"] == bot]
    told = [x for x in log.lines if re.match(rf"{re.escape(BOT)} (played |passed\.|took )", x)]
    assert len(told) == len(moves), (len(told), len(moves), told[-5:])
    for action, line in zip(moves, told, strict=True):
        found = told_as(action).fullmatch(line)
        assert found, (action, line)
        if action["do"] == "play":
            cards = action["cards"]
            assert play_told(found[1])[1:] == (min(cards, key=RANKS.index), len(cards)), line
    per = player.presses / max(1, player.decisions)
    print(
        f"Crisps! by keyboard: {player.presses} key presses for {player.decisions} decisions"
        f" ({per:.1f} a decision: {done['play']} plays, {done['pass']} passes,"
        f" {done['draw']} draws); {len(moves)} moves of the bot, each told"
    )
    assert player.decisions == done["play"] + done["pass"] + done["draw"]
    assert per <= PRESSES_PER_DECISION
    assert_clean([ana])


def test_a_new_deal_starts_with_nothing_chosen(phones: Any, host: Any) -> None:
    """A card chosen (by keys) while the other player leads stays chosen through their move, but
    not into the next deal (CS-DEAL): the new hand starts with nothing chosen, though it holds a
    card of the same rank."""
    first = "112233445566" * 2 + "789X" + "7" + "77888999XXX"  # Ana empties her hand at once
    second = "1334555689XX" + "111222234666" + "7999" + "8" + "344577788XX"
    room = FakeCrispsRoom(decks=[first, second], first_starter=0)
    ben = phones(host, "Pixel 7", "ben")
    room.attach(ben.page, 1)
    ben.page.goto(f"/r/{CODE}")
    player = KeyPlayer(ben.page)
    expect(player.hand).to_be_visible()
    player.choose("6")
    room.act(0, {"do": "play", "cards": "112233445566"})
    log = ben.page.get_by_role("log").get_by_role("listitem")
    expect(log.filter(has_text="Round 2: you start.")).to_have_count(1)
    assert player.cards() == [(rank, False) for rank in "111222234666"]
    assert_clean([ben])
