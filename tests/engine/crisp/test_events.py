"""The engine's typed events (crisp.engine.crisp.events): each ``Out`` carries a frozen dataclass
and its
wire dict, the two agree, and the wire is exactly what the dataclass says (docs/engine.md,
"Messages")."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections import Counter

import pytest

from crisp.engine.crisp import Options
from crisp.engine.crisp import events as E
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.simulate import Policy, play_random


def _outs(games: int) -> list[Out]:
    outs: list[Out] = []
    for seed in range(games):
        options = Options((50, 100, 150)[seed % 3], (None, 30)[seed % 2], bool(seed % 4 == 1))
        play_random(
            3 + seed % 5,
            options,
            seed,
            policy=Policy(p_absent=0.03, p_restart=0.03),
            sink=outs.extend,
        )
    return outs


def test_every_message_is_its_event_on_the_wire() -> None:
    """Every message of many random games is ``event.to_wire()``: ``type`` first, then the
    event's fields in order (a field that may be left out only when it has a value: a ``draw``'s
    ``card`` in the drawer's copy, the fairness fields of a game with a verifiable shuffle), and
    the event is rebuilt from it; every event class is seen."""
    seen: Counter[str] = Counter()
    for out in _outs(40):
        event = out.event
        assert isinstance(event, E.EVENTS[out.msg["type"]])
        assert out.msg == event.to_wire() and out.msg is not event.to_wire()  # a copy
        names = [
            f.name
            for f in dataclasses.fields(event)
            if not (f.metadata.get(E.OMIT) and getattr(event, f.name) is None)
        ]
        assert list(out.msg) == ["type", *names]
        assert E.from_wire({**out.msg, "v": 7}) == event
        seen[event.type] += 1
    assert set(seen) == set(E.EVENTS), set(E.EVENTS) - set(seen)


def test_events_are_frozen_and_copy_like_dataclasses() -> None:
    """An event cannot change; a copy, a pickle and ``dataclasses.replace`` are events too."""
    turn = E.TurnEvent(t=1.5, seat=1, draw=1, left=1, at=3.5, deadline=None, final=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.seat = 2  # type: ignore[misc]
    assert copy.deepcopy(turn) == turn == pickle.loads(pickle.dumps(turn))
    later = dataclasses.replace(turn, draw=2)
    assert later.to_wire()["draw"] == 2 and turn.draw == 1
    wire = turn.to_wire()
    wire["seat"] = 5  # the wire dict is the caller's own
    assert turn.seat == 1
    assert repr(E.DrawEvent(2.0, 0, 40)) == "DrawEvent(t=2.0, seat=0, deck=40, card=None)"


def test_every_field_has_a_description_and_a_wire_type() -> None:
    """The derived protocol models need a description on every field of every event."""
    for cls in E.EVENT_TYPES:
        assert cls.__doc__ and cls.type
        for f in dataclasses.fields(cls):
            assert f.metadata.get(E.DOC), f"{cls.__name__}.{f.name}"
