"""The phone on a bad link, in a real browser against a real ``crisp serve``: no tap lost and none
applied twice, every action visibly on its way until it is answered, a dead link told within 2 s
while an answer is awaited, and countdowns that end before the server's deadline on a slow link.
Links are held, deafened and reset by Playwright's WebSocket routes, or slowed by a delaying TCP
proxy (tests/support/delaylink.py); nothing sleeps for game time."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean, practice
from delaylink import DelayLink
from playwright.sync_api import WebSocketRoute, expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)


@dataclass
class Socket:
    """One WebSocket of the page, as the route sees it: what the page sent, and the switches."""

    page_side: WebSocketRoute
    server_side: WebSocketRoute
    sent: list[dict[str, Any]] = field(default_factory=list)
    drop_acts: bool = False  # the page's actions die on the link
    deaf: bool = False  # nothing from the server reaches the page
    holding: bool = False  # the server's messages wait until release()
    held: list[str | bytes] = field(default_factory=list)
    hold_acts: bool = False  # the page's actions wait on the link until release_acts()
    held_acts: list[str | bytes] = field(default_factory=list)
    heard: list[dict[str, Any]] = field(default_factory=list)  # the server's messages

    def release_acts(self) -> None:
        self.hold_acts = False
        for message in self.held_acts:
            self.server_side.send(message)
        self.held_acts.clear()


class Link:
    """The page's WebSockets routed through the test. The switches set on the link apply to the
    next socket; those of a socket to it alone."""

    def __init__(self) -> None:
        self.sockets: list[Socket] = []
        self.drop_acts = False

    def route(self, ws: WebSocketRoute) -> None:
        sock = Socket(ws, ws.connect_to_server(), drop_acts=self.drop_acts)
        self.sockets.append(sock)

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            sock.sent.append(msg)
            if msg.get("type") != "act":
                sock.server_side.send(message)
            elif sock.hold_acts:
                sock.held_acts.append(message)
            elif not sock.drop_acts:
                sock.server_side.send(message)

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            sock.heard.extend(frame if isinstance(frame, list) else [frame])
            if sock.deaf:
                return
            if sock.holding:
                sock.held.append(message)
            else:
                ws.send(message)

        ws.on_message(from_page)
        sock.server_side.on_message(from_server)

    @property
    def now(self) -> Socket:
        return self.sockets[-1]

    def release(self) -> None:
        sock = self.now
        sock.holding = False
        for message in sock.held:
            sock.page_side.send(message)
        sock.held.clear()

    def reset(self) -> None:
        """The connection dies (as a reset does): the page sees it close, the server too."""
        sock = self.now
        sock.page_side.close(code=1011, reason="reset")
        sock.server_side.close()

    def acts(self, sock: Socket, action: str) -> int:
        return sum(1 for m in sock.sent if m.get("type") == "act" and m.get("do") == action)


def practice_to_draw(phone: Phone, bots: int = 1) -> None:
    """A game against bots, on the phone; Ready, then the phone's first draw is due."""
    practice(phone, bots)
    phone.tap(phone.action("ready"))
    expect(phone.action("draw")).to_be_enabled(timeout=60_000)


# Installed in the page: the moment (performance.now()) of the next tap, and of the first time a
# selector matches after it.
WATCH = """(selector) => {
  window.__tapAt = null; window.__seenAt = null;
  document.addEventListener('click', () => { window.__tapAt ??= performance.now(); }, true);
  const look = () => {
    if (window.__tapAt != null && window.__seenAt == null && document.querySelector(selector))
      window.__seenAt = performance.now();
  };
  new MutationObserver(look).observe(document.body,
    { childList: true, subtree: true, attributes: true, characterData: true });
}"""


def watch(phone: Phone, selector: str) -> None:
    phone.page.evaluate(WATCH, selector)


def seen_after_tap_ms(phone: Phone) -> float:
    phone.page.wait_for_function("() => window.__seenAt != null")
    return float(phone.page.evaluate("() => window.__seenAt - window.__tapAt"))


