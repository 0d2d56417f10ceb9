"""The "Verify the shuffle" button in a real browser. ``crisp/static/games/crisp/fairness.js``
(WebCrypto, and its own SHA-256 where the page is not a secure context, as on a LAN address over
http) agrees with ``crisp verify`` on 20 finished games and on a tampered copy of each: the same
verdict, the same first difference, the same count of rounds checked."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM
from paths import ROOT

from crisp.engine.common.fairness import Fairness, seed_from_int
from crisp.engine.crisp import Options
from crisp.engine.crisp.simulate import play_random
from crisp.engine.crisp.verify import verify_record

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
STATIC = ROOT / "crisp" / "static"


def _static(route: Any) -> None:
    """The client's modules, from the tree (fairness.js imports ../common/fairness.js)."""
    path = route.request.url.split("/static/", 1)[1].split("?", 1)[0]
    file = (STATIC / path).resolve()
    if not file.is_relative_to(STATIC) or not file.is_file():
        route.fulfill(status=404, body="")
        return
    route.fulfill(status=200, content_type="text/javascript", body=file.read_text("utf-8"))


# Client seeds as phones send them (32 hex digits), bots' (""), and what else a seed may be: the
# game key hashes JSON.stringify's bytes in the browser and json.dumps' in Python.
ODD_SEEDS = ["", "a1b2", 'quote " and \\ back', "é 日本 🃏", "tab\tnew\nline\x01", "x" * 64]
TAMPERS = ["deck", "server_seed", "client_seed", "commitment", "dealer"]


def _seeds(k: int, n: int) -> tuple[str, ...]:
    if k % 2:
        return tuple(ODD_SEEDS[(k + s) % len(ODD_SEEDS)] for s in range(n))
    return tuple(seed_from_int(1000 * k + s).hex()[:32] if s % 3 else "" for s in range(n))


def _games() -> list[dict[str, Any]]:
    records = []
    for k in range(20):
        n = 2 + k % 7
        options = Options(
            limit=50 if k % 3 else 100, timer=30 if k % 4 == 1 else None, take_discard=k % 5 == 2
        )
        fair = Fairness(seed_from_int(500 + k), _seeds(k, n))
        game = play_random(n, options, 700 + k, fairness=fair)
        assert game.over
        records.append(game.record())
    return records


def _tampered(record: dict[str, Any], k: int) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    kind = TAMPERS[k % len(TAMPERS)]
    rounds = bad["rounds"]
    fair = bad["fairness"]
    if kind == "deck":
        deck = rounds[k % len(rounds)]["deck"]
        i, j = k % 52, (k * 7 + 13) % 52
        deck[i], deck[j] = deck[j], deck[i]
    elif kind in ("server_seed", "commitment"):
        fair[kind] = fair[kind][:-1] + ("f" if fair[kind][-1] != "f" else "0")
    elif kind == "client_seed":
        fair["client_seeds"][k % len(fair["client_seeds"])] += "!"
    else:
        r = rounds[k % len(rounds)]
        r["dealer"] = (r["dealer"] + 1) % len(bad["players"])
    return bad


def _run(chromium: Any, origin: str, records: list[Any], subtle: bool) -> list[dict[str, Any]]:
    """``verifyRecord`` on each record in a page of ``origin`` (served by a route: no server)."""
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.route(
            f"{origin}/",
            lambda route: route.fulfill(
                status=200, content_type="text/html", body="<!doctype html><title>verify</title>"
            ),
        )
        page.route(f"{origin}/static/**", _static)
        page.goto(f"{origin}/")
        has_subtle = page.evaluate("() => Boolean(globalThis.crypto && crypto.subtle)")
        assert has_subtle is subtle, f"{origin}: crypto.subtle {'missing' if subtle else 'there'}"
        result: list[dict[str, Any]] = page.evaluate(
            """async (records) => {
                const { verifyRecord } = await import("/static/games/crisp/fairness.js");
                const out = [];
                for (const r of records) out.push(await verifyRecord(r));
                return out;
            }""",
            records,
        )
        return result
    finally:
        context.close()


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    games = _games()
    return [*games, *(_tampered(g, k) for k, g in enumerate(games))]


@pytest.mark.parametrize(
    ("origin", "subtle"),
    [("http://127.0.0.1:8765", True), ("http://crisp-lan.test:8000", False)],
    ids=["webcrypto", "insecure-context"],
)
def test_browser_agrees_with_crisp_verify(
    browser: Any, records: list[dict[str, Any]], origin: str, subtle: bool
) -> None:
    python = []
    for record in records:
        v = verify_record(json.loads(json.dumps(record)))
        python.append({"ok": v.ok, "message": v.message, "rounds": v.rounds})
    honest, tampered = python[:20], python[20:]
    assert all(v == {"ok": True, "message": "verified", "rounds": v["rounds"]} for v in honest)
    assert not any(v["ok"] for v in tampered)
    kinds: dict[str, str] = {}
    for k, v in enumerate(tampered):
        kinds.setdefault(TAMPERS[k % len(TAMPERS)], v["message"])
    assert kinds["server_seed"].startswith("fairness.commitment differs")
    assert kinds["deck"].startswith("rounds[0].deck differs")
    js = _run(browser, origin, records, subtle)
    assert js == python
    print(
        f"\n{origin}: {sum(v['ok'] for v in js)} verified, {len(js) - sum(v['ok'] for v in js)}"
        f" differ, {sum(v['rounds'] for v in js)} decks checked; e.g. {kinds['deck']}"
    )


