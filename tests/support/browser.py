"""Helpers for the real-browser tests of the phone client: Debian's Chromium driven by Python
Playwright, emulated phones (one browser context each), console-error capture, card names as the
client renders them, and screenshots for review."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from paths import TESTS
from playwright.sync_api import Browser, Locator, Page, expect
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = TESTS / "artifacts" / "screenshots"
TIMEOUT_MS = 20_000  # generous: a loaded 2-core machine runs several browsers and servers
SLOTS = ("left", "middle", "right")
# Modules the client imports only if they are there (a guarded dynamic import): the card art and
# the shuffle verifier, which other branches add. Their 404 is the one console error allowed.
OPTIONAL_MODULES = ("/static/games/crisp/cardart.js", "/static/games/crisp/fairness.js")

# The client's card names (crisp/static/games/crisp/cardname.js): "7H" -> "7♥", "TS" -> "10♠";
# court cards by each language's convention (French: V, D, R for Valet, Dame, Roi).
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
COURTS = {"fr": {"J": "V", "Q": "D", "K": "R"}}
NAME = re.compile(r"(10|[A2-9JQKVDR])([♠♥♦♣])")
STORED_CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][SHDC](?![A-Za-z0-9])")


def card_name(code: str, lang: str = "en") -> str:
    rank = COURTS.get(lang, {}).get(code[0]) or ("10" if code[0] == "T" else code[0])
    return rank + SUITS[code[1]]


def face(name: str) -> re.Pattern[str]:
    """What a shown face's text starts with: its name (the card art's own indices follow it)."""
    return re.compile("^" + re.escape(name))


def card_code(name: str) -> str:
    found = NAME.fullmatch(name.strip())
    assert found, f"not a card name: {name!r}"
    rank = {"10": "T", "V": "J", "D": "Q", "R": "K"}.get(found.group(1), found.group(1))
    suit = {v: k for k, v in SUITS.items()}[found.group(2)]
    return rank + suit


def value(code: str) -> int:
    """R-VALUE: Ace 1, 2 to 9 their number, T J Q K 10."""
    if code[0] == "A":
        return 1
    return 10 if code[0] in "TJQK" else int(code[0])


def deal(deck: list[str], players: int, dealer: int) -> list[list[str]]:
    """R-DEAL: three passes from the seat after the dealer; 1st, 2nd, 3rd cards: left, middle,
    right."""
    hands = [["", "", ""] for _ in range(players)]
    first = (dealer + 1) % players
    for slot in range(3):
        for k in range(players):
            hands[(first + k) % players][slot] = deck[slot * players + k]
    return hands


def device(playwright: Any, name: str) -> dict[str, Any]:
    """A Playwright device descriptor usable with Chromium (whatever its default browser)."""
    return {k: v for k, v in playwright.devices[name].items() if k != "default_browser_type"}


def practice(phone: Phone, bots: int = 1) -> None:
    """From the front door, a practice game of Crisp against ``bots`` bots, as Ana: until the
    table shows her hand."""
    phone.page.goto("/")
    phone.page.fill("#name", "Ana")
    phone.page.select_option("#practice-bots", str(bots))
    phone.tap("#practice")
    expect(phone.loc('[data-test="hand"]')).to_be_visible()


USABLE = """(els) => {
  const el = els[0];
  if (!el || !el.getClientRects().length) return false;
  if (getComputedStyle(el).visibility === "hidden") return false;
  return !el.matches(":disabled") && !el.closest('[aria-disabled="true"]');
}"""


def usable_now(target: Locator) -> bool:
    """Whether the first element ``target`` matches is shown and enabled, in one look that does
    not wait. Two looks (``count()``, then ``is_enabled()``) race the page: an element gone
    between them makes the second wait for it until the timeout."""
    return bool(target.evaluate_all(USABLE))


def text_now(target: Locator) -> str:
    """The text of the first element ``target`` matches ("" when there is none), without
    waiting for one."""
    return str(target.evaluate_all("(els) => (els[0] ? els[0].innerText : '')"))


class Phone:
    """One emulated phone: its own browser context (storage, locale), one page, and every console
    error and uncaught exception of that page."""

    def __init__(
        self,
        browser: Browser,
        playwright: Any,
        device_name: str,
        base: str,
        label: str,
        guide: bool = False,
        **options: Any,
    ) -> None:
        self.label = label
        self.device = device_name
        # The app's service worker only where a test asks for it (service_workers="allow"): a
        # page it serves from its cache would bypass the routes and network conditions a test
        # sets, and load differently from one test to the next.
        options.setdefault("service_workers", "block")
        self.context = browser.new_context(
            base_url=base, **{**device(playwright, device_name), **options}
        )
        if not guide:  # a phone that has played before: no first-game guide on its table
            self.context.add_init_script(
                "for (const g of ['crisp', 'crisps'])"
                " if (!localStorage.getItem(`crisp.guide.${g}`))"
                " localStorage.setItem(`crisp.guide.${g}`, 'done');"
            )
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.refusals: list[str] = []
        self.sockets: list[str] = []  # the page's WebSockets: opened, closed (for reports)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        started = time.monotonic()
        self.sockets.append(f"open {ws.url}")
        ws.on(
            "close",
            lambda _ws: self.sockets.append(f"closed after {time.monotonic() - started:.1f} s"),
        )

    def report(self) -> str:
        """What this phone shows and did, for a failing test's message: its address, the
        lobby's members, its connection banner, its WebSockets and console errors."""
        members = self.page.evaluate(
            """() => [...document.querySelectorAll('[data-test="member"]')].map((m) =>
                `${m.textContent.replace(/\\s+/g, " ").trim()} connected=${m.dataset.connected}`)"""
        )
        banner = self.page.evaluate(
            "() => document.querySelector('[data-test=\"conn\"]')?.textContent ?? null"
        )
        return (
            f"{self.label}: {self.page.url}; members {members}; banner {banner!r}; "
            f"sockets {self.sockets}; errors {self.errors}"
        )

    def _console(self, msg: Any) -> None:
        url = msg.location.get("url", "")
        if msg.type == "error" and url.endswith(OPTIONAL_MODULES) and "404" in msg.text:
            return  # an optional module not there yet: the client imports it guarded
        if (
            msg.type == "error"
            and "/static/icons/" in url
            and "ERR_INTERNET_DISCONNECTED" in msg.text
        ):
            return  # Chromium fetches the manifest's icons when it likes, even while set offline
        if msg.type == "error":
            self.errors.append(f"console.error: {msg.text} ({msg.location.get('url', '')})")
        elif msg.type == "warning" and "/static/" in msg.location.get("url", ""):
            # app.js turns an exception inside its message handler into console.warn
            self.errors.append(f"console.warn from the client: {msg.text}")
        elif msg.type == "info" and msg.text.startswith("refused:"):
            self.refusals.append(msg.text)

    @property
    def slug(self) -> str:
        """For file names: the device and the locale, e.g. ``moto-g4-en``."""
        lang = self.page.evaluate("document.documentElement.lang")
        return f"{self.device.replace(' ', '-').lower()}-{lang}"

    # -- finding things ------------------------------------------------------------------------

    def loc(self, selector: str) -> Locator:
        return self.page.locator(selector)

    def action(self, name: str) -> Locator:
        return self.page.locator(f'[data-action="{name}"]')

    def my_card(self, slot: str) -> Locator:
        return self.page.locator(f'button[data-test="my-card"][data-slot="{slot}"]')

    def their_card(self, seat: int, slot: str) -> Locator:
        return self.page.locator(
            f'button[data-test="card"][data-seat="{seat}"][data-slot="{slot}"]'
        )

    def seat(self) -> int:
        """This phone's seat, as the page shows it (the seat of its own card buttons)."""
        return int(self.my_card("left").get_attribute("data-seat") or "-1")

    def opponents(self) -> list[tuple[int, str]]:
        boxes = self.page.locator('[data-test="seat"]')
        return [
            (int(b.get_attribute("data-seat") or "-1"), b.locator(".name").inner_text())
            for b in boxes.all()
        ]

    def name_of(self, code: str) -> str:
        """A card's name as this page writes it (in its language)."""
        return card_name(code, str(self.page.evaluate("document.documentElement.lang")))

    def held(self) -> str:
        """The code of the drawn card this phone holds, read from ``[data-test=held]``."""
        held = self.page.locator('[data-test="held"].up')
        expect(held).to_be_visible()
        code = held.locator(".face[data-card]").first.get_attribute("data-card")
        assert code is not None
        return code

    def card_names_in_page(self) -> set[str]:
        """Every card name rendered anywhere in the page (text, labels, flying cards)."""
        html = self.page.evaluate("document.body.innerHTML")
        return {m.group(0) for m in NAME.finditer(html)}

    def card_names_heard(self) -> set[str]:
        """Every card name in the page's accessibility tree (accessible names, live regions)."""
        tree = self.page.locator("body").aria_snapshot()
        return {m.group(0) for m in NAME.finditer(tree)}

    def body_html(self) -> str:
        return str(self.page.evaluate("document.body.innerHTML"))

    def storage(self) -> dict[str, dict[str, str]]:
        return dict(
            self.page.evaluate("""() => {
            const dump = (s) => Object.fromEntries(
              Array.from({length: s.length}, (_, i) => s.key(i)).map((k) => [k, s.getItem(k)]));
            return {local: dump(localStorage), session: dump(sessionStorage)};
        }""")
        )

    # -- doing things --------------------------------------------------------------------------

    def create_room(self, name: str) -> str:
        """On the home page: type ``name``, tap Create; the room's code, as the lobby shows it."""
        self.page.goto("/")
        self.page.fill("#name", name)
        self.tap("#create")
        return self.loc('[data-test="room-code"]').inner_text().strip().replace("-", "")

    def wait_for(self, predicate: Any, what: str) -> Any:
        """Poll ``predicate`` over state that Playwright's handlers (routes) fill in: a round trip
        to the page each time lets Playwright deliver the events to them."""
        return wait_until(lambda: self.page.evaluate("true") and predicate(), what=what)

    def tap(self, locator: Locator | str, pulsing: bool = False) -> None:
        """A tap (touch). A pulsing button (the crisp call) never holds still for Playwright's
        "stable" check, so it is tapped once visible, where it is."""
        target = self.page.locator(locator) if isinstance(locator, str) else locator
        if pulsing:
            expect(target).to_be_visible()
        target.tap(force=pulsing)

    def shot(self, name: str, full_page: bool = False) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(
            path=str(path), full_page=full_page, scale="css", animations="disabled"
        )
        return path

    def close(self) -> None:
        self.context.close()


