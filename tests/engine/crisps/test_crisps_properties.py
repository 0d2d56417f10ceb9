"""Properties of the Crisps! engine over random legal games (hypothesis): the 40 cards are all
always somewhere (CS-DECK), the same inputs give the same game (CS-SHUFFLE), a record replays to
byte-identical streams, and every random legal game ends within 3 to 5 rounds (CS-GAME-END,
CS-DRAW-EMPTY)."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crisp.engine.common.messages import dumps_stream
from crisp.engine.crisps import CrispsGame, CrispsOptions, Out
from crisp.engine.crisps.cards import RANKS
from crisp.engine.crisps.record import replay

OPTIONS = st.builds(
    CrispsOptions,
    no_faceup=st.booleans(),
    crisp_runs=st.booleans(),
    auto_skip=st.booleans(),
    timer=st.sampled_from([None, 30, 45, 60]),
)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FULL = Counter({r: 4 for r in RANKS})
STEPS = 4000


def whole(g: CrispsGame) -> Counter[str]:
    """Every card of the round: hands, played, set aside, pile, face-up."""
    rnd = g.round
    cards: Counter[str] = Counter()
    for counts in (*rnd.hands, rnd.played):
        cards.update({RANKS[i]: n for i, n in enumerate(counts) if n})
    cards.update(rnd.set_aside)
    cards.update(rnd.pile)
    if rnd.faceup:
        cards.update(rnd.faceup)
    return cards


def play_out(
    seed: int, options: CrispsOptions, choices: int, check: Any = None
) -> tuple[CrispsGame, list[Out]]:
    """A random legal game: each decision a random legal move, or (with a timer) now and then
    the clock's timeout; ``check(game)`` after every step."""
    g = CrispsGame(["Ana", "Ben"], options, seed=seed)
    outs = g.start()
    rng = random.Random(choices)
    t = 0.0
    for _ in range(STEPS):
        if g.over:
            break
        assert g.due is not None
        seat = g.due[0]
        if options.timer is not None and rng.random() < 0.15:
            deadline = g.next_deadline()
            assert deadline is not None
            t = deadline
            outs += g.advance(t)
        else:
            t += rng.choice((0.5, 1.25, 3.0))
            moves = g.legal_moves(seat)
            assert moves, "a seat whose decision is due always has a legal move"
            outs += g.apply(seat, rng.choice(moves), t)
        if check is not None:
            check(g)
    return g, outs


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS, choices=st.integers(0, 10**6))
def test_cs_deck_forty_cards_always_somewhere(
    seed: int, options: CrispsOptions, choices: int
) -> None:
    def check(g: CrispsGame) -> None:
        assert whole(g) == FULL
        assert g.round.supply() % 2 == 0  # CS-SUPPLY: 12, 10, …, 0
        assert len(g.round.set_aside) == 4

    play_out(seed, options, choices, check)


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS, choices=st.integers(0, 10**6))
def test_cs_game_end_random_legal_games_always_end(
    seed: int, options: CrispsOptions, choices: int
) -> None:
    g, outs = play_out(seed, options, choices)
    assert g.over and max(g.points) == 3 and g.points[g.winner or 0] == 3
    assert 3 <= g.round_no <= 5 and sum(g.points) == g.round_no
    assert [o.msg["type"] for o in outs][-1] == "game_over"


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS, choices=st.integers(0, 10**6))
def test_cs_shuffle_deterministic_and_replay_byte_identical(
    seed: int, options: CrispsOptions, choices: int
) -> None:
    g, outs = play_out(seed, options, choices)
    again, outs2 = play_out(seed, options, choices)
    assert [o.msg for o in outs] == [o.msg for o in outs2]
    rep = replay(g.record())
    for seat in (0, 1, None):
        mine = dumps_stream(o.msg for o in outs if o.for_seat(seat))
        theirs = dumps_stream(o.msg for o in rep.outs if o.for_seat(seat))
        assert mine == theirs
    assert rep.game.record() == g.record() == again.record()


@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    options=OPTIONS,
    choices=st.integers(0, 10**6),
    cut=st.integers(0, 300),
)
def test_cs_shuffle_replay_of_a_prefix_is_the_game_at_that_point(
    seed: int, options: CrispsOptions, choices: int, cut: int
) -> None:
    g, _ = play_out(seed, options, choices)
    rec = g.record()
    rec["actions"] = rec["actions"][:cut]
    rep = replay(rec)
    assert rep.game.record()["actions"] == rec["actions"]
    assert rep.game.view(0)["hands"] == rep.game.view(None)["hands"]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), options=OPTIONS, choices=st.integers(0, 10**6))
def test_legal_moves_are_exactly_the_plays_apply_accepts(
    seed: int, options: CrispsOptions, choices: int
) -> None:
    """CS-FOLLOW, CS-SPECIAL, CS-LEAD: at points of a random game, every set the due seat holds
    (every sub-multiset of size 1 to 4, and every combination within its hand) is accepted by
    ``apply`` exactly when ``legal_moves`` lists it; a refusal changes nothing."""
    from itertools import combinations

    from crisp.engine.crisps import CrispsRefusal
    from crisp.engine.crisps.cards import text
    from crisp.engine.crisps.combos import combos_within

    steps = [0]

    def check(g: CrispsGame) -> None:
        steps[0] += 1
        if g.over or g.due is None or steps[0] % 15:
            return
        seat = g.due[0]
        legal = g.legal_moves(seat)
        hand = text(g.round.hands[seat])
        sets = {"".join(c) for n in range(1, 5) for c in combinations(hand, n)}
        sets |= {c.cards for c in combos_within(g.round.hands[seat], options.crisp_runs)}
        for cards in sorted(sets):
            trial = copy.deepcopy(g)
            move = {"do": "play", "cards": cards}
            try:
                trial.apply(seat, move, g.now)
                accepted = True
            except CrispsRefusal:
                accepted = False
                assert trial.view(seat) == g.view(seat)
            assert accepted == (move in legal), (cards, legal)
        for other in ({"do": "pass"}, {"do": "draw", "take": "faceup"}):
            trial = copy.deepcopy(g)
            try:
                trial.apply(seat, other, g.now)
                accepted = True
            except CrispsRefusal:
                accepted = False
            assert accepted == (other in legal), (other, legal)

    play_out(seed, options, choices, check)
