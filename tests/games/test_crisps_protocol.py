"""Crisps!'s wire models (``crisp/games/crisps/wire.py``) against the engine: every message and
every view of random games under every option validates, the models refuse what the engine never
sends, and docs/protocol.md has a section for every Crisps! message."""

from __future__ import annotations

import random
from typing import Any

import pytest
from paths import ROOT
from pydantic import ValidationError

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisps import CrispsGame, CrispsOptions
from crisp.games.crisps import wire as W


def games() -> list[tuple[CrispsGame, list[Any]]]:
    out = []
    for i in range(16):
        opts = CrispsOptions(
            no_faceup=bool(i & 1),
            crisp_runs=bool(i & 2),
            auto_skip=bool(i & 4),
            timer=30 if i & 8 else None,
        )
        fair = Fairness(bytes([i]) * 32, ("a1", "")) if i % 3 == 0 else None
        g = CrispsGame(["Ana", "Ben"], opts, seed=None if fair else i, fairness=fair)
        outs, views = g.start(), []
        rng, t = random.Random(i), 0.0
        while not g.over:
            assert g.due is not None
            if opts.timer and rng.random() < 0.2:
                t = g.next_deadline() or t
                outs += g.advance(t)
                outs += g.restart_clock(t)
            else:
                t += 1
                outs += g.apply(g.due[0], rng.choice(g.legal_moves(g.due[0])), t)
            views += [g.view(s) for s in (0, 1, None)]
        out.append((g, [*outs, *views]))
    return out


def test_every_crisps_message_and_view_of_random_games_validates() -> None:
    kinds: set[str] = set()
    for _g, items in games():
        for i, item in enumerate(items):
            if hasattr(item, "msg"):
                W.SERVER_EVENT.validate_python({**item.msg, "v": i})
                kinds.add(item.msg["type"])
            else:
                W.VIEW.validate_python(item)
    assert kinds == {
        W.EVENT_TYPES[i].model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
        for i in range(len(W.EVENT_TYPES))
    }


@pytest.mark.parametrize(
    "bad",
    [
        {
            "type": "play",
            "v": 1,
            "seat": 0,
            "cards": "43",
            "kind": "run",
            "rank": "3",
            "size": 2,
            "hands": [1, 1],
            "timeout": False,
        },  # not in rank order
        {
            "type": "draw",
            "v": 1,
            "seat": 0,
            "take": "faceup",
            "faceup": "8",
            "new_faceup": None,
            "pile": 0,
            "hands": [1, 1],
            "timeout": False,
            "blind": None,
        },  # a null blind
        {"type": "pass", "v": 1, "seat": 2, "skipped": False, "timeout": False},  # no seat 2
        {
            "type": "round",
            "v": 1,
            "round": 1,
            "starter": 0,
            "points": [0, 0],
            "hands": [12, 12],
            "set_aside": 4,
            "faceup": "7",
            "pile": 11,
            "card_id": 3,
        },  # an identity
    ],
)
def test_models_refuse_what_the_engine_never_sends(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        W.SERVER_EVENT.validate_python(bad)


def test_protocol_doc_has_a_section_for_every_crisps_message() -> None:
    text = (ROOT / "docs/protocol.md").read_text(encoding="utf-8")
    for model in W.EVENT_TYPES:
        kind = model.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
        assert f'<a id="crisps-msg-{kind}"></a>' in text, kind
    for model in W.OBJECTS:
        assert f"### {model.__name__}" in text
