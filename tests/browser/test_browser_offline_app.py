"""The app without a network, in a real browser against a real ``crisp serve``: a service worker
keeps the versioned shell (the page, its modules and styles, never a room, a state, a record or
the API) from the first load on, a reload is served from it, a reload offline opens the last room
saying it is offline and will reconnect, and a new client version replaces the cache."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from playwright.sync_api import Route, expect

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

CACHES = "async () => (await caches.keys()).filter((k) => k.startsWith('crisp-shell-'))"
CACHED = """async () => { const out = [];
  for (const name of await caches.keys())
    for (const req of await (await caches.open(name)).keys()) out.push(new URL(req.url).pathname);
  return out; }"""


def seated_phone(srv: Any, phones: Any) -> tuple[Phone, str]:
    """A phone with its seat in a lobby, opened by the room link; the shell is kept once the
    service worker is active."""
    host = srv.create_room("Ana")
    ben = srv.join(host["code"], "Ben")
    phone = phones(srv, "Pixel 7", "ben", service_workers="allow")
    phone.page.add_init_script(
        f"localStorage.setItem('crisp.token.{host['code']}', '{ben['token']}')"
    )
    phone.page.goto(f"/r/{host['code']}")
    expect(phone.loc('[data-test="member"] .name')).to_have_text(["Ana", "Ben"])
    phone.page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    phone.page.wait_for_function(f"async () => ({CACHES})().then((k) => k.length === 1)")
    return phone, host["code"]


def test_the_shell_is_cached_and_a_reload_offline_opens_the_last_room(
    server: Any, phones: Any
) -> None:
    """Offline, a reload of the room link shows the app (not the browser's error page), with the
    room's code and a clear "offline — will reconnect"; back online it reconnects by itself. The
    cache holds only the shell: no room, state, record or API answer."""
    srv = server(1, clock_speed=1)
    ben, code = seated_phone(srv, phones)
    cached = ben.page.evaluate(CACHED)
    assert "/" in cached and "/static/app.js" in cached
    assert all(p == "/" or p.startswith("/static/") or p == "/manifest.webmanifest" for p in cached)
    assert not [p for p in cached if p.startswith(("/api", "/ws", "/r/"))]

    ben.context.set_offline(True)
    ben.page.reload()
    banner = ben.loc('[data-test="conn"]')
    expect(banner).to_have_text(re.compile("Offline — will reconnect"))
    expect(ben.loc('[data-test="offline-room"]')).to_contain_text(code[:4])
    loaded = ben.page.evaluate("() => performance.getEntriesByType('navigation')[0].responseEnd")
    print(f"reload offline: the page from the service worker in {loaded:.0f} ms")
    ben.shot(f"offline-reload-{ben.slug}")

    ben.context.set_offline(False)
    expect(banner).to_have_count(0)
    expect(ben.loc('[data-test="member"] .name')).to_have_text(["Ana", "Ben"])
    assert_clean([ben])


def test_a_new_client_version_replaces_the_cache(server: Any, phones: Any) -> None:
    """The worker is named by the client's version: a server with another version (its /sw.js
    differs) installs a new worker, whose cache replaces the old one."""
    srv = server(1, clock_speed=1)
    ben, _ = seated_phone(srv, phones)
    [old] = ben.page.evaluate(CACHES)

    def newer(route: Route) -> None:
        response = route.fetch()
        body = re.sub(r'const VERSION = "[^"]*"', 'const VERSION = "newer"', response.text())
        route.fulfill(response=response, body=body)

    ben.context.route("**/sw.js", newer)
    ben.page.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
    ben.page.wait_for_function(
        f"async () => JSON.stringify(await ({CACHES})()) === '[\"crisp-shell-newer\"]'"
    )
    assert old != "crisp-shell-newer"
    assert_clean([ben])