def error_toasts(phone: Phone) -> list[str]:
    return phone.loc('[data-test="toast"].error, [data-test="toast"].warn').all_inner_texts()


def note_shot(phone: Phone, name: str) -> None:
    """A screenshot for the review note (tests/artifacts/screenshots), named by the phone's size."""
    size = phone.page.viewport_size or {"width": 0, "height": 0}
    phone.shot(f"{name}-{size['width']}x{size['height']}")


PHONES = [
    ("Pixel 7", {"viewport": {"width": 390, "height": 844}}),
    ("iPhone SE", {"viewport": {"width": 320, "height": 568}}),
]


def test_a_draw_whose_connection_died_is_sent_again_and_applied_once(
    server: Any, phones: Any
) -> None:
    """No tap lost: Draw is sent on a connection that dies before the server hears it; it shows
    as pending meanwhile, and the next connection sends it again: the card is drawn, once, and no
    error is shown."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, "Pixel 7", "ana")
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(ana)
    first = link.now
    first.drop_acts = True
    ana.tap(ana.action("draw"))
    expect(ana.action("draw")).to_have_attribute("aria-busy", "true")
    link.reset()
    expect(ana.loc('[data-test="held"][role="img"]')).to_have_attribute(
        "aria-label", re.compile(r"^You hold")
    )
    assert link.acts(first, "draw") == 1
    assert len(link.sockets) >= 2 and link.acts(link.now, "draw") == 1
    expect(ana.loc('[data-test="status"]')).not_to_have_text(re.compile("Sending"))
    assert error_toasts(ana) == []
    assert_clean([ana])


def test_a_resent_action_already_applied_is_taken_as_done_not_refused(
    server: Any, phones: Any
) -> None:
    """No tap doubled: the server applies Draw but its answer dies with the connection; the next
    connection sends Draw again with its first version, the server refuses that copy `stale`,
    and the page shows the card drawn, with no error or warning."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, "Pixel 7", "ana")
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(ana)
    first = link.now
    first.deaf = True
    ana.tap(ana.action("draw"))
    expect(ana.action("draw")).to_have_attribute("aria-busy", "true")
    ana.wait_for(lambda: link.acts(first, "draw") == 1, what="the draw sent")
    link.reset()
    expect(ana.loc('[data-test="held"][role="img"]')).to_have_attribute(
        "aria-label", re.compile(r"^You hold")
    )
    ana.wait_for(lambda: link.acts(link.now, "draw") == 1, what="the draw sent again")
    expect(ana.loc('[data-test="status"]')).not_to_have_text(re.compile("Sending"))
    expect(ana.action("discard")).to_be_enabled()
    assert error_toasts(ana) == []
    assert_clean([ana])


