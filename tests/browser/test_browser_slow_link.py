"""The phone client on a slow link, in a real browser (Debian's Chromium, headless, Python
Playwright) against a real ``crisp serve``: answers that arrive late must not lose what the player
typed or chose. The network is held open by Playwright's request and WebSocket routes, so each race
is played the same way every run, not left to timing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, assert_clean, wait_until
from playwright.sync_api import WebSocketRoute, expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)


def test_join_by_code_while_the_room_is_looked_up(server: Any, phones: Any) -> None:
    """Join by code on a slow link: the home page's fields go away the moment the code is sent (a
    name typed then would land in a field about to vanish), and the name typed on the home page
    is already in the join form when it appears."""
    srv = server(1, clock_speed=2)
    ana = phones(srv, "Pixel 7", "ana")
    dana = phones(srv, "Moto G4", "dana")
    code = ana.create_room("Ana")

    held: list[Any] = []  # the room lookup, answered only when the test lets it go

    def hold(route: Any) -> None:  # (Playwright wants a Python function, not list.append)
        held.append(route)

    dana.page.route(f"**/api/rooms/{code}", hold)
    dana.page.goto("/")
    dana.page.fill("#name", "Dana")
    dana.page.fill("#code", code)
    dana.tap("#join-code")
    expect(dana.page).to_have_url(f"{srv.base}/r/{code}")
    dana.wait_for(lambda: held, what="the room lookup")
    expect(dana.loc("input")).to_have_count(0)  # nothing left to type into while it is pending
    expect(dana.loc("[aria-busy=true]")).to_be_visible()
    held[0].continue_()
    expect(dana.loc("#name")).to_have_value("Dana")
    dana.tap("#join")
    expect(ana.loc('[data-test="member"] .name')).to_have_text(["Ana", "Dana"])
    expect(dana.loc('[data-test="member"][data-connected="true"]')).to_have_count(2)
    assert_clean([ana, dana])


class HeldRoom:
    """A phone's WebSocket, routed through Playwright: while ``holding``, the server's ``room``
    messages wait here instead of reaching the page, and ``release`` lets them through in order."""

    def __init__(self) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.page_side: WebSocketRoute | None = None

    def route(self, ws: WebSocketRoute) -> None:
        self.page_side = ws
        server_side = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            parts = [message]  # an array frame (docs/protocol.md, Frames): each message alone
            if isinstance(message, str) and message.startswith("["):
                parts = [json.dumps(m) for m in json.loads(message)]
            for part in parts:
                if self.holding and json.loads(part)["type"] == "room":
                    self.held.append(part)
                else:
                    ws.send(part)

        server_side.on_message(from_server)

    def release(self, count: int | None = None) -> None:
        assert self.page_side is not None
        for message in self.held[:count]:
            self.page_side.send(message)
        del self.held[:count]


def test_quick_option_changes_all_hold_when_the_answers_come_late(server: Any, phones: Any) -> None:
    """R-OPT-LIMIT, R-OPT-DISCARD, R-OPT-TIMER: the host changes an option, then another before
    the server's answer to the first has arrived. That late answer neither flicks the second
    change back on the host's phone nor becomes the base of the next change: the room ends with
    all three choices."""
    srv = server(1, clock_speed=2)
    ana = phones(srv, "Pixel 7", "ana")
    link = HeldRoom()
    ana.page.route_web_socket(re.compile(r"/ws/"), link.route)
    code = ana.create_room("Ana")
    expect(ana.loc("#opt-take")).to_be_enabled()
    # the phone's client seed (commit–reveal shuffle) is answered by a "room" too: let it land first
    wait_until(
        lambda: srv.request("GET", f"/api/rooms/{code}")[1]["members"][0]["seeded"],
        what="the client seed",
    )

    link.holding = True
    ana.page.select_option("#opt-limit", "50")  # answered by a "room" that is held
    ana.loc("#opt-take").check()  # changed before that answer arrives
    # (a late answer to the seed may be held first: it is just as stale)
    ana.wait_for(lambda: len(link.held) >= 2, what="two answers")
    # the first answer (limit 50, no taking) arrives late; the page draws it (a fresh lobby)
    ana.page.evaluate("document.querySelector('#opt-take').dataset.before = 'yes'")
    link.release(1)
    ana.page.wait_for_function("() => !document.querySelector('#opt-take').dataset.before")
    expect(ana.loc("#opt-take")).to_be_checked()  # the later change stands
    expect(ana.loc("#opt-limit")).to_have_value("50")

    ana.page.select_option("#opt-timer", "45")  # a third change, made on top of the other two
    link.holding = False
    link.release()
    wanted = {"limit": 50, "timer": 45, "take_discard": True}
    wait_until(
        lambda: srv.request("GET", f"/api/rooms/{code}")[1]["options"] == wanted,
        what="the room's options",
    )
    expect(ana.loc("#opt-limit")).to_have_value("50")
    expect(ana.loc("#opt-take")).to_be_checked()
    expect(ana.loc("#opt-timer")).to_have_value("45")
    assert_clean([ana])
