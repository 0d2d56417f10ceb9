"""For Crisps!: "Verify the shuffle" on a Crisps! phone checks the game's record
(``crisp/static/games/crisps/fairness.js``, loaded once the game is over) against what this phone
kept before the deal (``crisp.fair.crisps.<CODE>``: the lobby's commitment and the client seed it
sent). A whole game against a bot, by taps, on a server with real seeds:

- the true record: "verified: matches what this phone saw before the deal", in English, then in
  French and Japanese after a language switch;
- a forged record (the results page served a record re-dealt with a new server seed, a new
  commitment and no client seeds, by a Playwright route): the phone says it is not what it saw,
  naming the commitment and its client seed, never "verified". Before this change a Crisps!
  phone offered no verification at all (no "Verify the shuffle" in the results' menu)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean, wait_until
from playwright.sync_api import expect
from test_browser_crisps import due_phone, take_turn

from crisp.engine.common.fairness import Fairness, seed_from_int
from crisp.engine.crisps import CrispsGame
from crisp.engine.crisps.verify import verify_crisps

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
OVER = '[data-test="winners"]'
MATCHES = {
    "en": "verified: matches what this phone saw before the deal",
    "fr": "vérifié\u00a0: correspond à ce que ce téléphone a vu avant la donne",
    "ja": "検証済み：配る前にこのスマホが見たものと一致します",
}


@pytest.fixture
def unfixed_server(tmp_path: Any) -> Any:
    """A server with real seeds: the ``fixed_seed`` test setting empties every client seed."""
    from serverproc import ServerProcess

    srv = ServerProcess(tmp_path, clock_speed=4.0).start()
    yield srv
    srv.stop()


def _play_to_game_over(srv: Any, phones: Any) -> tuple[Phone, str]:
    """Ana opens a Crisps! room, adds a bot, starts, and plays the whole game by taps."""
    ana: Phone = phones(
        srv, "Pixel 7", "ana", viewport={"width": 320, "height": 658}, locale="en-GB"
    )
    ana.page.goto("/")
    ana.page.locator('[data-test="game-crisps"]').check()
    ana.page.fill("#name", "Ana")
    ana.tap("#create")
    expect(ana.loc('[data-test="lobby-game"]')).to_have_text("Crisps!")
    code = ana.loc('[data-test="room-code"]').inner_text().strip().replace("-", "")
    ana.tap('[data-test="add-bot"]')
    expect(ana.loc('[data-test="member"]')).to_have_count(2, timeout=TIMEOUT_MS)
    ana.tap("#start")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    for turn in range(600):
        wait_until(
            lambda: due_phone([ana]) or ana.loc(OVER).count(),
            timeout=20,
            what="Ana's turn (the bot has moved)",
        )
        if ana.loc(OVER).count():
            break
        take_turn(ana, turn)
    expect(ana.loc(OVER)).to_be_visible()
    return ana, code


def _verify(ana: Phone) -> str:
    """Tap "Verify the shuffle" in the results' menu; the verdict the phone shows. The verdict is
    visible without opening the menu again: the render that shows it keeps the menu open
    (before, morph.js closed the <details> the player had opened, hiding the verdict)."""
    verdict = ana.loc('[data-test="verified"]')
    before = (verdict.text_content() or "").strip() if verdict.count() else None
    button = ana.loc('[data-test="verify"]')
    expect(button).to_have_count(1, timeout=TIMEOUT_MS)  # before this change Crisps! had none
    if not button.is_visible():
        ana.tap('[data-test="results-menu"] summary')
    button.tap()
    expect(verdict).to_be_visible(timeout=TIMEOUT_MS)
    if before is not None:  # a second tap: wait for the new verdict (another record, language)
        ana.wait_for(lambda: (verdict.text_content() or "").strip() != before, "a new verdict")
    expect(verdict).to_be_visible()
    return (verdict.text_content() or "").strip()


def _shot(ana: Phone, name: str) -> None:
    """A screenshot with the verdict on screen."""
    ana.loc('[data-test="verified"]').scroll_into_view_if_needed()
    ana.shot(name)


def _set_language(ana: Phone, lang: str) -> None:
    """The phone in another language: the header's language menu where it shows (a wide
    screen), else the one under the results (a small phone: before, its results had none)."""
    menu = "#lang" if ana.loc("#lang").is_visible() else "#lang-menu"
    expect(ana.loc(menu)).to_be_visible()
    ana.page.select_option(menu, lang)
    expect(ana.page.locator("html")).to_have_attribute("lang", lang)
    expect(ana.loc(OVER)).to_be_visible()


def _forged(record: dict[str, Any]) -> dict[str, Any]:
    """The game re-dealt from a new server seed (so a new commitment) and no client seeds: a
    record that verifies by itself, but not the game this phone saw committed and seeded."""
    game = CrispsGame(list(record["players"]), fairness=Fairness(seed_from_int(987654), ("", "")))
    game.start()
    rng = random.Random(31)
    while not game.over:
        assert game.due is not None
        game.apply(game.due[0], rng.choice(game.legal_moves(game.due[0])), game.now + 1)
    forged = game.record()
    assert forged["fairness"]["commitment"] != record["fairness"]["commitment"]
    assert verify_crisps(json.loads(json.dumps(forged)))[0]  # it verifies by itself
    return forged


def _kept(ana: Phone, code: str) -> list[dict[str, Any]]:
    raw = ana.page.evaluate(f"localStorage.getItem('crisp.fair.crisps.{code}')")
    kept: list[dict[str, Any]] = json.loads(raw or "[]")
    return kept


def test_a_finished_crisps_game_matches_what_the_phone_saw_before_the_deal(
    unfixed_server: Any, phones: Any
) -> None:
    """The phone kept the lobby's commitment and the seed it sent; the true
    record verifies and matches them, said in the phone's language (en, fr, ja)."""
    ana, code = _play_to_game_over(unfixed_server, phones)
    record = ana.page.evaluate(f"fetch('/api/rooms/{code}/record').then((r) => r.json())")
    assert record["format"] == "crisps-record/1"
    seat = record["players"].index("Ana")
    mine = record["fairness"]["client_seeds"][seat]
    assert re.fullmatch(r"[0-9a-f]{32}", mine), record["fairness"]
    assert {"commitment": record["fairness"]["commitment"], "seed": mine} in _kept(ana, code)
    assert verify_crisps(record)[0]
    said = _verify(ana)
    print(f"\nen: {said!r}")
    assert said == MATCHES["en"]
    _shot(ana, "crisps-verify-true-record-en")
    for lang in ("fr", "ja"):
        _set_language(ana, lang)
        said = _verify(ana)
        print(f"{lang}: {said!r}")
        assert said == MATCHES[lang]
        _shot(ana, f"crisps-verify-true-record-{lang}")
    assert_clean([ana])


