"""The Crisps! adapter (``crisp/games/crisps``) on its own: the shapes of moves and options, the
match's status, its log rebuilding the game exactly (moves, timeouts, clock restarts), refusals
as ``MoveRefused`` with the rule id, and its bots at a server's seat playing only legal moves."""

from __future__ import annotations

import random
from typing import Any

import pytest

from crisp.games.crisps import SPEC
from crisp.server.seam import BadFields, MoveRefused, Seeds, Status

SEEDS = Seeds(bytes(range(32)), ("ab12", ""))


@pytest.mark.parametrize(
    "fields",
    [
        {"do": "play", "cards": "3344"},
        {"do": "pass"},
        {"do": "draw", "take": "blind"},
        {"do": "play", "cards": "112233445566778899"},  # an 18-card pair run can be held
    ],
)
def test_check_move_accepts_every_action_shape(fields: dict[str, Any]) -> None:
    assert SPEC.check_move(fields) == fields


@pytest.mark.parametrize(
    "fields",
    [
        {"do": "play"},
        {"do": "draw"},
        {"do": "pass", "cards": "1"},
        {"do": "play", "cards": "1", "take": "blind"},
        {"do": "timeout"},
        {"do": "jump"},
        {"do": "play", "cards": 3},
        {"do": "pass", "seat": 1},
    ],
)
def test_check_move_refuses_bad_shapes(fields: dict[str, Any]) -> None:
    with pytest.raises(BadFields):
        SPEC.check_move(fields)


@pytest.mark.parametrize(
    "fields",
    [{"do": "play", "cards": ""}, {"do": "play", "cards": "0"}, {"do": "draw", "take": "top"}],
)
def test_check_move_leaves_the_notation_to_the_rules(fields: dict[str, Any]) -> None:
    """A string not in the notation is the engine's to refuse (`illegal`,
    CS-NOTATION, docs/rules-crisps.md §10), not the shape's (`bad_message`)."""
    assert SPEC.check_move(fields) == fields


def test_check_options_defaults_and_refusals() -> None:
    assert (
        SPEC.check_options({})
        == SPEC.default_options()
        == {"no_faceup": False, "crisp_runs": False, "auto_skip": False, "timer": None}
    )
    assert SPEC.check_options({"timer": 45, "auto_skip": True})["timer"] == 45
    for bad in ({"timer": 20}, {"timer": "30"}, {"limit": 50}, {"no_faceup": 1}):
        with pytest.raises(BadFields):
            SPEC.check_options(bad)
    assert SPEC.name == "crisps" and SPEC.seats == (2, 2)
    assert SPEC.bot_levels == ("random", "normal", "hard")


def test_the_log_rebuilds_the_match_exactly() -> None:
    match, head = SPEC.new_match(["Ana", "Ben"], {"timer": 30, "auto_skip": True}, 1, SEEDS)
    assert match.status() == Status.BETWEEN and not match.started()
    entries = [head]
    change = match.start_round()
    entries += change.entries
    assert match.status() == Status.PLAYING and match.start_round().entries == []
    rng, t = random.Random(4), 0.0
    while match.status() == Status.PLAYING:
        t += 7.5
        if rng.random() < 0.1:
            entries += match.restart_clock(t).entries
            continue
        deadline = match.next_deadline()
        assert deadline is not None
        if rng.random() < 0.2:
            entries += match.advance(deadline).entries
            t = deadline
            continue
        view = match.view(None)
        seat = view["due"]["seat"]
        entries += match.apply(
            seat, rng.choice(match.legal_moves(seat)), min(t, deadline - 0.001), 0
        ).entries
        rebuilt = SPEC.from_log(entries)
        assert [rebuilt.view(s) for s in (0, 1, None)] == [match.view(s) for s in (0, 1, None)]
    assert match.status() == Status.OVER
    assert SPEC.from_log(entries).record() == match.record()
    assert match.record()["fairness"]["server_seed"] == bytes(range(32)).hex()


def test_a_refusal_is_move_refused_with_the_rule_and_keeps_the_deadlines() -> None:
    match, _ = SPEC.new_match(["Ana", "Ben"], {"timer": 30}, 1, SEEDS)
    match.start_round()
    seat = match.view(None)["due"]["seat"]
    with pytest.raises(MoveRefused) as err:
        match.apply(1 - seat, {"do": "pass"}, 1.0, 0)
    assert err.value.rule == "CS-TURN" and not err.value.before
    with pytest.raises(MoveRefused) as late:  # at 30 s the lead timed out first, then refused
        match.apply(seat, {"do": "pass"}, 30.0, 0)
    assert late.value.rule == "CS-TURN" and late.value.before.entries == [
        {"e": "advance", "t": 30.0}
    ]


@pytest.mark.parametrize("level", SPEC.bot_levels)
def test_seated_bots_play_legal_moves_from_their_turns(level: str) -> None:
    match, _ = SPEC.new_match(["Ana", "Ben"], {}, 1, SEEDS)
    bots = [
        SPEC.make_bot(level, s, ["Ana", "Ben"], SPEC.default_options(), None, s) for s in (0, 1)
    ]
    outs = match.start_round().outs
    t = 0.0
    while match.status() == Status.PLAYING:
        for o in outs:
            for s, bot in enumerate(bots):
                if o.for_seat(s):
                    bot.observe(o.msg)
        wanted = [(s, b.decide(t)) for s, b in enumerate(bots)]
        ((seat, decision),) = [(s, d) for s, d in wanted if d is not None]
        later = bots[seat].decide(t + 5)  # the same move until the game moves on
        assert later is not None and later.move == decision.move
        assert decision.move in match.legal_moves(seat)
        t = decision.at
        outs = match.apply(seat, decision.move, t, 0).outs
    assert match.status() == Status.OVER
