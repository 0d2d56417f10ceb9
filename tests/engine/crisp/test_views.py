"""Per-seat views for reconnects: nothing a seat may not see *now* (docs/rules.md §7,
R-NO-TRACE)."""

from __future__ import annotations

import json
import re

import pytest
from engine_helpers import play_turn, stacked_game

from crisp.engine.crisp import Options
from crisp.engine.crisp import actions as A

HANDS = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["7S", "8S", "9S"]]
CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def faces(view: dict) -> set[str]:  # type: ignore[type-arg]
    return set(CARD.findall(json.dumps(view)))


def test_view_start_look_only_until_ready() -> None:
    """R-SEE-LOOK: the start look is in the view while it is open, then never again."""
    game, _ = stacked_game(HANDS, ["5H"], ready=False)
    assert faces(game.view(0)) == {"AS", "3S"}
    assert faces(game.view(1)) == {"4S", "6S"}
    assert faces(game.view(None)) == set()
    game.apply(A.Ready(0), 1)
    assert faces(game.view(0)) == set()
    assert faces(game.view(1)) == {"4S", "6S"}
    game.advance(10)  # the look phase ends for everyone
    assert faces(game.view(1)) == set()


def test_view_drawn_card_only_to_the_drawer_until_it_leaves() -> None:
    """R-SEE-DRAWN: the drawn card is in the drawer's view only, until it leaves its hands."""
    game, _ = stacked_game(HANDS, ["5H", "6H"])
    game.apply(A.Draw(0), 1)
    assert game.view(0)["round"]["you"]["card"] == "5H"
    assert faces(game.view(1)) == faces(game.view(None)) == set()
    assert game.view(1)["round"]["turn"]["holding"] is True
    game.apply(A.Swap(0, 1), 2)
    for seat in (0, 1, 2, None):
        assert faces(game.view(seat)) == {"2S"}  # only the top of the pile, public


def test_view_no_past_peeks() -> None:
    """R-SEE-LOOK: a Jack look is in the view only until the next change of the game."""
    game, _ = stacked_game(HANDS, ["JH", "7H"])
    game.apply(A.Draw(0), 1)
    game.apply(A.Jack(0), 1.5)
    assert faces(game.view(0)) == {"JH", "2S"}  # the pile's top, and the open look
    assert faces(game.view(1)) == {"JH"}
    game.advance(4.5)  # the window closes: a change, the look is over
    assert faces(game.view(0)) == {"JH"}


def test_view_queen_looks_for_both_players_then_gone() -> None:
    """R-QUEEN-LOOK, R-SEE-LOOK: both looks while open; then face down for good."""
    game, _ = stacked_game(HANDS, ["QH", "7H"])
    game.apply(A.Draw(0), 1)
    game.apply(A.Queen(0, 2, 1, 0), 1.5)
    assert faces(game.view(0)) == {"QH", "4S"}
    assert faces(game.view(1)) == {"QH", "3S"}
    assert faces(game.view(2)) == {"QH"}
    game.apply(A.Draw(1), 3.5)
    assert faces(game.view(0)) == {"QH"}
    assert faces(game.view(1)) == {"QH", "7H"}


def test_view_reveal_after_the_round() -> None:
    """R-SEE-REVEAL: once the round is over, every hand is in everyone's view."""
    game, _ = stacked_game(HANDS, ["5H", "6H", "7H"])
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 1)
    play_turn(game, 1, 2)
    play_turn(game, 2, 2)
    every = {c for hand in HANDS for c in hand}
    for seat in (0, 1, None):
        assert every <= faces(game.view(seat))
    assert game.view(None)["round"]["scores"] == [6 - 5, 15, 24]


def test_view_keeps_the_score_history_for_a_reconnect() -> None:
    """R-CUMULATIVE: a view holds every finished round's scores and totals, as
    the reveals gave them, so that a phone that reloads keeps the score history; before any
    round has ended it is empty."""
    game, _ = stacked_game(HANDS, ["5H", "6H", "7H"])
    assert game.view(None)["history"] == []
    play_turn(game, 0, 0)
    game.apply(A.Crisp(0), 1)
    play_turn(game, 1, 2)
    play_turn(game, 2, 2)
    want = [{"round": 1, "scores": [6 - 5, 15, 24], "totals": [6 - 5, 15, 24]}]
    for seat in (0, 1, None):
        assert game.view(seat)["history"] == want


