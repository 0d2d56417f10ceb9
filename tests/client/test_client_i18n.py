"""The phone client's strings and rules pages, without a browser.

- the strings are in catalogues, one folder each: the shell's (crisp/static/i18n/), the games
  registry's (crisp/static/games/i18n/: what the home page says of each game) and each game's
  (crisp/static/games/<game>/i18n/, loaded with the game); in each folder every language has
  exactly the keys of en.js, the same {placeholders} per key, and no empty string; no key is in
  two folders;
- every key the client code asks for with t("…") exists in a catalogue it loads: the shell's code
  the shell's and the registry's, a game's code those and its own (never another game's);
- every language of LANGUAGES (crisp/static/i18n.js) has a catalogue and a rules page;
- the rules pages are self-contained, zoomable, in the right language, and name every rule id of
  docs/rules.md (R-…), so that players and developers can refer to them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from paths import ROOT

STATIC = ROOT / "crisp" / "static"
I18N = STATIC / "i18n"
# Every catalogue folder: the shell's, the games registry's, each game's.
CATALOGUES = [I18N, STATIC / "games" / "i18n", *sorted(STATIC.glob("games/*/i18n"))]
RULES_DIR = STATIC / "games" / "crisp" / "rules"
RULES_CSS = STATIC / "games" / "rules.css"  # beside every game's folder, shared by their pages
# The ids of the normative rule book (docs/rules.md), copied here and checked against it.
RULES_MD = ROOT / "docs" / "rules.md"
RULE_IDS = (
    "R-PLAYERS",
    "R-DECK",
    "R-DEALER",
    "R-DEAL",
    "R-FIRST",
    "R-LOOK-START",
    "R-SHUFFLE",
    "R-VALUE",
    "R-FACE-IN-HAND",
    "R-TURN",
    "R-DRAW",
    "R-SWAP",
    "R-DISCARD",
    "R-SPECIAL",
    "R-JACK",
    "R-QUEEN",
    "R-QUEEN-LOOK",
    "R-QUEEN-TARGET",
    "R-KING",
    "R-RECYCLE",
    "R-CRISP",
    "R-CRISP-ONCE",
    "R-FINAL-TURNS",
    "R-NO-CALL",
    "R-ROUND-SCORE",
    "R-CALLER-BONUS",
    "R-CUMULATIVE",
    "R-GAME-END",
    "R-OPT-LIMIT",
    "R-OPT-TIMER",
    "R-OPT-DISCARD",
    "R-WINDOW",
    "R-WINDOW-LAG",
    "R-WINDOW-NONE",
    "R-LOOK-PHASE",
    "R-EDGES",
    "R-TIMER",
    "R-TIMEOUT",
    "R-TAKE-DISCARD",
    "R-SEE-DRAWN",
    "R-SEE-LOOK",
    "R-SEE-PUBLIC",
    "R-SEE-REVEAL",
    "R-SEE-STORY",
    "R-NO-TRACE",
)
RULE_ID = re.compile(r"R-[A-Z-]+")

# Keys the client builds at run time (games/crisp/table.js: t(`slot.${slot}`),
# t(`botlevel.${level}`)), and every key each can give.
DYNAMIC_KEYS = {
    "slot.${}": ("slot.left", "slot.middle", "slot.right"),
    "botlevel.${}": ("botlevel.easy", "botlevel.normal", "botlevel.hard", "botlevel.random"),
    "home.about.${}": ("home.about.crisp", "home.about.crisps"),
    "combo.${}.${}": tuple(
        f"combo.{how}.{kind}"
        for how in ("name", "a")
        for kind in ("single", "pair", "run", "pair_run", "three", "four")
    ),
}

ENTRY = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')
PLACEHOLDER = re.compile(r"\{(\w+)\}")


# -- helpers -------------------------------------------------------------------------------------


def load_catalogue(path: Path) -> dict[str, str]:
    """Parse `export default { "key": "value", … };` — one entry a line, comments allowed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    code = [
        (n, line.strip())
        for n, line in enumerate(lines, 1)
        if line.strip() and not line.strip().startswith("//")
    ]
    assert code, f"{path.name} is empty"
    assert code[0][1] == "export default {", f"{path.name}: must open with `export default {{`"
    assert code[-1][1] == "};", f"{path.name}: must end with `}};`"
    entries: dict[str, str] = {}
    for n, line in code[1:-1]:
        match = ENTRY.match(line)
        assert match, f'{path.name}:{n}: not a `"key": "value",` line: {line!r}'
        key, value = json.loads(match[1]), json.loads(match[2])
        assert key not in entries, f"{path.name}:{n}: duplicate key {key!r}"
        entries[key] = value
    return entries


