"""The server is game-agnostic: ``crisp/server/`` names no game, imports none (only
the seam, ``crisp.engine.common``, ``crisp.version`` and the default list
``crisp.games.DEFAULT_GAMES``), and bounds seat numbers by its games' ``spec.seats`` with the
refusal the protocol's bound of 7 gave before."""

from __future__ import annotations

import json
import re

import pytest
from paths import ROOT

from crisp.games import DEFAULT_GAMES
from crisp.server.registry import Registry
from crisp.server.settings import Settings
from crisp.server.wire.parse import Unreadable, parse

SERVER = ROOT / "crisp" / "server"
GAME_WORDS = re.compile(r"crisps|queen|jack|king|slot|take_discard", re.IGNORECASE)
IMPORT = re.compile(r"^\s*(?:from|import) (crisp\.[\w.]+)", re.MULTILINE)
ALLOWED = ("crisp.server", "crisp.engine.common", "crisp.version")
PYTHON_WORDS = ("__slots__", "TYPE_CHECKING")  # Python's words, not a card's slot or a King


def without_python_words(line: str) -> str:
    for word in PYTHON_WORDS:
        line = line.replace(word, "")
    return line


def test_no_file_of_the_server_names_a_game() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted(SERVER.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if GAME_WORDS.search(without_python_words(line))
    ]
    assert found == []


def test_the_word_check_still_sees_a_king_beside_python_words() -> None:
    assert GAME_WORDS.search(without_python_words("if TYPE_CHECKING: king = 13"))
    assert not GAME_WORDS.search(without_python_words("if TYPE_CHECKING:  # __slots__"))


def test_the_server_imports_no_game() -> None:
    imports = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in SERVER.rglob("*.py")
        for module in IMPORT.findall(path.read_text(encoding="utf-8"))
        if not module.startswith(ALLOWED) and module != "crisp.games"
    }
    assert imports == set()


def test_the_default_games_come_from_crisp_games() -> None:
    assert Settings().games == list(DEFAULT_GAMES)
    assert list(Registry.load(DEFAULT_GAMES)) == ["crisp", "crisps"]


def test_crisp_games_env_var_replaces_the_default_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRISP_GAMES", '["crisp.games.crisps:SPEC"]')
    assert Settings().games == ["crisp.games.crisps:SPEC"]


def grace(seat: int) -> str:
    return json.dumps({"type": "grace", "seat": seat})


def test_a_seat_number_is_bounded_by_the_most_seats_of_the_games() -> None:
    most = Registry.load(DEFAULT_GAMES).most_seats  # Crisp's 8
    assert most == 8
    assert parse(grace(most - 1), 1000, 10, most).seat == most - 1
    with pytest.raises(Unreadable) as err:
        parse(grace(most), 1000, 10, most)
    assert (err.value.code, err.value.about) == ("bad_message", "grace")
    assert err.value.message == "seat: Input should be less than or equal to 7"


def test_a_seat_number_is_never_negative_and_a_server_of_two_seats_bounds_it_at_1() -> None:
    with pytest.raises(Unreadable) as low:
        parse(grace(-1), 1000, 10, 8)
    assert low.value.message == "seat: Input should be greater than or equal to 0"
    with pytest.raises(Unreadable) as two:
        parse(grace(2), 1000, 10, Registry.load(["crisp.games.crisps:SPEC"]).most_seats)
    assert two.value.message == "seat: Input should be less than or equal to 1"
