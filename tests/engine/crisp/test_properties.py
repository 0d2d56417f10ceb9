"""Property tests (hypothesis): invariants over random legal games."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crisp.engine.crisp import Game, Options, actions
from crisp.engine.crisp.cards import SORTED_DECK
from crisp.engine.crisp.messages import dumps_stream, stream
from crisp.engine.crisp.record import replay
from crisp.engine.crisp.simulate import Policy, play_random

CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")
options_st = st.builds(
    Options,
    limit=st.sampled_from([50, 100, 150]),
    timer=st.sampled_from([None, 30, 45, 60]),
    take_discard=st.booleans(),
)
#: Low call rates make long rounds, so that the deck is recycled in many of them.
policy_st = st.builds(Policy, p_call=st.sampled_from([0.2, 0.05, 0.005]))
common = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(
    players=st.integers(2, 8),
    options=options_st,
    seed=st.integers(0, 2**32),
    policy=policy_st,
)
def test_52_cards_once_after_every_action(
    players: int, options: Options, seed: int, policy: Policy
) -> None:
    """R-DECK: the 52 cards are all there, once each, after every action and every deadline."""
    played = play_random(players, options, seed, policy=policy, max_actions=400)
    record = played.record()
    full = sorted(SORTED_DECK)
    game = Game(record["players"], options)
    for rnd in record["rounds"]:
        game.start_round(rnd["deck"], rnd["dealer"])
        assert sorted(game.round.cards()) == full
        for act in rnd["actions"]:
            game.advance(act["t"])
            assert sorted(game.round.cards()) == full
            game.apply(actions.from_record(act), act["t"])
            assert sorted(game.round.cards()) == full
        if "end" in rnd:
            game.advance(rnd["end"])
            assert sorted(game.round.cards()) == full
    assert game.result() == played.result()


@common
@given(players=st.integers(2, 8), options=options_st, seed=st.integers(0, 2**32))
def test_same_record_same_messages_byte_for_byte(players: int, options: Options, seed: int) -> None:
    """R-SHUFFLE: a record replays to the same messages, byte for byte, and to the same result."""
    game = play_random(players, options, seed, max_actions=300)
    record = json.loads(json.dumps(game.record()))
    first, second = replay(record), replay(record)
    assert first.result == second.result == game.result()
    for seat in [*range(players), None]:
        a = dumps_stream(stream(first.outs, seat))
        assert a == dumps_stream(stream(second.outs, seat))


@common
@given(players=st.integers(2, 8), options=options_st, seed=st.integers(0, 2**32))
def test_seeded_games_are_deterministic(players: int, options: Options, seed: int) -> None:
    """R-SHUFFLE: the same seed and policy play the same game."""
    a = play_random(players, options, seed, max_actions=200)
    b = play_random(players, options, seed, max_actions=200)
    assert a.record() == b.record()


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 8), options=options_st, seed=st.integers(0, 2**32))
def test_random_games_with_a_calling_policy_end(players: int, options: Options, seed: int) -> None:
    """R-GAME-END: games whose players sometimes call crisp end; the lowest totals win."""
    game = play_random(players, options, seed, max_actions=200_000)
    assert game.over
    assert max(game.totals) >= options.limit
    assert game.winners == [s for s, t in enumerate(game.totals) if t == min(game.totals)]
    assert replay(game.record()).result == game.result()


@common
@given(players=st.integers(2, 6), options=options_st, seed=st.integers(0, 2**32))
def test_every_face_a_seat_is_sent_is_in_its_knowledge(
    players: int, options: Options, seed: int
) -> None:
    """Knowledge tracking agrees with the streams: each face a seat is sent, it has seen."""
    game = play_random(players, options, seed, max_actions=150)
    rep = replay(game.record())
    seen: dict[int, set[tuple[int, str]]] = {s: set() for s in range(players)}
    for sight in rep.game.knowledge.sightings:
        for s in range(players) if sight.seat is None else [sight.seat]:
            seen[s].add((sight.round, sight.card))
    for seat in range(players):
        round_no = 0
        for msg in stream(rep.outs, seat):
            if msg["type"] == "round":
                round_no = msg["round"]
            for card in CARD.findall(json.dumps(msg)):
                assert (round_no, card) in seen[seat], (seat, msg)