def wait_until(predicate: Any, timeout: float = TIMEOUT_MS / 1000, what: str = "") -> Any:
    """Poll ``predicate`` (a state of several pages, which no single locator can wait for)."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        time.sleep(0.05)


def assert_clean(phones: list[Phone]) -> None:
    """No console error and no uncaught exception on any page (and no exception swallowed by the
    client's message queue)."""
    problems = {p.label: p.errors for p in phones if p.errors}
    assert not problems, f"console errors: {problems}"


# -- playing by taps ---------------------------------------------------------------------------

# Installed before any page script: every line the move feed ever shows, in order (the feed of a
# round is cleared at the next deal, so the test keeps its own copy to check afterwards).
FEED_RECORDER = """
window.__feed = [];
new MutationObserver((records) => {
  for (const r of records) for (const node of r.addedNodes) {
    if (node.nodeType !== 1) continue;
    const lines = node.matches('[data-test=feed] li') ? [node]
      : [...node.querySelectorAll('[data-test=feed] li')];
    for (const li of lines) window.__feed.push(li.textContent);
  }
}).observe(document, {childList: true, subtree: true});
"""


class Frames:
    """The JSON messages a page received on its WebSockets, in order (Playwright's websocket
    events), each connection's from its start."""

    def __init__(self, page: Page) -> None:
        self.received: list[dict[str, Any]] = []
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        import json

        if isinstance(payload, str):  # one message, or an array of them (protocol.md, Frames)
            frame = json.loads(payload)
            self.received.extend(frame if isinstance(frame, list) else [frame])


class TapPlayer:
    """Plays a phone's seat by taps, one step at a time without waiting for the others: Ready,
    Draw, then King / Jack / a Queen on the next seat's left card / a swap into the left slot
    (plain cards worth less than 5) / discard; crisp after its third turn of a round; Next round
    between rounds. ``step`` returns what it did ("" when there was nothing to do)."""

    def __init__(self, phone: Phone, crisp_after: int = 3) -> None:
        self.phone = phone
        self.turns = 0
        self.crisp_after = crisp_after

    def visible(self, selector: str) -> bool:
        """Shown and enabled now (one look at the page: nothing waits for it)."""
        script = """(s) => { const el = document.querySelector(s);
            return Boolean(el && !el.disabled && el.getClientRects().length); }"""
        return bool(self.phone.page.evaluate(script, selector))

    def step(self) -> str:
        p = self.phone
        if self.visible('[data-action="continue"]'):
            p.tap(p.action("continue"))
            self.turns = 0
            return "continue"
        if self.visible('[data-action="crisp"]') and self.turns >= self.crisp_after:
            try:  # the window may close between the look and the tap
                p.action("crisp").tap(force=True, timeout=1500)
            except PlaywrightError:
                return ""
            return "crisp"
        if self.visible('[data-action="ready"]'):
            p.tap(p.action("ready"))
            return "ready"
        if self.visible('[data-action="draw"]'):
            p.tap(p.action("draw"))
            return self.play(p.held())
        return ""

    def play(self, card: str) -> str:
        p = self.phone
        if card[0] == "K":
            p.tap(p.action("king"))
            return "king"
        if card[0] == "J":
            p.tap(p.action("jack"))
        elif card[0] == "Q":
            seats = [s for s, _ in p.opponents()]
            p.tap(p.action("queen"))
            p.tap(p.my_card("left"))
            p.tap(p.their_card(seats[0], "left"))
            p.tap(p.action("confirm"))
        elif value(card) < 5:
            p.tap(p.my_card("left"))
        else:
            p.tap(p.action("discard"))
        self.turns += 1
        return f"played {card}"


def play_until(players: list[TapPlayer], done: Any, timeout: float = 240.0) -> None:
    """Step every player in turn until ``done()``."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError("the game did not end in time")
        if not any([player.step() for player in players]):
            time.sleep(0.05)
