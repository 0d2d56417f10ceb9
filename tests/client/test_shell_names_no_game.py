"""The client's shell is game-agnostic: the shell (crisp/static/shell/, the root scripts
crisp/static/*.js and the shell's catalogues crisp/static/i18n/) names no game: no game word, no
game taken by default. The game is the `room` message's `game_type`; before any room, the first of
the registry (crisp/static/games/index.js, the one file of the shell that lists the games)."""

from __future__ import annotations

import re
from pathlib import Path

from paths import ROOT

STATIC = ROOT / "crisp" / "static"
# The words of a game (as whole words: "checking" is not a King).
GAME_WORDS = re.compile(r"\b(crisps|queens?|jacks?|kings?|slots?|take_discard)\b", re.I)
# A game named as a default or compared with: `|| "crisp"`, `=== "crisp"`, `= "crisp"`…
DEFAULT_GAME = re.compile(
    r"""(\|\||\?\?|={1,3}|!==?)\s*["']crisp["']|["']crisp["']\s*(===?|!==?)"""
)


def shell_files() -> list[Path]:
    return sorted(
        [*STATIC.glob("*.js"), *(STATIC / "shell").glob("*.js"), *(STATIC / "i18n").glob("*.js")]
    )


def test_the_shell_has_no_game_word() -> None:
    found = [
        f"{path.relative_to(STATIC)}:{n}: {line.strip()}"
        for path in shell_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if GAME_WORDS.search(line)
    ]
    assert len(shell_files()) > 10
    assert not found, "\n".join(found)


def test_the_shell_takes_no_game_by_default() -> None:
    found = [
        f"{path.relative_to(STATIC)}:{n}: {line.strip()}"
        for path in shell_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DEFAULT_GAME.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_registry_gives_the_first_game_before_any_room() -> None:
    registry = (STATIC / "games" / "index.js").read_text(encoding="utf-8")
    assert "export const FIRST_GAME = Object.keys(GAMES)[0];" in registry
    for path in shell_files():
        text = path.read_text(encoding="utf-8")
        assert "games/crisp/" not in text and "games/crisps/" not in text, path.name
