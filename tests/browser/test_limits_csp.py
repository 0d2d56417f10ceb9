"""The phone client under the server's strict Content-Security-Policy (crisp/server/http/guard.py):
home, a room created by a tap, the QR code, the join screen of a link, a join by a second phone,
the start and the table with its animations; no ``securitypolicyviolation`` event and no console
error on any page. Every violation seen is printed (directive, source, line, sample)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, assert_clean
from playwright.sync_api import expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push({
  directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile,
  line: e.lineNumber, sample: e.sample,
}));
"""


def violations(phone: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = phone.page.evaluate("window.__csp || []")
    return found


def test_the_client_runs_under_the_strict_csp(server: Any, phones: Any) -> None:
    srv = server(7, 5.0)
    host = phones(srv, "Pixel 7", "host")
    guest = phones(srv, "iPhone 13", "guest")
    for phone in (host, guest):
        phone.context.add_init_script(RECORD_VIOLATIONS)
    csp = host.page.goto("/").headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    code = host.create_room("Ana")
    expect(host.loc('[data-test="qr"]')).to_be_visible()
    guest.page.goto(f"/r/{code}")
    guest.page.fill("#name", "Bo")
    guest.tap("#join")
    for phone in (host, guest):
        expect(phone.loc('[data-test="member"][data-connected="true"]')).to_have_count(2)
    host.tap("#start")
    for phone in (host, guest):
        expect(phone.loc('[data-test="hand"]')).to_be_visible()
    host.page.wait_for_timeout(500)  # the deal's animations
    seen = {phone.label: violations(phone) for phone in (host, guest)}
    for label, found in seen.items():
        for v in found:
            print(f"\n{label}: CSP violation {v}")
    assert seen == {"host": [], "guest": []}
    assert_clean([host, guest])
    # The detector works: markup with a style attribute (what an innerHTML template must not
    # carry) and an inline script are both refused and recorded.
    host.page.evaluate("""() => {
      document.body.insertAdjacentHTML("beforeend", '<p style="color: red">x</p>');
      const s = document.createElement("script"); s.textContent = "window.__ran = 1";
      document.body.append(s);
    }""")
    host.page.wait_for_timeout(200)
    directives = {v["directive"] for v in violations(host)}
    assert {"style-src-attr", "script-src-elem"} <= directives, directives
    assert host.page.evaluate("window.__ran") is None
