"""Teach in play, in Chromium: on a first game the guide says what a drawn
King, Queen and Jack do, one sentence each, while the human holds it, and the crisp-window line
with its countdown shows while the human waits for their turn, and again for their own window
after their turn (it used to give way at once to "Ada is playing"). The deal is fixed on purpose: a
``CRISP_FIXED_SEED`` server (tests/browser/conftest.py) deals ``Fairness.from_int(S, 2)``, and
``court_seed`` searches for an S whose deal gives the human (seat 0, the dealer: the bot plays
first, R-FIRST) a King, then a Queen, then a Jack in one turn (R-KING: two extra draws). The test
asserts the drawn ranks on the page, so a changed deal cannot make it pass silently.
Screenshots: tests/artifacts/teach/."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

from browser import CHROMIUM, TIMEOUT_MS, Phone, assert_clean
from paths import TESTS
from playwright.sync_api import expect
from seeded import fixed_deck, fixed_first_dealer

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)
expect.set_options(timeout=TIMEOUT_MS)

LOCALES = {"en": "en-US", "fr": "fr-FR", "ja": "ja-JP"}
# One sentence each (games/crisp/i18n/*.js guide.king, guide.queen, guide.jack) and the wait line.
COURT = {
    "en": {
        "K": "A King ({card}): use it to discard it and draw twice more.",
        "Q": "A Queen ({card}): use it to swap one of your cards with any card of another "
        "player; nobody sees the cards.",
        "J": "A Jack ({card}): use it to look at your own middle card, once.",
    },
    "fr": {
        "K": "Un Roi ({card}) : joue-le pour le défausser et piocher deux fois de plus.",
        "Q": "Une Dame ({card}) : joue-la pour échanger une de tes cartes avec n’importe quelle "
        "carte d’un autre joueur ; personne ne voit les cartes.",
        "J": "Un Valet ({card}) : joue-le pour regarder une fois ta carte du milieu.",
    },
    "ja": {
        "K": "K（{card}）：使うと捨てて、さらに2回引けます。",
        "Q": "Q（{card}）：使うと自分のカード1枚を他の人の好きなカードと交換します。"
        "カードは誰にも見えません。",
        "J": "J（{card}）：使うと自分の真ん中のカードを一度見られます。",
    },
}
WAIT = {
    "en": re.compile(r"Your turn next: .+ has 3 s to call crisp after their turn\."),
    "fr": re.compile(r"À toi ensuite\s: .+ a 3 s pour dire crisp après son tour\."),
    "ja": re.compile(r"次はあなたの番：.+さんは自分の番のあと3秒間クリスプを宣言できます。"),
}
# games/crisp/i18n/*.js guide.draw: once the window is over, the tip is the status line's (Draw)
DRAW = {
    "en": "Your turn: tap Draw to draw a card.",
    "fr": "À toi : touche Piocher pour piocher une carte.",
    "ja": "あなたの番です。「引く」をタップしてカードを引きましょう。",
}
# games/crisp/i18n/*.js guide.window: Ana's own crisp window after her turn (its countdown is the
# table's: the tip holds no number that could go stale)
WINDOW = {
    "en": re.compile(r"Your crisp window: tap Crisp before it closes"),
    "fr": re.compile(r"Ta fenêtre crisp\s: touche Crisp avant qu’elle se ferme"),
    "ja": re.compile(r"クリスプのチャンス：締め切り前に"),
}
PLAYERS = 2
HOST = 0


def court_seed() -> int:
    """R-DEALER, R-DEAL, R-FIRST, R-KING: the first seed whose first dealer is the host (seat 0:
    the bot plays first and draws the first card after the deal, not a King) and whose next three
    cards are a King, a Queen and a Jack: the host's turn is draw K, use it, draw Q, draw J."""
    first = 3 * PLAYERS
    for s in range(1, 200_000):
        if fixed_first_dealer(s, PLAYERS) != HOST:
            continue
        ranks = [c[0] for c in fixed_deck(s, PLAYERS)[first : first + 4]]
        if ranks[0] != "K" and ranks[1:] == ["K", "Q", "J"]:
            return s
    raise AssertionError("no such seed")


def shot(phone: Phone, name: str) -> None:
    out = TESTS / "artifacts" / "teach"
    out.mkdir(parents=True, exist_ok=True)
    phone.page.screenshot(path=str(out / f"{name}.png"), scale="css", animations="disabled")


@pytest.mark.parametrize("lang", list(LOCALES))
def test_guide_tells_king_queen_jack_and_the_window(server: Any, phones: Any, lang: str) -> None:
    """The waiting line names the previous player's 3 s crisp window (no number of its
    own that could go stale: when Draw opens, the tip says to tap Draw, as the status line does);
    then the human holds a King (R-KING), a Queen (R-QUEEN), a Jack (R-JACK), for sure (the ranks
    are read from the page), and the guide says what each does in one sentence."""
    seed = court_seed()
    deck = fixed_deck(seed, PLAYERS)
    king, queen, jack = deck[3 * PLAYERS + 1 : 3 * PLAYERS + 4]
    srv = server(seed, clock_speed=0.5)
    ana = phones(srv, "Pixel 7", "ana", guide=True, locale=LOCALES[lang])
    ana.page.goto("/")
    ana.page.fill("#name", "Ana")
    ana.page.select_option("#practice-bots", "1")
    ana.tap("#practice")
    expect(ana.loc('[data-test="hand"]')).to_be_visible()
    assert ana.seat() == HOST
    text = ana.loc('[data-test="guide-text"]')
    ana.tap(ana.action("ready"))
    # the bot plays first; then its crisp window: Ana waits, and the guide says why
    expect(text).to_have_text(WAIT[lang], timeout=60_000)
    expect(text).to_be_in_viewport(ratio=1)
    shot(ana, f"court-wait-{lang}")
    sentences = COURT[lang]
    expect(ana.action("draw")).to_be_enabled(timeout=30_000)
    expect(text).to_have_text(DRAW[lang])  # the wait is over: the tip says so with the status
    ana.tap(ana.action("draw"))
    assert ana.held() == king, "the deal gives Ana a King first"
    expect(text).to_have_text(sentences["K"].format(card=ana.name_of(king)))
    shot(ana, f"court-king-{lang}")
    ana.tap(ana.action("king"))
    expect(ana.action("draw")).to_be_enabled()
    ana.tap(ana.action("draw"))
    expect(ana.loc('[data-test="held"].up .face[data-card]').first).to_have_attribute(
        "data-card", queen
    )
    assert ana.held() == queen, "then a Queen"
    expect(text).to_have_text(sentences["Q"].format(card=ana.name_of(queen)))
    shot(ana, f"court-queen-{lang}")
    ana.tap(ana.action("discard"))
    expect(ana.action("draw")).to_be_enabled()
    ana.tap(ana.action("draw"))
    expect(ana.loc('[data-test="held"].up .face[data-card]').first).to_have_attribute(
        "data-card", jack
    )
    assert ana.held() == jack, "then a Jack"
    expect(text).to_have_text(sentences["J"].format(card=ana.name_of(jack)))
    shot(ana, f"court-jack-{lang}")
    ana.tap(ana.action("jack"))  # R-JACK: she looks at her middle card; her turn ends
    expect(text).to_have_text(WINDOW[lang])
    expect(ana.action("crisp")).to_be_visible()  # the window the line tells of is open
    shot(ana, f"court-window-{lang}")
    assert_clean([ana])
