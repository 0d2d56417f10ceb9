"""docs/rules-crisps.md §1, §3 and §4's follow tests: cards, notation, the one classifier and the
one follow test, each case worked by hand."""

from __future__ import annotations

import pytest

from crisp.engine.crisps.cards import SORTED_DECK, counts_of, parse
from crisp.engine.crisps.combos import Combo, all_combos, can_follow, classify
from crisp.engine.crisps.errors import CrispsRefusal


def c(cards: str, crisp_runs: bool = False) -> Combo | str:
    return classify(counts_of(cards), crisp_runs)


def combo(cards: str, crisp_runs: bool = False) -> Combo:
    got = c(cards, crisp_runs)
    assert isinstance(got, Combo), got
    return got


def test_cs_deck_forty_cards_four_of_each_rank() -> None:
    assert len(SORTED_DECK) == 40
    assert counts_of(SORTED_DECK) == [4] * 10
    assert SORTED_DECK.endswith("9999XXXX")


def test_cs_notation_classify_takes_a_string_or_counts() -> None:
    assert classify("4343", False) == classify(counts_of("3344"), False) == combo("3344")
    assert classify("", False) == classify("3A", False) == "CS-NOTATION"


def test_cs_rank_crisp_is_the_highest_single_rank() -> None:
    assert can_follow(combo("9"), combo("X")) is None
    assert can_follow(combo("X"), combo("9")) == "CS-FOLLOW"
    assert can_follow(combo("99"), combo("XX")) is None
    assert can_follow(combo("999"), combo("XXX")) is None
    assert can_follow(combo("XXX"), combo("999")) == "CS-SPECIAL"


def test_cs_notation_any_order_is_the_same_set() -> None:
    assert combo("4343").cards == "3344"
    assert combo("X987", crisp_runs=True).cards == "789X"
    assert combo("9X87", crisp_runs=True).cards == "789X"


@pytest.mark.parametrize("bad", ["", "0", "A", "3 4", "10", None, 7, ["3"]])
def test_cs_notation_not_well_formed_is_refused(bad: object) -> None:
    with pytest.raises(CrispsRefusal) as err:
        parse(bad)
    assert err.value.rule == "CS-NOTATION"


@pytest.mark.parametrize(
    ("cards", "kind", "rank"),
    [
        ("5", "single", "5"),
        ("X", "single", "X"),
        ("55", "pair", "5"),
        ("XX", "pair", "X"),
        ("345", "run", "3"),
        ("12345", "run", "1"),
        ("123456789", "run", "1"),
        ("3344", "pair_run", "3"),
        ("445566", "pair_run", "4"),
        ("777", "three", "7"),
        ("8888", "four", "8"),
        ("XXX", "three", "X"),
        ("XXXX", "four", "X"),
    ],
)
def test_cs_combo_the_six_combinations(cards: str, kind: str, rank: str) -> None:
    got = combo(cards)
    assert (got.kind, got.rank, got.size) == (kind, rank, len(cards))
    assert got.special == (kind in ("three", "four"))


@pytest.mark.parametrize("cards", ["3345", "5556", "3355", "35", "34", "333444", "33445", "13"])
def test_cs_combo_any_other_set_is_no_combination(cards: str) -> None:
    assert c(cards) == "CS-COMBO"
    assert c(cards, crisp_runs=True) == "CS-COMBO"


def test_cs_run_never_wraps_and_ranks_by_lowest_card() -> None:
    assert c("129") == "CS-COMBO"
    assert c("19X", crisp_runs=True) == "CS-COMBO"
    assert c("129X", crisp_runs=True) == "CS-COMBO"
    assert c("1X") == "CS-COMBO"
    assert combo("567").rank == "5"
    assert can_follow(combo("456"), combo("567")) is None
    assert can_follow(combo("567"), combo("456")) == "CS-FOLLOW"


def test_cs_crisp_run_refused_without_the_option() -> None:
    assert c("789X") == "CS-CRISP-RUN"
    assert c("99XX") == "CS-CRISP-RUN"
    assert c("89X") == "CS-CRISP-RUN"
    assert not any("X" in k.cards and k.kind in ("run", "pair_run") for k in all_combos(False))


def test_cs_opt_crisp_runs_crisp_as_rank_ten() -> None:
    for cards, kind in [("789X", "run"), ("99XX", "pair_run"), ("8899XX", "pair_run")]:
        got = combo(cards, crisp_runs=True)
        assert got.kind == kind and got.has_crisp
    assert can_follow(combo("789X", True), combo("111")) is None  # holds a Crisp: CS-SPECIAL


@pytest.mark.parametrize(
    ("prev", "play", "rule"),
    [
        ("55", "55", None),
        ("X", "X", None),
        ("3344", "4455", None),
        ("3344", "445566", "CS-FOLLOW"),
        ("3344", "2233", "CS-FOLLOW"),
        ("3344", "789", "CS-FOLLOW"),
        ("5", "55", "CS-FOLLOW"),
        ("345", "3456", "CS-FOLLOW"),
        ("345", "345", None),
        ("555", "XX", "CS-FOLLOW"),
        ("555", "6", "CS-FOLLOW"),
    ],
)
def test_cs_follow_same_type_same_size_equal_or_higher(prev: str, play: str, rule: str) -> None:
    assert can_follow(combo(prev), combo(play)) == rule


@pytest.mark.parametrize(
    ("prev", "play", "rule"),
    [
        ("X", "111", None),
        ("XX", "111", None),
        ("X", "2222", None),
        ("9", "111", "CS-SPECIAL"),
        ("99", "9999", "CS-SPECIAL"),
        ("555", "666", None),
        ("XXX", "2222", None),
        ("2222", "3333", None),
        ("555", "444", "CS-SPECIAL"),
        ("555", "555", "CS-SPECIAL"),
        ("XXX", "111", "CS-SPECIAL"),
        ("XXXX", "1111", "CS-SPECIAL"),
        ("2222", "XXX", "CS-SPECIAL"),
    ],
)
def test_cs_special_crisp_ordinary_or_size_then_rank(prev: str, play: str, rule: str) -> None:
    assert can_follow(combo(prev), combo(play)) == rule


def test_cs_special_nothing_beats_four_crisps() -> None:
    top = combo("XXXX")
    assert all(can_follow(top, k) is not None for k in all_combos(True))