def test_view_feed_rebuilds_the_moves_without_their_faces() -> None:
    """R-SEE-PUBLIC: a view's feed lists the round's public moves, in order,
    for a phone that reloads, but no face: a discard was public at the moment it landed only."""
    game, _ = stacked_game(HANDS, ["5H", "6H", "7H"])
    play_turn(game, 0, 0)
    play_turn(game, 1, 4, then="swap", slot="middle")
    for seat in (0, 1, 2, None):
        feed = game.view(seat)["feed"]
        moves = [(m["type"], m.get("seat")) for m in feed if m["type"] != "ready"]
        assert moves == [("round", None), ("draw", 0), ("discard", 0), ("draw", 1), ("swap", 1)]
        assert not faces({"feed": feed}), feed
    assert game.view(None)["round"]["top"] == "5S"  # the top stays public, in its own field


def test_view_feed_is_made_when_a_view_asks_not_per_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's speed (its cost was in copying the round's feed): a change copies no message
    into the feed (no ``faceless`` call as the game plays); a view strips the faces then, into
    new dicts, so a view's feed changed by its reader changes neither the next view nor the
    messages the change handed out (R-SEE-PUBLIC, as test_view_feed_rebuilds_… checks)."""
    from crisp.engine.crisp import game as game_module

    calls: list[object] = []
    real = game_module.faceless
    monkeypatch.setattr(game_module, "faceless", lambda m: calls.append(m) or real(m))
    game, _ = stacked_game(HANDS, ["5H", "6H", "7H"])
    game.apply(A.Draw(0), 0)
    outs = game.apply(A.Discard(0), 0)
    play_turn(game, 1, 4, then="swap", slot="middle")
    assert calls == []
    feed = game.view(None)["feed"]
    assert calls and len(feed) == len(calls)
    discard = next(m for m in feed if m["type"] == "discard")
    discard["seat"] = 99
    assert next(m for m in game.view(None)["feed"] if m["type"] == "discard")["seat"] == 0
    sent = [o.msg for o in outs if o.msg["type"] == "discard"]
    assert sent and sent[0]["card"] == "5H" and sent[0]["seat"] == 0


def test_view_names_no_card_identities() -> None:
    """R-NO-TRACE: no id, index or hash field anywhere in a view."""
    game, _ = stacked_game(HANDS, ["5H"], options=Options(timer=30, take_discard=True))
    game.apply(A.Draw(0), 1)
    text = json.dumps(game.view(0))
    for word in ('"id"', "index", "hash", "uid"):
        assert word not in text


def test_deliver_matches_the_audiences_of_for_seat() -> None:
    """messages.deliver routes each Out to exactly the recipients Out.for_seat names."""
    from crisp.engine.crisp.messages import deliver, stream
    from crisp.engine.crisp.record import replay
    from crisp.engine.crisp.simulate import play_random

    game = play_random(4, Options(timer=30, take_discard=True), seed=11, max_actions=80)
    outs = replay(game.record()).outs
    boxes: list[list[dict]] = [[] for _ in range(5)]  # type: ignore[type-arg]
    deliver(outs, boxes)
    for seat in range(4):
        assert boxes[seat] == stream(outs, seat)
    assert boxes[4] == stream(outs, None)


def test_knowledge_records_who_saw_what() -> None:
    """Knowledge: the start look, a draw and a pile card, each seen by the right seats."""
    game, _ = stacked_game(HANDS, ["5H", "6H"])
    game.apply(A.Draw(0), 1)
    know = game.knowledge
    assert know.seen(0) == {"AS", "3S", "5H"}
    assert know.seen(1) == {"4S", "6S"}
    game.apply(A.Discard(0), 2)
    assert "5H" in know.seen(1)
    assert [(s.seat, s.why) for s in know.seen_by("5H", 1)] == [(0, "draw"), (None, "pile")]
