"""Playable without sight: a whole game of Crisp against a bot, in a real browser, played with the
keyboard alone and read from the accessibility tree alone (roles and names, no CSS selector),
counting the key presses. A decision costs few presses: the hand is one
tab stop moved through with the arrow keys, and a skip link goes straight to the moves."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, assert_clean, card_code, text_now, usable_now, value
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

# What a decision may cost at most, on average, in key presses (the press that acts included).
PRESSES_PER_DECISION = 4.0


class KeyPlayer:
    """Reaches a control by the keys a keyboard user has (Tab, the skip link, the arrow keys in
    the hand), then presses Enter; counts every press."""

    def __init__(self, page: Page, hand: Locator) -> None:
        self.page = page
        self.presses = 0
        self.decisions = 0
        self.hand = hand
        self.skip = page.get_by_role("button", name="Skip to your moves")
        self.moves = page.get_by_role("navigation", name="Your moves")
        self.arrows = True

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.presses += 1

    @staticmethod
    def focused(target: Locator) -> bool:
        try:
            return bool(target.evaluate("el => el === document.activeElement", timeout=500))
        except Exception:  # gone meanwhile (the table moved on)
            return False

    def inside(self, group: Locator) -> bool:
        try:
            return bool(group.evaluate("el => el.contains(document.activeElement)", timeout=500))
        except Exception:
            return False

    def act(
        self, target: Locator, where: str = "moves", decides: bool = True, limit: int = 120
    ) -> bool:
        """Focus ``target`` (one of the moves, or a card of the hand: ``where``) and press Enter;
        False when it went away first. A card: back from the moves (the hand is the tab stop
        before them), then the arrow keys. A move: the skip link when Tab meets it."""
        for _ in range(limit):
            if not usable_now(target):
                return False
            if self.focused(target):
                self.press("Enter")
                self.decisions += decides  # a card chosen, a selection cleared: part of one
                return True
            if where == "hand" and self.inside(self.hand) and self.arrows:
                self.page.evaluate("() => { window.__was = document.activeElement; }")
                self.press("ArrowRight")
                # a hand without arrow keys: Tab
                self.arrows = self.page.evaluate("() => document.activeElement !== window.__was")
            elif where == "hand" and self.inside(self.moves):
                self.press("Shift+Tab")
            elif where == "moves" and self.focused(self.skip):
                self.press("Enter")
            else:
                self.press("Tab")
        raise AssertionError(f"{target} not reached in {limit} presses")


def button(page: Page, name: str | re.Pattern[str]) -> Locator:
    return page.get_by_role("button", name=name, exact=isinstance(name, str))


def play_a_turn(player: KeyPlayer, page: Page, turns: int) -> int:
    """One decision if there is one now: Next round, Ready, Crisp (after three turns of the
    round), Draw, then swap a card under 5 into the left slot, else use a King or Jack, else
    discard. Returns the round's turns so far."""
    if usable_now(button(page, "Next round")):
        player.act(button(page, "Next round"))
        return 0
    if usable_now(button(page, "Ready")):
        player.act(button(page, "Ready"))
        return turns
    crisp = button(page, re.compile(r"^Crisp!"))
    if turns >= 3 and usable_now(crisp) and "called" not in text_now(crisp):
        player.act(crisp.first)
        return turns
    if usable_now(button(page, "Draw")):
        if not player.act(button(page, "Draw")):
            return turns
        held = page.get_by_role("img", name=re.compile(r"^You hold: "))
        expect(held).to_be_visible()
        card = card_code((held.get_attribute("aria-label") or "").split(": ", 1)[1])
        left = player.hand.get_by_role("button", name=re.compile(r"^Your left card"))
        if card[0] == "K" and usable_now(button(page, "Use the King")):
            player.act(button(page, "Use the King"))
            return turns
        if card[0] == "J" and usable_now(button(page, "Use the Jack")):
            player.act(button(page, "Use the Jack"))
        elif value(card) < 5 and card[0] not in "JQK":
            expect(left).to_be_enabled()
            player.act(left, where="hand")
        else:
            player.act(button(page, "Discard"))
        return turns + 1
    return turns


def test_a_whole_game_of_crisp_by_keyboard_alone(server: Any, phones: Any) -> None:
    """A game to 50 points against a bot: every decision made by keys, every control found by
    its role and name; the presses a decision costs stay few."""
    srv = server(3, clock_speed=2)
    ana = phones(srv, "Pixel 7", "ana")
    page = ana.page
    page.goto("/")
    page.get_by_role("textbox", name=re.compile("name", re.I)).fill("Ana")
    button(page, re.compile(r"^Create")).click()
    page.get_by_role("combobox", name=re.compile("Game ends at", re.I)).select_option("50")
    button(page, re.compile(r"^Add")).click()
    button(page, re.compile(r"^Start")).click()
    expect(page.get_by_role("region", name="You")).to_be_visible()
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    player = KeyPlayer(page, page.get_by_role("region", name="You"))
    turns = 0
    deadline = time.monotonic() + 420
    while srv.request("GET", f"/api/rooms/{code}")[1]["phase"] != "over":
        assert time.monotonic() < deadline, "the game did not end in time"
        before = player.decisions
        turns = play_a_turn(player, page, turns)
        if player.decisions == before:
            page.wait_for_timeout(50)  # nothing to decide yet: look again (the bot plays)
    per = player.presses / max(1, player.decisions)
    print(
        f"Crisp by keyboard: {player.presses} key presses for {player.decisions} decisions"
        f" ({per:.1f} a decision)"
    )
    assert player.decisions > 10
    assert per <= PRESSES_PER_DECISION
    assert_clean([ana])
