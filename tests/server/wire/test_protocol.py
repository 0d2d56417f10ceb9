"""The documented protocol (docs/protocol.md) against the models and the running server.

- docs/protocol.md is exactly what ``python tools/protocol_doc.py`` makes from the models and the
  template (and the script does not import the web application).
- Every message of many random engine games (absent seats and clock restarts included), with the
  server's ``v``, validates against ``wire.ServerEvent``, and goes to the audience the document
  says; ``game.view`` at many points validates against ``wire.View``.
- The engine message types and fields of docs/engine.md's table are exactly the models'.
- The server's traffic (every message received and sent on a whole game, a grace, a leave, a
  pause) is checked against the same models in ``test_protocol_traffic.py``.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from collections import Counter

import pytest
from paths import ROOT
from pydantic import ValidationError

from crisp.engine.crisp import Options
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.simulate import Policy, play_random
from crisp.games.crisp import wire as E
from crisp.server import app
from crisp.server.socket import inbox
from crisp.server.wire import protocol as P
from tools import protocol_doc

DOC = ROOT / "docs" / "protocol.md"
ENGINE_DOC = ROOT / "docs" / "engine.md"
POLICY = Policy(p_absent=0.03, p_restart=0.03)
EVENT_TYPES = {E.type_of(m) for m in E.EVENT_TYPES}
SERVER_OWN = {E.type_of(m) for m in P.SERVER_TYPES}


def _options(i: int) -> Options:
    return Options((50, 100, 150)[i % 3], (None, 30, 45, 60)[(i // 3) % 4], bool(i % 2))


# -- the document -----------------------------------------------------------------------------


def test_protocol_doc_is_generated_from_the_models() -> None:
    """docs/protocol.md is up to date: regenerating it from protocol.py, wire.py and the template
    gives the committed file byte for byte (its examples validate against their models on the
    way)."""
    expected = protocol_doc.render()
    actual = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    actual.splitlines(True),
                    expected.splitlines(True),
                    "docs/protocol.md",
                    "generated",
                    n=1,
                )
            )[:60]
        )
        pytest.fail(f"docs/protocol.md is out of date: run `{protocol_doc.COMMAND}`\n{diff}")


def test_protocol_doc_tool_stands_apart_from_the_app_and_does_not_ship() -> None:
    """tools/protocol_doc.py imports no web application (it runs in a fresh process without
    loading ``crisp.server.app``), its copies of the app's numbers and HTTP bodies agree with the
    app, and the Docker image, which copies ``crisp/`` only, never holds it."""
    code = (
        "import sys; import tools.protocol_doc as d; d.render(); "
        "assert 'crisp.server.app' not in sys.modules and 'fastapi' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    assert protocol_doc.FLOOD_LIMIT == inbox.FLOOD_LIMIT
    assert protocol_doc.FLOOD_ANSWER_EVERY == inbox.FLOOD_REPORT_EVERY
    for ours, theirs in (
        (P.JoinRequest, app.JoinRequest),
        (P.Joined, app.Joined),
        (P.CreateRequest, app.CreateRequest),
    ):
        shape = {n: (f.annotation, f.is_required()) for n, f in ours.model_fields.items()}
        assert shape == {n: (f.annotation, f.is_required()) for n, f in theirs.model_fields.items()}
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    copies = [line for line in dockerfile.splitlines() if line.startswith("COPY")]
    assert "COPY crisp ./crisp" in copies and not any("tools" in line for line in copies)
    assert ignore[ignore.index("*")] == "*" and "!crisp/" in ignore  # an allow-list: crisp/ only
    assert not any(entry.startswith("!tools") for entry in ignore)


def test_doc_has_a_section_for_every_message_both_ways() -> None:
    """Every client message, every server message and every engine message has its own section
    in docs/protocol.md, and the JSON Schema unions list exactly those types."""
    text = DOC.read_text(encoding="utf-8")
    client = {E.type_of(m) for m in P.CLIENT_TYPES}
    for kind in client | SERVER_OWN | EVENT_TYPES:
        assert f'<a id="msg-{kind}"></a>' in text, kind
    assert set(P.CLIENT.json_schema()["discriminator"]["mapping"]) == client
    assert set(E.SERVER.json_schema()["discriminator"]["mapping"]) == SERVER_OWN | EVENT_TYPES
    assert set(E.SERVER_EVENT.json_schema()["discriminator"]["mapping"]) == EVENT_TYPES


def _engine_table() -> dict[str, set[str]]:
    """docs/engine.md "Messages": each type and the field names its row lists."""
    text = ENGINE_DOC.read_text(encoding="utf-8")
    section = text.split("## Messages", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`[a-z_]+`", cells[0]):
            fields = re.sub(r"\([^()]*\)", "", cells[2])  # not the values in parentheses
            rows[cells[0].strip("`")] = set(re.findall(r"`([a-z_]+)`", fields))
    return rows


def test_engine_doc_messages_match_the_models() -> None:
    """Every engine message type in docs/engine.md's table has a model and every model a row,
    with the same fields (besides ``type``, ``t`` and the server's ``v``)."""
    table = _engine_table()
    assert len(table) >= 19  # the table was found
    assert set(table) == EVENT_TYPES
    for model in E.EVENT_TYPES:
        fields = set(model.model_fields) - {"type", "t", "v"}
        assert fields == table[E.type_of(model)], E.type_of(model)


def test_models_refuse_what_the_engine_never_sends() -> None:
    """The models are strict: an unknown field, a bad card code or slot, a null ``card`` in a
    ``draw`` (it is left out instead) and a view with the fields of another phase are refused."""
    draw = {"type": "draw", "t": 1.5, "seat": 0, "deck": 30, "v": 3}
    E.SERVER_EVENT.validate_python(draw)
    E.SERVER_EVENT.validate_python({**draw, "card": "TD"})
    for bad in (
        {**draw, "card": None},
        {**draw, "card": "1D"},
        {**draw, "extra": 1},
        {**draw, "v": -1},
        {"type": "swap", "t": 1, "seat": 0, "slot": "top", "card": "2C", "v": 1},
    ):
        with pytest.raises(ValidationError):
            E.SERVER_EVENT.validate_python(bad)
    game = play_random(3, Options(), seed=5, max_actions=2)
    view = game.view(0)
    assert view["round"]["phase"] != "over"
    E.VIEW.validate_python(view)
    hands = [["AS", "2S", "3S"]] * 3  # the fields of a round that is over
    mixed = {**view, "round": {**view["round"], "hands": hands, "scores": [6, 6, 6]}}
    with pytest.raises(ValidationError):
        E.VIEW.validate_python(mixed)


# -- random engine games ----------------------------------------------------------------------


def _audience_ok(out: Out) -> bool:
    """The audiences docs/protocol.md states: a look to its seat alone, a draw with its card to the
    drawer alone and without it to all others, every other message to everyone."""
    msg = out.msg
    if msg["type"] == "look":
        return out.to == msg["seat"]
    if msg["type"] == "draw":
        return out.to == msg["seat"] if "card" in msg else out.to == ~msg["seat"]
    return out.to is None


def test_every_engine_message_of_random_games_validates() -> None:
    """Every message of 160 random games (2 to 8 players, every option, seats going absent and
    coming back, clock restarts), with the ``v`` the server adds, validates against
    ``ServerEvent`` and goes to its documented audience; every message type occurs."""
    seen: Counter[str] = Counter()
    for i in range(160):
        batches: list[list[Out]] = []
        play_random(2 + i % 7, _options(i), seed=4000 + i, policy=POLICY, sink=batches.append)
        for v, batch in enumerate(batches, start=1):
            for out in batch:
                model = E.SERVER_EVENT.validate_python({**out.msg, "v": v})
                assert E.type_of(type(model)) == out.msg["type"]
                assert _audience_ok(out), out
                seen[out.msg["type"]] += 1
    assert set(seen) == EVENT_TYPES, EVENT_TYPES - set(seen)


def test_views_of_random_games_validate() -> None:
    """``game.view(seat)`` (what ``state.view`` carries) for every seat and a spectator, cut at
    many points of random games, validates against ``View``: the look phase, play (holding a
    drawn card or not, a window open or not) and a round or game that is over."""
    phases: Counter[str] = Counter()
    for i in range(60):
        players = 2 + i % 7
        for cut in (1, players, 3 * players + i % 5, 10 * players + i, None):
            game = play_random(
                players,
                _options(i),
                seed=7000 + i,
                policy=POLICY,
                max_actions=cut,
                max_rounds=None if cut else 1 + i % 3,
            )
            for seat in [*range(players), None]:
                view = E.VIEW.validate_python(game.view(seat))
                assert (view.round.you is None) == (seat is None)
                phases[view.round.phase] += 1
    assert set(phases) == {"look", "play", "over"}