@pytest.mark.parametrize(("device", "options"), PHONES, ids=["390x844", "320x568"])
def test_a_swap_shows_it_is_on_its_way_at_once_and_says_when_slow(
    server: Any, phones: Any, device: str, options: dict[str, Any]
) -> None:
    """Pending is visible: the card tapped to swap shows it is on its way within 100 ms, the rest
    of the decision is locked (the other cards, Discard), and after about a second the status says
    the answer is slow; when the answer comes the swap is done."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, device, "ana", **options)
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(ana)
    ana.tap(ana.action("draw"))
    expect(ana.action("discard")).to_be_enabled()
    link.now.holding = True
    watch(ana, '[data-test="my-card"][data-slot="left"][aria-busy="true"]')
    ana.tap(ana.my_card("left"))
    shown = seen_after_tap_ms(ana)
    print(f"time to show pending: {shown:.0f} ms")
    assert shown < 100
    for slot in ("middle", "right"):
        expect(ana.my_card(slot)).to_have_attribute("aria-disabled", "true")
    expect(ana.action("discard")).to_be_disabled()
    expect(ana.loc('[data-test="status"]')).to_have_text(re.compile("Sending"))
    expect(ana.loc('[data-test="status"]')).to_have_text(re.compile("slow"), timeout=3000)
    note_shot(ana, "pending-slow")
    link.release()
    expect(ana.loc('[data-test="held"][role="img"]')).to_have_count(0)
    expect(ana.loc('[data-test="status"]')).not_to_have_text(re.compile("Sending|slow"))
    assert error_toasts(ana) == []
    assert_clean([ana])


def test_a_crisp_call_stays_on_screen_until_it_is_applied(server: Any, phones: Any) -> None:
    """A crisp call tapped while its answer is held stays on screen, "called — sending", after
    the window's countdown has run out on the page, until the server's answer applies it."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, "Pixel 7", "ana")
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(ana)
    ana.tap(ana.action("draw"))
    ana.tap(ana.action("discard"))
    crisp = ana.action("crisp")
    expect(crisp).to_be_visible()
    link.now.holding = True
    ana.tap(crisp, pulsing=True)
    expect(crisp).to_have_text(re.compile("called"))
    # the window's 3 s run out on the page's clock while the answer is still held
    ana.page.evaluate("() => { window.__heldFrom = performance.now(); }")
    ana.page.wait_for_function("() => performance.now() - window.__heldFrom > 3500")
    expect(crisp).to_have_text(re.compile("called"))
    expect(crisp).to_have_attribute("aria-busy", "true")
    link.release()
    expect(ana.loc('[data-test="feed"]')).to_contain_text(re.compile("You called crisp", re.I))
    assert error_toasts(ana) == []
    assert_clean([ana])


@pytest.mark.parametrize(("device", "options"), PHONES, ids=["390x844", "320x568"])
def test_a_dead_link_is_told_within_2_s_while_an_answer_is_awaited(
    server: Any, phones: Any, device: str, options: dict[str, Any]
) -> None:
    """The link goes silent just as Draw is tapped: the banner says so within 2 s; the page
    connects again by itself, Draw is applied, and the banner goes."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, device, "ana", **options)
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(ana)
    link.now.deaf = True
    watch(ana, '[data-test="conn"]')
    ana.tap(ana.action("draw"))
    told = seen_after_tap_ms(ana)
    print(f"time to announce a dead link (an answer awaited): {told:.0f} ms")
    assert told < 2000
    expect(ana.loc('[data-test="conn"]')).to_have_attribute("role", "alert")
    note_shot(ana, "dead-link")
    expect(ana.loc('[data-test="held"][role="img"]')).to_have_attribute(
        "aria-label", re.compile(r"^You hold"), timeout=30_000
    )
    expect(ana.loc('[data-test="conn"]')).to_have_count(0)
    assert_clean([ana])


def test_a_dead_link_is_told_within_a_few_seconds_while_idle(server: Any, phones: Any) -> None:
    """Nothing awaited: a silent link is still told within a few seconds (the heartbeat)."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, "Pixel 7", "ana")
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(ana)
    ana.page.evaluate(
        "() => { window.__seenAt = null; new MutationObserver(() => {"
        " if (window.__seenAt == null && document.querySelector('[data-test=conn]'))"
        " window.__seenAt = performance.now(); }).observe(document.body,"
        " {childList: true, subtree: true}); window.__deafAt = performance.now(); }"
    )
    link.now.deaf = True
    ana.page.wait_for_function("() => window.__seenAt != null", timeout=10_000)
    told = float(ana.page.evaluate("() => window.__seenAt - window.__deafAt"))
    print(f"time to announce a dead link (idle): {told:.0f} ms")
    assert told < 4000
    assert_clean([ana])


# Installed before the page's scripts: every message the page's WebSockets receive, with the
# moment (performance.now()) it arrived.
ARRIVALS = """
window.__arrivals = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (e) => {
      const frame = JSON.parse(e.data);
      window.__arrivals.push({at: performance.now(), msgs: Array.isArray(frame) ? frame : [frame]});
    });
  }
};
"""


