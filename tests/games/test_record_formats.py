"""``crisp replay`` and ``crisp verify`` find a record's game by its ``format`` through the games
registry (``crisp.games.records``): each game declares its records' format beside its spec, and
anything else goes to the default game, which reports its own errors. Neither game's record code
knows the other's format."""

from __future__ import annotations

import json
from typing import Any

import pytest
from paths import ROOT

from crisp.games import DEFAULT_GAMES
from crisp.games.records import records_of, verify_record
from crisp.server.registry import Registry


def test_every_default_game_declares_the_format_of_its_records() -> None:
    games = Registry.load(DEFAULT_GAMES)
    formats = {name: games[name].records.format for name in games}  # type: ignore[attr-defined]
    assert formats == {"crisp": "crisp-record/1", "crisps": "crisps-record/1"}


@pytest.mark.parametrize(
    ("data", "game_format"),
    [
        ({"format": "crisps-record/1"}, "crisps-record/1"),
        ({"format": "crisp-record/1"}, "crisp-record/1"),
        ({"format": "other/9"}, "crisp-record/1"),  # unknown: the default game says what is wrong
        ({}, "crisp-record/1"),
        ([1, 2], "crisp-record/1"),
        (None, "crisp-record/1"),
    ],
)
def test_a_record_goes_to_the_game_of_its_format(data: Any, game_format: str) -> None:
    assert records_of(data).format == game_format


def test_each_example_is_verified_by_its_own_game() -> None:
    for name in ("fair-game.json", "crisps-game.json"):
        data = json.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))
        assert verify_record(data).ok, name


def test_crisps_own_record_code_names_no_other_format() -> None:
    """Crisp's verify and replay code names no other game's format."""
    for path in ("crisp/engine/crisp/verify.py", "crisp/games/crisp/records.py"):
        assert "crisps-record" not in (ROOT / path).read_text(encoding="utf-8"), path
