"""docs/rules-crisps.md §9 against the independent checker (``tests/support/leakcheck_crisps.py``,
through ``tests/support/leakcheck.py``): in random games under every option, no seat's or watcher's
stream or
snapshot carries a card it may not see (hands never leak, a blind card goes only to its
drawer); the checker itself catches planted leaks; and nothing sent to a seat depends on the
pile's unseen order (CS-NO-TRACE)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leakcheck import check_crisps_stream, check_crisps_view, crisps_model_after

from crisp.engine.crisps import CrispsGame, CrispsOptions, CrispsRefusal, Out

OPTIONS = st.builds(
    CrispsOptions,
    no_faceup=st.booleans(),
    crisp_runs=st.booleans(),
    auto_skip=st.booleans(),
    timer=st.sampled_from([None, 30]),
)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEATS = (0, 1, None)


def random_game(
    seed: int, options: CrispsOptions, choices: int, views: bool = False
) -> tuple[CrispsGame, list[Out], list[tuple[int, dict[Any, Any]]]]:
    """A random legal game; with ``views``, every seat's and a watcher's snapshot after each
    step, as (how many outs came before it, the view) pairs by seat."""
    g = CrispsGame(["Ana", "Ben"], options, seed=seed)
    outs = g.start()
    rng = random.Random(choices)
    snaps: list[tuple[int, dict[Any, Any]]] = []
    t = 0.0
    while not g.over:
        assert g.due is not None
        if options.timer and rng.random() < 0.2:
            t = g.next_deadline() or t
            outs += g.advance(t)
        else:
            t += 1
            outs += g.apply(g.due[0], rng.choice(g.legal_moves(g.due[0])), t)
        if views:
            snaps += [(len(outs), {"seat": s, "view": g.view(s)}) for s in SEATS]
    return g, outs, snaps


def stream(outs: list[Out], seat: int | None) -> list[dict[str, Any]]:
    return [o.msg for o in outs if o.for_seat(seat)]


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS, choices=st.integers(0, 10**6))
def test_cs_see_hand_cs_see_draw_streams_carry_nothing_hidden(
    seed: int, options: CrispsOptions, choices: int
) -> None:
    g, outs, _ = random_game(seed, options, choices)
    rec = g.record()
    for seat in SEATS:
        assert check_crisps_stream(rec, seat, stream(outs, seat)) == []


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), options=OPTIONS, choices=st.integers(0, 10**6))
def test_cs_see_hand_snapshots_carry_nothing_hidden(
    seed: int, options: CrispsOptions, choices: int
) -> None:
    g, outs, snaps = random_game(seed, options, choices, views=True)
    rec = g.record()
    for n, snap in snaps[:: max(1, len(snaps) // 60)]:
        seat = snap["seat"]
        model = crisps_model_after(rec, seat, stream(outs[:n], seat))
        assert check_crisps_view(model, snap["view"], "view") == []


def test_the_checker_catches_planted_leaks() -> None:
    g, outs, _ = random_game(4, CrispsOptions(), 9)
    rec = g.record()
    base = stream(outs, 1)
    assert check_crisps_stream(rec, 1, base) == []
    watcher = stream(outs, None)
    planted: list[tuple[int | None, list[dict[str, Any]]]] = []
    # the other seat's hand in a watcher's round message
    w = copy.deepcopy(watcher)
    next(m for m in w if m["type"] == "round")["hand"] = "1234"
    planted.append((None, w))
    # a blind card in the draw of the seat that did not get it
    for seat in (0, 1):
        s = copy.deepcopy(stream(outs, seat))
        draw = next((m for m in s if m["type"] == "draw" and "blind" not in m), None)
        if draw is not None:
            draw["blind"] = "5"
            planted.append((seat, s))
    # an identity key; a card in an undocumented field; a wrong loser's hand
    s = copy.deepcopy(base)
    s[1]["card_id"] = 3
    planted.append((1, s))
    s = copy.deepcopy(base)
    next(m for m in s if m["type"] == "pass")["seen"] = "77"
    planted.append((1, s))
    s = copy.deepcopy(base)
    next(m for m in s if m["type"] == "round_end")["loser_hand"] = "9"
    planted.append((1, s))
    # another seat's choices
    s = copy.deepcopy(base)
    turn = next(m for m in s if m["type"] == "turn" and m["seat"] == 0)
    turn["legal"] = [{"cards": "1", "kind": "single", "rank": "1", "size": 1}]
    planted.append((1, s))
    assert len(planted) >= 6
    for seat, msgs in planted:
        assert check_crisps_stream(rec, seat, msgs) != [], msgs


def _reordered(deck: str, start: int, rng: random.Random) -> str:
    tail = list(deck[start:])
    for _ in range(20):
        rng.shuffle(tail)
        if "".join(tail) != deck[start:]:
            break
    return deck[:start] + "".join(tail)


def _cut(msgs: list[dict[str, Any]], draws: int) -> list[dict[str, Any]]:
    """The stream up to (not including) its ``draws + 1``-th draw message."""
    seen = 0
    for i, m in enumerate(msgs):
        if m["type"] == "draw":
            if seen == draws:
                return msgs[:i]
            seen += 1
    return msgs


@pytest.mark.parametrize("no_faceup", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_cs_no_trace_streams_do_not_depend_on_the_unseen_pile_order(
    seed: int, no_faceup: bool
) -> None:
    """Two decks that differ only in the order of the pile below its first 2k cards give every
    seat identical streams and snapshots up to the draw that shows one of them (draw k+1)."""
    opts = CrispsOptions(no_faceup=no_faceup, auto_skip=bool(seed % 2))
    g, _, _ = random_game(seed, opts, seed + 100)
    rec = g.record()
    rng = random.Random(seed)
    k = seed % 3
    pile_start = 28 if no_faceup else 29
    other = _reordered(rec["decks"][0], pile_start + 2 * k, rng)
    assert other != rec["decks"][0]
    b = CrispsGame(
        ["Ana", "Ben"], opts, first_starter=rec["first_starter"], decks=[other, *rec["decks"][1:]]
    )
    b_outs = b.start()
    a = CrispsGame(["Ana", "Ben"], opts, first_starter=rec["first_starter"], decks=rec["decks"])
    a_outs = a.start()
    views_equal, compared = True, 0

    def draws(outs: list[Out]) -> int:  # draw events so far (a watcher gets one of each)
        return sum(1 for o in outs if o.msg["type"] == "draw" and o.for_seat(None))

    for act in rec["actions"]:
        if a.round_no > 1 or draws(a_outs) > k:  # past the draw that shows a moved card
            break
        fields = {x: v for x, v in act.items() if x not in ("seat", "t")}
        a_outs += a.apply(act["seat"], fields, act["t"])
        try:
            b_outs += b.apply(act["seat"], fields, act["t"])
        except CrispsRefusal:  # the hands differ now: past the point of comparison
            break
        if draws(a_outs) <= k and a.round_no == 1:
            views_equal &= all(a.view(s) == b.view(s) for s in SEATS)
            compared += 1
    assert views_equal and compared > 0
    for seat in SEATS:
        sa, sb = _cut(stream(a_outs, seat), k), _cut(stream(b_outs, seat), k)
        assert sa == sb
        assert len(sa) > 3