def test_a_forged_crisps_record_is_not_verified_against_what_the_phone_saw(
    unfixed_server: Any, phones: Any
) -> None:
    """A results page served a record re-dealt with a new server seed, a new
    commitment and no client seeds (it verifies by itself): the phone says what differs from what
    it saw in the lobby (the commitment, its client seed), never "verified", in English and in
    French; the true record, served again, matches."""
    ana, code = _play_to_game_over(unfixed_server, phones)
    true_record = ana.page.evaluate(f"fetch('/api/rooms/{code}/record').then((r) => r.json())")
    forged = _forged(true_record)
    route = f"**/api/rooms/{code}/record"
    ana.page.route(
        route,
        lambda r: r.fulfill(status=200, content_type="application/json", body=json.dumps(forged)),
    )
    said = _verify(ana)
    _shot(ana, "crisps-verify-forged-record-en")
    print(f"\nforged, en: {said!r}")
    assert not said.startswith("verified"), said
    assert said.startswith("not what this phone saw: the record's commitment"), said
    assert forged["fairness"]["commitment"][:12] in said, said
    assert true_record["fairness"]["commitment"][:12] in said, said
    assert said.endswith("this phone's client seed is missing from the record"), said
    _set_language(ana, "fr")
    said = _verify(ana)
    _shot(ana, "crisps-verify-forged-record-fr")
    print(f"forged, fr: {said!r}")
    assert not said.startswith("vérifié"), said
    assert said.startswith("pas ce que ce téléphone a vu\u00a0: l’engagement"), said
    assert said.endswith("la graine de ce téléphone manque au relevé"), said
    # the true record, served again: it matches what the phone kept
    ana.page.unroute(route)
    assert _verify(ana) == MATCHES["fr"]
    assert_clean([ana])