def languages() -> dict[str, str]:
    source = (STATIC / "i18n.js").read_text(encoding="utf-8")
    match = re.search(r"export const LANGUAGES\s*=\s*\{([^}]*)\}", source)
    assert match, "LANGUAGES not found in i18n.js"
    found = dict(re.findall(r"""(\w+)\s*:\s*["']([^"']+)["']""", match[1]))
    assert "en" in found
    return found


def first_argument(source: str, start: int) -> str:
    """The text of a call's first argument, from just after its opening parenthesis."""
    depth, quote, i = 0, "", start
    while i < len(source):
        c = source[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return source[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return source[start:i]
        i += 1
    raise AssertionError(f"unterminated call at offset {start}")


def keys_asked_for(
    files: list[Path] | None = None,
) -> tuple[dict[str, set[str]], dict[str, set[str]], list[str]]:
    """Literal keys, dynamic key templates (as `prefix.${}`) and non-literal arguments of t()
    (in ``files``: by default every module of the client)."""
    literal: dict[str, set[str]] = {}
    dynamic: dict[str, set[str]] = {}
    opaque: list[str] = []
    for path in sorted(STATIC.rglob("*.js")) if files is None else files:
        if path.parent.name == "i18n":
            continue  # a catalogue
        source = path.read_text(encoding="utf-8")
        for call in re.finditer(r"(?<![\w$.])t\(", source):
            if re.search(r"function\s+$", source[: call.start()]):
                continue  # the definition of t itself
            arg = first_argument(source, call.end())
            strings = re.findall(r""""([^"\\]*)"|'([^'\\]*)'""", arg)
            templates = re.findall(r"`([^`]*)`", arg)
            for pair in strings:
                literal.setdefault(pair[0] or pair[1], set()).add(path.name)
            for template in templates:
                dynamic.setdefault(re.sub(r"\$\{[^}]*\}", "${}", template), set()).add(path.name)
            if not strings and not templates:
                opaque.append(f"{path.name}: t({arg.strip()}")
    return literal, dynamic, opaque


class Page(HTMLParser):
    """What the tests need from a rules page."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def attrs(self, tag: str) -> list[dict[str, str]]:
        return [a for t, a in self.tags if t == tag]


LANGS = sorted(languages())
OTHER_LANGS = [lang for lang in LANGS if lang != "en"]


def folder_name(folder: Path) -> str:
    return folder.relative_to(STATIC).as_posix()


def catalogue(lang: str, folders: list[Path] = CATALOGUES) -> dict[str, str]:
    """The strings of ``lang`` in ``folders`` (by default all), as the client merges them."""
    out: dict[str, str] = {}
    for folder in folders:
        out.update(load_catalogue(folder / f"{lang}.js"))
    return out


@pytest.fixture(scope="module")
def en() -> dict[str, str]:
    return catalogue("en")


FOLDER_LANGS = [(f, lang) for f in CATALOGUES for lang in OTHER_LANGS if f]
FOLDER_IDS = [f"{folder_name(f)}-{lang}" for f, lang in FOLDER_LANGS]


# -- catalogues ----------------------------------------------------------------------------------


def test_every_language_has_a_catalogue_and_a_rules_page() -> None:
    for lang in LANGS:
        assert (I18N / f"{lang}.js").is_file(), f"no catalogue crisp/static/i18n/{lang}.js"
        page = RULES_DIR / f"{lang}.html"
        assert page.is_file(), f"no rules page {RULES_DIR}/{lang}.html"
    assert {p.stem for p in RULES_DIR.glob("*.html")} == set(LANGS), "a rules page not in LANGUAGES"
    for folder in CATALOGUES:
        found = {p.stem for p in folder.glob("*.js")}
        assert found == set(LANGS), f"{folder_name(folder)}: catalogues {found}, not LANGUAGES"


def test_no_key_is_in_two_catalogues() -> None:
    """A key has one home: the shell's catalogue, the registry's or one game's."""
    seen: dict[str, str] = {}
    for folder in CATALOGUES:
        for key in load_catalogue(folder / "en.js"):
            assert key not in seen, f"{key} is in {seen[key]} and {folder_name(folder)}"
            seen[key] = folder_name(folder)


@pytest.mark.parametrize("lang", LANGS)
def test_catalogue_names_its_language(lang: str) -> None:
    """The language menu (LANGUAGES) and the catalogue's lang.name agree."""
    assert load_catalogue(I18N / f"{lang}.js")["lang.name"] == languages()[lang]


@pytest.mark.parametrize(("folder", "lang"), FOLDER_LANGS, ids=FOLDER_IDS)
def test_catalogue_has_exactly_the_keys_of_en(folder: Path, lang: str) -> None:
    en = load_catalogue(folder / "en.js")
    cat = load_catalogue(folder / f"{lang}.js")
    missing, extra = sorted(en.keys() - cat.keys()), sorted(cat.keys() - en.keys())
    where = folder_name(folder)
    assert not missing and not extra, f"{where}/{lang}.js: missing {missing}, not in en.js {extra}"


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_catalogue_has_the_placeholders_of_en(lang: str, en: dict[str, str]) -> None:
    cat = catalogue(lang)
    wrong = {
        key: (sorted(set(PLACEHOLDER.findall(en[key]))), sorted(set(PLACEHOLDER.findall(value))))
        for key, value in cat.items()
        if key in en and set(PLACEHOLDER.findall(en[key])) != set(PLACEHOLDER.findall(value))
    }
    assert not wrong, f"{lang}.js: placeholders differ from en.js (en, {lang}): {wrong}"


@pytest.mark.parametrize("lang", LANGS)
def test_catalogue_strings_are_filled_and_safe_in_html(lang: str) -> None:
    """No empty string; no < > & " (kept plain: the strings go into HTML text and attributes)."""
    cat = catalogue(lang)
    assert not [k for k, v in cat.items() if not v.strip()], f"{lang}.js: empty strings"
    unsafe = {k: v for k, v in cat.items() if re.search(r'[<>&"]', v)}
    assert not unsafe, f"{lang}.js: characters that need escaping in HTML: {unsafe}"


@pytest.mark.parametrize("lang", LANGS)
def test_look_status_names_the_ready_button(lang: str) -> None:
    """status.look tells the player to tap the button act.ready labels."""
    cat = catalogue(lang)
    assert cat["act.ready"] in cat["status.look"]


def test_french_typography_uses_no_break_spaces() -> None:
    """A plain space before : ; ! ? would let the sign wrap alone onto the next line."""
    cat = catalogue("fr")
    bad = {k: v for k, v in cat.items() if re.search(r" [:;!?»]|« ", v)}
    assert not bad, f"fr.js: use U+00A0 before : ; ! ? » and after «: {bad}"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_catalogues_are_the_modules_the_browser_loads() -> None:
    """The simple Python reading of each catalogue is what JavaScript makes of it."""
    for path in [folder / f"{lang}.js" for folder in CATALOGUES for lang in LANGS]:
        script = "import(process.argv[1]).then((m) => console.log(JSON.stringify(m.default)))"
        out = subprocess.run(
            ["node", "--input-type=module", "-e", script, path.as_uri()],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert json.loads(out.stdout) == load_catalogue(path), path


# -- keys the client asks for --------------------------------------------------------------------


def test_every_key_the_client_asks_for_exists(en: dict[str, str]) -> None:
    literal, dynamic, opaque = keys_asked_for()
    assert len(literal) > 50, 'the scan for t("…") found too few keys: is the pattern broken?'
    missing = {key: sorted(files) for key, files in literal.items() if key not in en}
    assert not missing, f"t() keys not in en.js: {missing}"
    unknown = {tpl: sorted(files) for tpl, files in dynamic.items() if tpl not in DYNAMIC_KEYS}
    assert not unknown, f"keys built at run time, list their keys in DYNAMIC_KEYS: {unknown}"
    for tpl in dynamic:
        for key in DYNAMIC_KEYS[tpl]:
            assert key in en, f"{tpl} can give {key}, which is not in en.js"
    assert not opaque, f"t() with a key that is neither a string nor a template: {opaque}"


SHELL_CATALOGUES = [I18N, STATIC / "games" / "i18n"]
GAMES = sorted(p.parent.name for p in STATIC.glob("games/*/i18n"))


def _asks_only_for(files: list[Path], folders: list[Path]) -> dict[str, list[str]]:
    """The keys ``files`` ask for that no catalogue of ``folders`` has, with who asks."""
    have = catalogue("en", folders)
    literal, dynamic, _ = keys_asked_for(files)
    asked = {key: files for key, files in literal.items()}
    for tpl, where in dynamic.items():
        asked.update({key: where for key in DYNAMIC_KEYS.get(tpl, ())})
    return {key: sorted(where) for key, where in asked.items() if key not in have}


def test_the_shell_asks_only_for_its_own_strings() -> None:
    """The shell (app.js, shell/, the registry) runs before any game's catalogue is loaded: it
    asks only for keys of the shell's catalogue and the registry's."""
    files = [
        p for p in STATIC.rglob("*.js") if not p.relative_to(STATIC).as_posix().startswith("games/")
    ]
    files.append(STATIC / "games" / "index.js")
    missing = _asks_only_for(files, SHELL_CATALOGUES)
    assert not missing, f"the shell asks for game strings: {missing}"


@pytest.mark.parametrize("game", GAMES)
def test_a_game_asks_only_for_the_shells_strings_and_its_own(game: str) -> None:
    """A room loads the shell's catalogue and its own game's only (games/<game>/i18n/): a game's
    modules (and the common ones it uses) ask for no key of another game's catalogue."""
    files = sorted((STATIC / "games" / game).rglob("*.js")) + sorted(
        (STATIC / "games" / "common").rglob("*.js")
    )
    missing = _asks_only_for(files, [*SHELL_CATALOGUES, STATIC / "games" / game / "i18n"])
    assert not missing, f"games/{game} asks for strings it does not load: {missing}"


def test_dynamic_key_lists_are_complete(en: dict[str, str]) -> None:
    """Every key of a dynamic family (slot.*) is listed, so the check above covers them all."""
    for tpl, keys in DYNAMIC_KEYS.items():
        prefix = tpl.split("${}")[0]
        assert set(keys) == {k for k in en if k.startswith(prefix)}, tpl


# -- rules pages ---------------------------------------------------------------------------------


def test_rule_ids_match_the_rule_book() -> None:
    in_book = list(dict.fromkeys(RULE_ID.findall(RULES_MD.read_text(encoding="utf-8"))))
    assert sorted(in_book) == sorted(RULE_IDS), "docs/rules.md's ids changed: update RULE_IDS"


@pytest.mark.parametrize("lang", LANGS)
def test_rules_page_is_a_small_self_contained_phone_page(lang: str) -> None:
    path = RULES_DIR / f"{lang}.html"
    raw = path.read_bytes()
    assert len(raw) <= 25 * 1024, f"{path.name} is {len(raw)} bytes"
    text = raw.decode("utf-8")
    page = Page(text)
    html = page.attrs("html")
    assert html and html[0].get("lang") == lang, f"{path.name}: <html lang> is not {lang!r}"
    assert any(m.get("charset", "").lower() == "utf-8" for m in page.attrs("meta"))
    viewports = [m.get("content", "") for m in page.attrs("meta") if m.get("name") == "viewport"]
    assert len(viewports) == 1, f"{path.name}: one viewport meta"
    viewport = viewports[0].replace(" ", "").lower()
    assert "width=device-width" in viewport and "initial-scale=1" in viewport
    assert "user-scalable=no" not in viewport and "user-scalable=0" not in viewport
    assert not re.search(r"maximum-scale=1(\.0*)?(,|$)", viewport), "let players zoom"
    # Self-contained: no scripts, images or frames to fetch, one style sheet beside it (the strict
    # Content-Security-Policy allows no inline style); no external address.
    for tag in ("script", "img", "iframe", "object", "embed", "style"):
        assert not page.attrs(tag), f"{path.name}: <{tag}>"
    assert page.attrs("link") == [{"rel": "stylesheet", "href": "../../rules.css"}], path.name
    assert RULES_CSS.is_file()
    assert not re.search(r"https?://|@import|url\(", text, re.IGNORECASE), f"{path.name}: external"
    hrefs = [a.get("href", "") for a in page.attrs("a")]
    assert "/" in hrefs, f"{path.name}: no link back to /"
    for href in hrefs:
        assert not href.startswith("//") and ":" not in href, f"{path.name}: external link {href}"
        target = href.split("#")[0]
        if target and target != "/":
            assert (RULES_DIR / target).is_file(), f"{path.name}: broken link {href}"
    # Readable in the dark too (its style sheet, beside it, says how).
    css = RULES_CSS.read_text(encoding="utf-8")
    assert "prefers-color-scheme:dark" in css.replace(" ", ""), f"{path.name}: no dark mode"
    assert not re.search(r"https?://|@import|url\(", css, re.IGNORECASE), "rules.css: external"


@pytest.mark.parametrize("lang", LANGS)
def test_rules_page_names_every_rule(lang: str) -> None:
    page = Page((RULES_DIR / f"{lang}.html").read_text(encoding="utf-8"))
    shown = set(RULE_ID.findall(" ".join(page.text)))
    missing = [rid for rid in RULE_IDS if rid not in shown]
    assert not missing, f"{lang}.html does not show {missing}"
    unknown = sorted(shown - set(RULE_IDS))
    assert not unknown, f"{lang}.html names ids that docs/rules.md does not have: {unknown}"
    anchors = {a.get("id") for _, a in page.tags}
    assert not [rid for rid in RULE_IDS if rid not in anchors], "each rule has an anchor (#R-…)"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_french_elides_before_a_vowel_and_japanese_joins_sentences_without_spaces() -> None:
    """Each language's grammar: "de Ana" is written "d’Ana", "que Ana" "qu’Ana" (not before a
    consonant); French court cards are V, D, R; Japanese sentences follow each other with no
    space between them."""
    script = """
    globalThis.localStorage = {getItem() { return null; }, setItem() {}};
    globalThis.document = {documentElement: {}};
    globalThis.navigator = {languages: ["fr"]};
    const i18n = await import(process.argv[1]);
    const game = process.argv[2]; // Crisp's folder: its catalogue, added as the game adds it
    const { cardName } = await import(`${game}/cardname.js`);
    const en = (await import(`${game}/i18n/en.js`)).default;
    await i18n.addCatalogue("crisp", en, (lang) => import(`${game}/i18n/${lang}.js`));
    await i18n.setLanguage("fr");
    const fr = [i18n.t("lobby.waithost", {name: "Ana"}), i18n.t("lobby.waithost", {name: "Ben"}),
      i18n.t("card.theirs", {name: "Émile", slot: i18n.t("slot.left")}), cardName("QS"),
      cardName("KH"), cardName("JD")];
    await i18n.setLanguage("ja");
    const ja = i18n.sentences(i18n.t("status.final", {name: "Yui"}), i18n.t("status.yourturn"));
    console.log(JSON.stringify({fr, ja}));
    """
    out = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            script,
            (STATIC / "i18n.js").as_uri(),
            (STATIC / "games" / "crisp").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    got = json.loads(out.stdout)
    assert got["fr"][0] == "En attente qu’Ana lance la partie…"
    assert got["fr"][1] == "En attente que Ben lance la partie…"
    assert got["fr"][2].endswith("d’Émile")
    assert got["fr"][3:] == ["D♠", "R♥", "V♦"]
    assert " " not in got["ja"], got["ja"]


FRENCH_VOUS = re.compile(r"\b(vous|votre|vos)\b", re.IGNORECASE)


def test_french_speaks_in_one_register_tu() -> None:
    """French says tu everywhere, never a mix of tu and vous (such as "Ton temps est écoulé.
    Vous avez joué un 1."): no "vous", "votre" or "vos" (whole words) in
    any French string of any catalogue."""
    found = {
        f"{folder_name(folder)}:{key}": text
        for folder in CATALOGUES
        for key, text in load_catalogue(folder / "fr.js").items()
        if FRENCH_VOUS.search(text)
    }
    assert not found, f"French says tu, not vous: {found}"
