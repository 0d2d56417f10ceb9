"""A game's check of a move's fields, remembered (crisp/server/movememo.py): the same answer as
the check itself, without checking the same flat move twice."""

from __future__ import annotations

from typing import Any

import pytest

from crisp.games.crisp.spec import SPEC
from crisp.server.movememo import CheckedMoves
from crisp.server.seam import BadFields


class Counted:
    """A check that counts its calls: a ``slot`` must be an int, ``bad`` is refused."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, fields: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if "bad" in fields or ("slot" in fields and type(fields["slot"]) is not int):
            raise BadFields("slot", "not an int")
        return {**fields, "checked": True}


def test_a_flat_move_is_checked_once_and_each_caller_gets_its_own_copy() -> None:
    check = Counted()
    moves = CheckedMoves(check)
    first = moves({"do": "swap", "slot": 1})
    first["changed"] = True  # the caller's copy
    again = moves({"do": "swap", "slot": 1})
    assert again == {"do": "swap", "slot": 1, "checked": True}
    assert check.calls == 1


def test_values_equal_in_python_but_of_other_types_are_other_moves() -> None:
    check = Counted()
    moves = CheckedMoves(check)
    assert moves({"slot": 1}) == {"slot": 1, "checked": True}
    for other in (True, 1.0):
        with pytest.raises(BadFields):
            moves({"slot": other})
    assert check.calls == 3


def test_a_refused_or_nested_move_is_checked_every_time() -> None:
    check = Counted()
    moves = CheckedMoves(check)
    for _ in range(2):
        with pytest.raises(BadFields):
            moves({"bad": 1})
        assert moves({"do": "x", "cards": [1, 2]}) == {"do": "x", "cards": [1, 2], "checked": True}
    assert check.calls == 4
    assert moves.known == {}


def test_at_most_size_answers_are_kept_the_oldest_forgotten_first() -> None:
    check = Counted()
    moves = CheckedMoves(check, size=2)
    for slot in (1, 2, 3):
        moves({"slot": slot})
    assert [key[0][2] for key in moves.known] == [2, 3]
    moves({"slot": 1})
    assert check.calls == 4


def test_crisps_moves_get_the_same_answer_remembered_as_checked() -> None:
    moves = CheckedMoves(SPEC.check_move)
    samples: list[dict[str, Any]] = [
        {"do": "draw"},
        {"do": "swap", "slot": "left"},
        {"do": "queen", "mine": "left", "seat": 1, "theirs": "right"},
        {"do": "swap", "slot": 0},
        {"do": "fly"},
    ]
    for fields in samples * 2:
        try:
            expected: Any = SPEC.check_move(dict(fields))
        except BadFields as err:
            expected = str(err)
        try:
            got: Any = moves(dict(fields))
        except BadFields as err:
            got = str(err)
        assert got == expected, fields