def test_browser_says_why_it_cannot_verify(browser: Any) -> None:
    """Malformed, unfinished or pre-scheme records: ``ok`` false, "cannot verify: …", no throw."""
    unfinished = play_random(3, Options(), 4, fair=True, max_actions=20).record()
    legacy = play_random(2, Options(), 4).record()
    cases = ["{", {"format": "crisp-record/1"}, unfinished, legacy]
    got = _run(browser, "http://127.0.0.1:8765", cases, True)
    assert [g["ok"] for g in got] == [False] * 4
    assert all(g["message"].startswith("cannot verify: ") and g["rounds"] == 0 for g in got)
    assert "only once the game is over" in got[2]["message"]
    assert "no fairness" in got[3]["message"]


# -- the phone checks the record against what it saw before the deal ----------------------------


def _play_to_game_over(srv: Any, phones: Any) -> tuple[Any, str]:
    """A phone and a bot play a game of Crisp to its end (limit 50, crisp at once: short)."""
    from browser import TIMEOUT_MS, TapPlayer, play_until
    from playwright.sync_api import expect

    ana = phones(srv, "Pixel 7", "ana", locale="en-GB")
    code = ana.create_room("Ana")
    ana.page.select_option("#opt-limit", "50")
    expect(ana.loc("#opt-limit")).to_have_value("50", timeout=TIMEOUT_MS)
    ana.tap('[data-test="add-bot"]')
    expect(ana.loc('[data-test="member"]')).to_have_count(2, timeout=TIMEOUT_MS)
    ana.tap("#start")
    play_until(
        [TapPlayer(ana, crisp_after=0)],
        lambda: ana.loc('[data-test="winners"]').count() > 0,
        timeout=300,
    )
    return ana, code


def _forged(record: dict[str, Any]) -> dict[str, Any]:
    """The game re-dealt from a new server seed (so a new commitment) and no client seeds: a record
    that verifies by itself, but not the game this phone saw committed and seeded."""
    n = len(record["players"])
    fair = Fairness(seed_from_int(987654), ("",) * n)
    game = play_random(n, Options(limit=50), 31, fairness=fair)
    forged = game.record()
    forged["players"] = list(record["players"])
    assert forged["fairness"]["commitment"] != record["fairness"]["commitment"]
    assert verify_record(json.loads(json.dumps(forged))).ok  # it verifies by itself
    return forged


@pytest.fixture
def unfixed_server(tmp_path: Any) -> Any:
    """A server with real seeds: the ``fixed_seed`` test setting empties every client seed."""
    from serverproc import ServerProcess

    srv = ServerProcess(tmp_path, clock_speed=4.0).start()
    yield srv
    srv.stop()


def test_a_forged_record_is_not_verified_against_what_the_phone_saw(
    unfixed_server: Any, phones: Any
) -> None:
    """A results page served a record re-dealt with a new server seed, a new
    commitment and no client seeds: the phone says what differs from what it saw in the lobby
    (the commitment, its client seed), never "verified"; the true record "matches what this phone
    saw before the deal"."""
    from browser import TIMEOUT_MS
    from playwright.sync_api import expect

    ana, code = _play_to_game_over(unfixed_server, phones)
    true_record = ana.page.evaluate(f"fetch('/api/rooms/{code}/record').then((r) => r.json())")
    forged = _forged(true_record)
    ana.page.route(
        f"**/api/rooms/{code}/record",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(forged)
        ),
    )
    verdict = ana.loc('[data-test="verified"]')

    def verify() -> str:
        # the menu is a <details>: open it when a re-render closed it
        if not ana.loc('[data-test="verify"]').is_visible():
            ana.tap('[data-test="results-menu"] summary')
        ana.tap('[data-test="verify"]')
        expect(verdict).to_have_count(1, timeout=TIMEOUT_MS)
        return (verdict.text_content() or "").strip()

    said = verify()
    ana.shot("verify-forged-record")
    print(f"\nforged: {said!r}")
    assert said.strip() != "verified", said
    assert "commitment" in said, said
    assert "client seed" in said, said
    # the true record: it matches what the phone kept
    ana.page.unroute(f"**/api/rooms/{code}/record")
    verify()
    expect(verdict).to_have_text("verified: matches what this phone saw before the deal")
    ana.shot("verify-true-record")
