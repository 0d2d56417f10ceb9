"""An operator's ``crisp rooms close CODE`` reaches the phones as close code
4405 (ROOM_CLOSED), and the phone says so on its home screen, in its language, instead of
reconnecting into "no such room"."""

from __future__ import annotations

from typing import Any

import pytest
from browser import CHROMIUM
from crisp_cmd import crisp
from playwright.sync_api import expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)

SAID = {
    "en-GB": "The server’s operator closed the room",
    "fr-FR": "L’administrateur du serveur a fermé le salon",
}


@pytest.mark.parametrize("locale", sorted(SAID))
def test_a_closed_room_is_told_on_the_phone(server: Any, phones: Any, locale: str) -> None:
    srv = server(3, 1.0)
    host = srv.create_room("Ana")
    code = host["code"]
    ana = phones(srv, "Pixel 7", "ana", locale=locale)
    ana.page.goto("/")
    ana.page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)", [f"crisp.token.{code}", host["token"]]
    )
    ana.page.goto(f"/r/{code}")
    expect(ana.loc('[data-test="member"][data-connected="true"]')).to_have_count(1)
    done = crisp("rooms", "close", code, "--data-dir", str(srv.data_dir), "--url", srv.base)
    assert done.returncode == 0, done.stderr
    expect(ana.page.get_by_text(SAID[locale])).to_be_visible()
    assert ana.page.evaluate("(k) => localStorage.getItem(k)", f"crisp.token.{code}") is None
    assert ana.errors == [], ana.errors
