"""The round told again after its reveal (R-SEE-STORY; docs/protocol.md,
``round_story``): the engine's story (crisp/engine/crisp/story.py) holds exactly the finished
round's faces, after its reveal and no earlier, never a card of the unseen rest of the pile nor
anything of the next round; and the independent leak checker (tests/support/leakcheck.py,
``check_round_story``) catches a forged story: early, of another round, or naming an unseen card.
"""

from __future__ import annotations

import copy
from typing import Any

import leakcheck as lc
from hypothesis import given, settings
from hypothesis import strategies as st

from crisp.engine.crisp import Options
from crisp.engine.crisp.messages import Out, stream
from crisp.engine.crisp.simulate import Policy, play_random
from crisp.engine.crisp.story import STORY_MOVES

Message = dict[str, Any]


def _game(
    players: int, limit: int, timer: int | None, take: bool, seed: int
) -> tuple[Any, list[Out]]:
    outs: list[Out] = []
    game = play_random(
        players,
        Options(limit, timer, take),
        seed,
        policy=Policy(p_absent=0.03),
        sink=outs.extend,
        fair=seed % 2 == 0,
    )
    return game, outs


def _norm(msg: Message) -> Message:
    return {k: v for k, v in msg.items() if v is not None}


def _dealt(deck: list[str], dealer: int, n: int) -> list[list[str]]:
    hands, _ = lc.deal(deck, dealer, n)
    return [[h[s] for s in lc.SLOTS] for h in hands]


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(
    players=st.integers(2, 8),
    limit=st.sampled_from((50, 100)),
    timer=st.sampled_from((None, 30)),
    take=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_story_holds_only_the_finished_rounds_faces(
    players: int, limit: int, timer: int | None, take: bool, seed: int
) -> None:
    """R-SEE-STORY: one ``round_story`` a round, to everyone, right after its ``reveal``; its hands
    are the round's as dealt, its moves are the public moves everyone got (each draw now with its
    face); every face in it was dealt, drawn or face up in that round (the engine's own
    sightings), never a card of the rest of the deck nobody saw, nor of the next round."""
    game, outs = _game(players, limit, timer, take, seed)
    record = game.record()
    spectator = stream(outs, None)
    types = [m["type"] for m in spectator]
    assert types.count("round_story") == types.count("reveal") == sum(r.over for r in game.rounds)
    for seat in range(players):  # everyone gets the same story
        assert [m for m in stream(outs, seat) if m["type"] == "round_story"] == [
            m for m in spectator if m["type"] == "round_story"
        ]
    unseen_total = 0
    r = -1
    public: list[Message] = []
    for i, msg in enumerate(spectator):
        if msg["type"] == "round":
            r, public = msg["round"] - 1, []
        elif msg["type"] in STORY_MOVES:
            public.append(msg)
        elif msg["type"] == "round_story":
            assert spectator[i - 1]["type"] == "reveal"  # right after it, never earlier
            assert msg["round"] == r + 1 and msg["dealer"] == record["rounds"][r]["dealer"]
            deck = record["rounds"][r]["deck"]
            assert msg["hands"] == _dealt(deck, msg["dealer"], players)
            faceless = [m if m["type"] != "draw" else {**m, "card": None} for m in msg["moves"]]
            assert [_norm(m) for m in faceless] == [_norm(m) for m in public]
            assert all("card" in m for m in msg["moves"] if m["type"] == "draw")
            seen = {s.card for s in game.knowledge.sightings if s.round == r + 1}
            seen |= {c for h in msg["hands"] for c in h}
            faces = lc.card_codes(msg)
            assert faces <= seen, f"round {r + 1}: faces nobody saw: {sorted(faces - seen)}"
            unseen = set(deck) - seen
            assert not faces & unseen
            unseen_total += len(unseen)
            if r + 1 < len(record["rounds"]):  # nothing of the next round: not its deal
                nxt = record["rounds"][r + 1]
                assert msg["hands"] != _dealt(nxt["deck"], nxt["dealer"], players)
    assert unseen_total > 0  # the property had something to check: cards nobody drew


# -- the leak checker's rule ------------------------------------------------------------------


def _honest() -> tuple[dict[str, Any], list[Message]]:
    game, outs = _game(3, 50, None, False, 7)
    assert len(game.rounds) >= 2
    return game.record(), stream(outs, 0)


def test_the_leak_checker_passes_honest_stories() -> None:
    record, seen = _honest()
    assert any(m["type"] == "round_story" for m in seen)
    assert lc.check_stream(record, seen, 0) == []


def test_the_leak_checker_catches_a_story_sent_before_the_reveal() -> None:
    """R-SEE-STORY: the story moved before its round's ``reveal`` is a leak."""
    record, seen = _honest()
    k = next(i for i, m in enumerate(seen) if m["type"] == "round_story")
    story = seen.pop(k)
    reveal = max(i for i in range(k) if seen[i]["type"] == "reveal")
    forged = [*seen[: reveal - 1], story, *seen[reveal - 1 :]]
    failures = lc.check_stream(record, forged, 0)
    assert any("before the round's reveal" in f for f in failures), failures


def test_the_leak_checker_catches_the_next_rounds_story() -> None:
    """The second round's story sent after the first round's reveal (its deal, its draws)."""
    record, seen = _honest()
    firsts = [i for i, m in enumerate(seen) if m["type"] == "round_story"]
    second = copy.deepcopy(seen[firsts[1]])
    forged = [*seen[: firsts[0]], second, *seen[firsts[0] + 1 :]]
    failures = lc.check_stream(record, forged, 0)
    assert any("round 2's story after round 1's reveal" in f for f in failures), failures


def test_the_leak_checker_catches_an_unseen_card_of_the_pile() -> None:
    """A story that names a card of the deck nobody drew (the unseen rest of the pile) leaks it,
    even dressed as a draw."""
    record, seen = _honest()
    k = next(i for i, m in enumerate(seen) if m["type"] == "round_story")
    story = copy.deepcopy(seen[k])
    deck = record["rounds"][0]["deck"]
    named = lc.card_codes(story)
    hidden = next(c for c in reversed(deck) if c not in named)
    story["moves"].append({"type": "draw", "t": story["t"], "seat": 0, "deck": 0, "card": hidden})
    forged = [*seen[:k], story, *seen[k + 1 :]]
    failures = lc.check_stream(record, forged, 0)
    assert any(f"LEAK {hidden}" in f for f in failures), failures
    # and a dealt hand changed to another card: a wrong card
    story = copy.deepcopy(seen[k])
    story["hands"][1][1] = hidden
    failures = lc.check_stream(record, [*seen[:k], story, *seen[k + 1 :]], 0)
    assert any("WRONG CARD (R-SEE-STORY): hands" in f for f in failures), failures
