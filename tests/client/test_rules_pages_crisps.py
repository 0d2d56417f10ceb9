"""The Crisps! rules pages (crisp/static/games/crisps/rules/<lang>.html), served as static files
like Crisp's (the shell's Rules link picks the room's game): one per language of the client, small,
self-contained (the rules.css the games' pages share, crisp/static/games/rules.css, no script, no
external address), zoomable, in their language, and naming every rule id of the rule book
(docs/rules-crisps.md, the repository's copy of docs/rules-crisps.md) with an anchor, and no other
id."""

from __future__ import annotations

import re

import pytest
from paths import ROOT
from test_client_i18n import LANGS, Page

PAGES = ROOT / "crisp" / "static" / "games" / "crisps" / "rules"
BOOK = ROOT / "docs" / "rules-crisps.md"
RULE_ID = re.compile(r"CS-[A-Z]+(?:-[A-Z]+)*")


def book_ids() -> list[str]:
    text = BOOK.read_text(encoding="utf-8")
    found = list(dict.fromkeys(re.findall(r"\*\*(CS-[A-Z-]+)\*\*", text)))
    assert len(found) > 30, "the rule book's ids were not found"
    return found


def test_a_page_per_language() -> None:
    assert {p.stem for p in PAGES.glob("*.html")} == set(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_page_is_small_self_contained_and_zoomable(lang: str) -> None:
    raw = (PAGES / f"{lang}.html").read_bytes()
    assert len(raw) <= 25 * 1024
    text = raw.decode("utf-8")
    page = Page(text)
    assert page.attrs("html")[0].get("lang") == lang
    viewport = next(m["content"] for m in page.attrs("meta") if m.get("name") == "viewport")
    assert "width=device-width" in viewport and "user-scalable" not in viewport
    assert "maximum-scale" not in viewport
    for tag in ("script", "img", "iframe", "object", "embed", "style"):
        assert not page.attrs(tag), f"{lang}.html: <{tag}>"
    assert page.attrs("link") == [{"rel": "stylesheet", "href": "../../rules.css"}]
    assert (PAGES.parent.parent / "rules.css").is_file()
    assert not re.search(r"https?://|@import|url\(", text, re.IGNORECASE)
    hrefs = [a.get("href", "") for a in page.attrs("a")]
    assert "/" in hrefs
    for href in hrefs:
        assert ":" not in href and not href.startswith("//"), href
        target = href.split("#")[0]
        if target and target != "/":
            assert (PAGES / target).is_file(), f"{lang}.html: broken link {href}"


@pytest.mark.parametrize("lang", LANGS)
def test_page_names_every_rule_of_the_book(lang: str) -> None:
    page = Page((PAGES / f"{lang}.html").read_text(encoding="utf-8"))
    shown = set(RULE_ID.findall(" ".join(page.text)))
    ids = book_ids()
    assert not [i for i in ids if i not in shown], f"{lang}.html misses some ids"
    assert not sorted(shown - set(ids)), f"{lang}.html names ids the book does not have"
    anchors = {a.get("id") for _, a in page.tags}
    assert not [i for i in ids if i not in anchors], "each rule has an anchor (#CS-…)"