def test_the_crisp_countdown_ends_a_one_way_delay_early_on_a_slow_link(
    server: Any, phones: Any
) -> None:
    """R-WINDOW, R-WINDOW-LAG on a link of 400 ms each way: the crisp call is offered on screen
    only while a tap would still reach the server inside the window, the offer ending at least one
    one-way delay before the server closes the window."""
    srv = server(5, clock_speed=1)
    one_way = 0.4
    with DelayLink(srv.base, one_way) as link:
        ana = phones(SimpleNamespace(base=link.base), "Pixel 7", "ana")
        ana.page.add_init_script(ARRIVALS)
        practice_to_draw(ana)
        ana.page.evaluate(
            "() => { window.__crisp = []; new MutationObserver(() => {"
            " const on = Boolean(document.querySelector('[data-action=crisp]'));"
            " const last = window.__crisp.at(-1);"
            " if (!last || last.on !== on) window.__crisp.push({on, at: performance.now()});"
            " }).observe(document.body, {childList: true, subtree: true}); }"
        )
        ana.tap(ana.action("draw"))
        ana.tap(ana.action("discard"))
        ana.page.wait_for_function(
            "() => window.__crisp.length >= 2 && !window.__crisp.at(-1).on", timeout=15_000
        )
        gone_at = ana.page.evaluate("() => window.__crisp.at(-1).at")
        seat = ana.seat()
        arrivals = ana.page.evaluate("() => window.__arrivals")
        end, arrived_at = next(
            (m, at)
            for m, at in reversed([(m, a["at"]) for a in arrivals for m in a["msgs"]])
            if m.get("type") == "turn_end" and m.get("seat") == seat and m.get("window_until")
        )
        window_s = end["window_until"] - end["t"]  # clock speed 1: game seconds are real
        on_screen_s = (gone_at - arrived_at) / 1000
        # the turn_end left the server one_way before it arrived; the server closes the window
        # window_s after that; the offer went on_screen_s after the turn_end arrived.
        margin = window_s - one_way - on_screen_s
        print(
            f"countdown margin on a {one_way * 1000:.0f} ms (each way) link: {margin * 1000:.0f} ms"
            f" before the server's close (window {window_s:.2f} s, offered until"
            f" {on_screen_s:.2f} s after the message arrived)"
        )
        assert margin >= one_way
        assert_clean([ana])


def test_a_late_crisp_call_is_refused_in_plain_words(server: Any, phones: Any) -> None:
    """R-WINDOW: a crisp call that reaches the server after its window closed (held on the link
    until the server has said the window closed) is refused in plain words: the window had
    closed; never "too early, or ...". Until then it stays on screen as called."""
    srv = server(5, clock_speed=1)
    ana = phones(srv, "Pixel 7", "ana")
    link = Link()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    practice_to_draw(
        ana, bots=2
    )  # the next seat's turn is not this one's: the call is late, not stale
    ana.tap(ana.action("draw"))
    ana.tap(ana.action("discard"))
    crisp = ana.action("crisp")
    expect(crisp).to_be_visible()
    sock = link.now
    sock.hold_acts = True
    seat = ana.seat()
    ana.tap(crisp, pulsing=True)
    ana.wait_for(lambda: sock.held_acts, what="the crisp call held")
    expect(crisp).to_have_text(re.compile("called"))

    def closed() -> bool:
        return any(m["type"] == "window_closed" and m.get("seat") == seat for m in sock.heard)

    ana.wait_for(closed, what="the server closing this seat's window")
    sock.release_acts()
    toast = ana.loc('[data-test="toast"]').filter(has_text="the crisp window had closed")
    expect(toast).to_be_visible()
    expect(ana.loc('[data-test="toast"]').filter(has_text="too early")).to_have_count(0)
    expect(crisp).to_have_count(0)
    assert_clean([ana])
