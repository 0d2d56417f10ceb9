"""``python tools/protocol_doc.py`` prints ``docs/protocol.md``: the protocol document, generated.

The prose is the Markdown template ``tools/protocol.md.in``; this script fills it in. ``${name}``
in the template is a value from the code (a setting's default, a close code, a limit), and a line
``@@what args`` is replaced by what is generated from the models: a message's section (``@@client
hello``, ``@@server room``, ``@@event turn``: its heading, its docstring, the prose that follows
the line in the template, its fields table and its examples), an object's (``@@object View``), a
fields table (``@@table Joined``), the view examples (``@@view-examples``) and the JSON Schema of
a union (``@@schema client Client messages``). The models are ``crisp/server/wire/protocol.py`` (the
client's messages, the server's own, the HTTP bodies) and ``crisp/games/crisp/wire.py`` (the game's
messages, derived from the engine's events, and the view of a ``state``); every field's
description is on its model. Every example is validated against its model while the document is
made, and a test checks that the committed file is this output.

    .venv/bin/python tools/protocol_doc.py > docs/protocol.md

It imports the models, the settings and a few constants, never the web application (nor does
anything ship it: the Docker image holds ``crisp/`` only).
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from crisp.engine.common.fairness import Fairness, seed_from_int
from crisp.engine.crisp import Game
from crisp.engine.crisp import Options as EngineOptions
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.game import MAX_PLAYERS
from crisp.engine.crisp.scoring import round_scores
from crisp.engine.crisps import CrispsGame
from crisp.engine.crisps import CrispsOptions as CrispsEngineOptions
from crisp.engine.crisps import Out as CrispsOut
from crisp.engine.crisps.cards import SORTED_DECK as SORTED_CRISPS_DECK
from crisp.games import DEFAULT_GAMES
from crisp.games.crisp import wire as E
from crisp.games.crisp.moves import CrispMove, CrispOptions
from crisp.games.crisps import wire as CW
from crisp.games.crisps.moves import CrispsMove
from crisp.games.crisps.moves import CrispsOptions as CrispsOptionsModel
from crisp.server.registry import Registry
from crisp.server.rooms.members import NAME_MAX
from crisp.server.settings import Settings
from crisp.server.wire import protocol as P
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.roomcode import CODE_ALPHABET, CODE_LENGTH

COMMAND = ".venv/bin/python tools/protocol_doc.py > docs/protocol.md"
TEMPLATE = Path(__file__).with_name("protocol.md.in")
CARD_PATTERN = "^[A2-9TJQK][SHDC]$"
#: Messages refused in a row by the rate limit before the connection is closed (the server's
#: ``app.FLOOD_LIMIT``; a test keeps the two equal, as this script does not import the app).
FLOOD_LIMIT = 200
#: The rate limit answers ``rate_limited`` for the first message it drops and then for every
#: this many in a row (``app.py``'s WebSocket loop; a test keeps the two equal).
FLOOD_ANSWER_EVERY = 20


#: The most seats a game of the default list has: the bound of the protocol's seat numbers.
MOST_SEATS = Registry.load(DEFAULT_GAMES).most_seats


class Schema(GenerateJsonSchema):
    """The JSON Schema of a model, with the protocol's seat numbers bounded as the server bounds
    them (below the most seats of its games: ``protocol.below_the_most_seats``)."""

    def function_after_schema(
        self, schema: core_schema.AfterValidatorFunctionSchema
    ) -> JsonSchemaValue:
        json_schema = super().function_after_schema(schema)
        if schema["function"]["function"] is P.below_the_most_seats:
            json_schema = {**json_schema, "maximum": MOST_SEATS - 1}
        return json_schema


def setting(name: str) -> str:
    """A setting's default, as the text shows it (20.0 is 20)."""
    value = Settings.model_fields[name].default
    return f"{value:g}" if isinstance(value, float) else str(value)


#: Types shown otherwise than the schema says (the model leaves them open).
TYPE_NOTES: dict[tuple[str, str], str] = {
    ("State", "view"): "[View](#obj-view) or null",
}

# -- examples: a room KWMNACFHJRXY with Ana (host, seat 0), Ben (seat 1) and Chloé (seat 2) -------

TOKEN = "Vt3kq0ZfW1b2YhQ9sLr8uA6mNcJ4xE7d"
YOU_BEN = {"member": 2, "seat": 1, "host": False, "name": "Ben"}
OPTIONS = {"limit": 100, "timer": 30, "take_discard": False}
MEMBERS = [
    {"id": 1, "name": "Ana", "seat": 0, "host": True, "connected": True, "absent": False},
    {"id": 2, "name": "Ben", "seat": 1, "host": False, "connected": True, "absent": False},
    {"id": 3, "name": "Chloé", "seat": 2, "host": False, "connected": False, "absent": False},
]

HANDS = [["AS", "9D", "KH"], ["2C", "AD", "3H"], ["TS", "5C", "QD"]]

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "hello": [{"type": "hello", "token": TOKEN}, {"type": "hello"}],
    "act": [
        {"type": "act", "v": 17, "do": "draw"},
        {"type": "act", "v": 18, "do": "swap", "slot": "left"},
        {
            "type": "act",
            "v": 25,
            "do": "queen",
            "slot": "right",
            "target": 2,
            "target_slot": "middle",
        },
    ],
    "options": [{"type": "options", **OPTIONS}],
    "start": [{"type": "start"}],
    "kick": [{"type": "kick", "member": 3}],
    "host": [{"type": "host", "member": 2}],
    "leave": [{"type": "leave"}],
    "continue": [{"type": "continue"}],
    "rematch": [{"type": "rematch"}],
    "grace": [{"type": "grace", "seat": 2, "seconds": 60}, {"type": "grace", "seat": 2}],
    "add_bot": [{"type": "add_bot", "level": "hard"}],
    "bot": [{"type": "bot", "seat": 1, "level": "normal"}],
    "sync": [{"type": "sync"}],
    "ping": [{"type": "ping", "n": 7}],
    "client_seed": [{"type": "client_seed", "seed": "3f9c0e71a2b4d6c8e0f1a3b5c7d9e1f2"}],
    "probe_ack": [{"type": "probe_ack", "n": 12}],
    "welcome": [{"type": "welcome", "you": {**YOU_BEN, "seat": None}, "clock_speed": 1.0}],
    "room": [
        {
            "type": "room",
            "v": 6,
            "code": "KWMNACFHJRXY",
            "game_type": "crisp",
            "phase": "lobby",
            "options": OPTIONS,
            "members": MEMBERS,
            "game": 0,
            "between": None,
            "record": False,
        },
        {
            "type": "room",
            "v": 88,
            "code": "KWMNACFHJRXY",
            "game_type": "crisp",
            "phase": "between",
            "options": OPTIONS,
            "members": MEMBERS,
            "game": 1,
            "between": {"waiting": [1], "deal_in": 21.52},
            "record": False,
        },
    ],
    "state": [],  # made from a real game below
    "error": [
        {
            "type": "error",
            "code": "illegal",
            "message": "it is seat 0's turn, not seat 1's",
            "rule": "R-TURN",
            "about": "act",
            "v": 21,
        },
        {
            "type": "error",
            "code": "stale",
            "message": "the game moved on since that version: look again",
            "about": "act",
            "v": 22,
        },
        {"type": "error", "code": "bad_json", "message": "not JSON", "v": 22},
    ],
    "left": [{"type": "left", "code": "KWMNACFHJRXY"}],
    "pong": [{"type": "pong", "n": 7}],
    "probe": [{"type": "probe", "n": 12}],
    "game": [
        {"type": "game", "t": 0.0, "players": ["Ana", "Ben", "Chloé"], "options": OPTIONS, "v": 8}
    ],
    "round": [
        {
            "type": "round",
            "t": 0.0,
            "round": 1,
            "dealer": 2,
            "first": 0,
            "deck": 43,
            "look_until": 10.0,
            "v": 8,
        }
    ],
    "look": [
        {"type": "look", "t": 0.0, "seat": 1, "slot": "left", "card": "7H", "why": "deal", "v": 8},
        {
            "type": "look",
            "t": 31.4,
            "seat": 1,
            "slot": "middle",
            "card": "KD",
            "why": "jack",
            "v": 19,
        },
    ],
    "ready": [{"type": "ready", "t": 2.317, "seat": 1, "v": 10}],
    "turn": [
        {
            "type": "turn",
            "t": 6.05,
            "seat": 0,
            "draw": 1,
            "left": 1,
            "at": 6.05,
            "deadline": 36.05,
            "final": False,
            "v": 12,
        },
        {
            "type": "turn",
            "t": 9.81,
            "seat": 1,
            "draw": 1,
            "left": 1,
            "at": 11.81,
            "deadline": 41.81,
            "final": False,
            "v": 13,
        },
    ],
    "draw": [
        {"type": "draw", "t": 17.02, "seat": 1, "deck": 41, "card": "QS", "v": 16},
        {"type": "draw", "t": 17.02, "seat": 1, "deck": 41, "v": 16},
    ],
    "recycle": [{"type": "recycle", "t": 412.9, "deck": 36, "v": 160}],
    "swap": [{"type": "swap", "t": 9.81, "seat": 0, "slot": "left", "card": "9C", "v": 13}],
    "discard": [{"type": "discard", "t": 21.3, "seat": 2, "card": "4D", "v": 18}],
    "jack": [{"type": "jack", "t": 31.4, "seat": 1, "card": "JH", "v": 19}],
    "queen": [
        {
            "type": "queen",
            "t": 18.75,
            "seat": 1,
            "slot": "right",
            "target": 2,
            "target_slot": "middle",
            "card": "QS",
            "v": 17,
        }
    ],
    "king": [{"type": "king", "t": 44.1, "seat": 0, "card": "KC", "left": 2, "v": 23}],
    "take": [{"type": "take", "t": 52.0, "seat": 2, "slot": "right", "card": "TH", "v": 27}],
    "timeout": [{"type": "timeout", "t": 66.6, "seat": 1, "card": "3S", "lost": 0, "v": 30}],
    "turn_end": [
        {
            "type": "turn_end",
            "t": 9.81,
            "seat": 0,
            "window_until": 12.81,
            "next": 1,
            "next_at": 11.81,
            "v": 13,
        },
        {
            "type": "turn_end",
            "t": 66.6,
            "seat": 1,
            "window_until": None,
            "next": 2,
            "next_at": 66.6,
            "v": 30,
        },
    ],
    "window_closed": [{"type": "window_closed", "t": 12.81, "seat": 0, "v": 14}],
    "crisp": [{"type": "crisp", "t": 70.2, "seat": 1, "final": [2, 0], "v": 32}],
    "reveal": [
        {
            "type": "reveal",
            "t": 81.9,
            "caller": 1,
            "hands": HANDS,
            "scores": round_scores(HANDS, 1),
            "totals": round_scores(HANDS, 1),
            "v": 36,
        }
    ],
    "round_story": [  # R-SEE-STORY: a short round, told again face up
        {
            "type": "round_story",
            "t": 81.9,
            "round": 1,
            "dealer": 2,
            "hands": [["AS", "9D", "4H"], ["2C", "AD", "3H"], ["TS", "5C", "QD"]],
            "moves": [
                {"type": "ready", "t": 2.1, "seat": 1},
                {"type": "draw", "t": 10.0, "seat": 0, "deck": 42, "card": "KH"},
                {"type": "swap", "t": 12.4, "seat": 0, "slot": "right", "card": "4H"},
                {"type": "crisp", "t": 70.3, "seat": 1, "final": [2, 0]},
            ],
            "v": 36,
        }
    ],
    "game_over": [
        {"type": "game_over", "t": 75.4, "totals": [104, 61, 88], "winners": [1], "v": 412}
    ],
    "clock": [
        {"type": "clock", "t": 120.4, "seat": 2, "deadline": 180.4, "v": 51},
        {"type": "clock", "t": 133.0, "seat": 2, "deadline": None, "v": 53},
    ],
}


def view_example() -> tuple[dict[str, Any], dict[str, Any]]:
    """A real view from the engine (seed 7, three players): seat 1's, and a spectator's, while
    seat 1 holds a drawn card."""
    game = Game(["Ana", "Ben", "Chloé"], EngineOptions(100, 30, False), seed=7)
    game.start_round()
    r = game.round
    for seat in range(3):
        game.apply(A.Ready(seat), 1.5 + seat)
    first = r.first
    game.apply(A.Draw(first), 5.2)
    game.apply(A.Discard(first), 7.9)
    nxt = r.turn
    game.apply(A.Draw(nxt), 10.4)
    return game.view(nxt), game.view(None)


def state_examples() -> list[dict[str, Any]]:
    seat_view, _ = view_example()
    seat = seat_view["round"]["you"]["seat"]
    you = {**YOU_BEN, "seat": seat, "member": seat + 1, "name": seat_view["players"][seat]}
    return [
        {"type": "state", "v": 19, "now": 11.204, "view": seat_view, "you": you},
        {"type": "state", "v": 4, "now": None, "view": None, "you": {**you, "seat": None}},
    ]


# -- Crisps! examples: real engine messages of a stacked deal (docs/rules-crisps.md §11, case 5) ---


def _deck(top: str) -> str:
    """A 40-card deck with ``top`` first (positions 1, 2, …), the other cards after it."""
    rest = list(SORTED_CRISPS_DECK)
    for card in top:
        rest.remove(card)
    return top + "".join(rest)


#: seat 0 1134455799XX, seat 1 1233567799XX, set aside 1236, face-up 8, then the pile 2 6 …
CRISPS_DECK = _deck("1134455799XX1233567799XX1236826")
CRISPS_OUT = [_deck("11223344556677889999XXXX"), _deck("77889999XXXX112233445566")]


def _crisps_game(decks: list[str], **options: Any) -> CrispsGame:
    fair = Fairness(seed_from_int(7), ("a1b2", ""))
    game = CrispsGame(
        ["Ana", "Ben"], CrispsEngineOptions(**options), fairness=fair, first_starter=0, decks=decks
    )
    return game


def _crisps_stream() -> list[tuple[int, CrispsOut]]:
    """(v, out) of a timed game: a lead, a follow, a pass, the draw, a clock restart; then a
    skip (CS-OPT-SKIP) and a game played out by going out five times."""
    game = _crisps_game([CRISPS_DECK], timer=30)
    steps: list[list[CrispsOut]] = [game.start()]
    steps.append(game.apply(0, {"do": "play", "cards": "4"}, 3.5))
    steps.append(game.apply(1, {"do": "play", "cards": "5"}, 6.25))
    steps.append(game.apply(0, {"do": "pass"}, 9.0))
    steps.append(game.apply(1, {"do": "draw", "take": "faceup"}, 12.75))
    steps.append(game.restart_clock(20.0))
    skip = _crisps_game([_deck("XXXX12345678123456789123")], auto_skip=True)
    steps.append(skip.start())
    steps.append(skip.apply(0, {"do": "play", "cards": "XXXX"}, 2.0))
    out = _crisps_game([CRISPS_OUT[0], CRISPS_OUT[1], CRISPS_OUT[0], CRISPS_OUT[1], CRISPS_OUT[0]])
    out.start()
    for t in range(1, 6):
        assert out.due is not None
        steps.append(out.apply(out.due[0], {"do": "play", "cards": "112233445566"}, t * 4.0))
    return [(v, o) for v, outs in enumerate(steps, start=1) for o in outs]


def crisps_messages() -> dict[str, list[dict[str, Any]]]:
    """Per message type, a few real messages: each audience's version once (seat 0, seat 1, a
    watcher), the first time a new set of keys appears."""
    found: dict[str, list[dict[str, Any]]] = {}
    shapes: set[tuple[str, frozenset[str]]] = set()
    for v, o in _crisps_stream():
        kind = o.msg["type"]
        shape = (kind, frozenset(o.msg))
        if kind == "pass" and o.msg["skipped"]:
            shape = (kind, frozenset({"skipped"}))
        if shape in shapes or len(found.get(kind, [])) >= 3:
            continue
        if kind == "turn" and o.msg["need"] == "lead" and o.msg.get("legal"):
            continue  # a leader's list of plays is long: the follower's shows the same keys
        shapes.add(shape)
        found.setdefault(kind, []).append({**o.msg, "v": v})
    return found


def crisps_views() -> list[dict[str, Any]]:
    """Seat 0's view while it chooses its draw, and a watcher's at the same moment."""
    game = _crisps_game([CRISPS_DECK], timer=30)
    game.start()
    game.apply(0, {"do": "play", "cards": "4"}, 3.5)
    game.apply(1, {"do": "pass"}, 6.25)
    return [game.view(0), game.view(None)]


# -- rendering ------------------------------------------------------------------------------------

OBJECTS: list[type[BaseModel]] = [
    CrispMove,
    CrispOptions,
    P.Member,
    P.Between,
    P.You,
    E.View,
    E.RoundView,
    E.TurnView,
    E.WindowView,
    E.YouView,
    E.LookView,
]
CRISPS_OBJECTS: list[type[BaseModel]] = [CrispsMove, CrispsOptionsModel, *CW.OBJECTS]
OBJECT_NAMES = {m.__name__ for m in (*OBJECTS, *CRISPS_OBJECTS)}


def anchor_obj(name: str) -> str:
    return f"obj-{name.lower()}"


def code(value: Any) -> str:
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def render_type(schema: dict[str, Any]) -> str:
    """A JSON Schema, as a short phrase for a table cell."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{anchor_obj(name)})" if name in OBJECT_NAMES else name
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return render_type(schema["allOf"][0])
    if "anyOf" in schema:
        parts = [render_type(s) for s in schema["anyOf"]]
        return " or ".join(parts)
    if "const" in schema:
        return code(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(code(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "null":
        return "null"
    if kind == "string":
        if schema.get("pattern") == CARD_PATTERN:
            return "card code"
        if "maxLength" in schema:
            return f"string (at most {schema['maxLength']} characters)"
        return "string"
    if kind in ("integer", "number"):
        word = "integer" if kind == "integer" else "number"
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if lo is not None and hi is not None:
            return f"{word} {lo:g} to {hi:g}"
        if lo is not None:
            return f"{word} ≥ {lo:g}"
        return word
    if kind == "boolean":
        return "boolean"
    if kind == "array":
        items = render_type(schema.get("items", {}))
        n_min, n_max = schema.get("minItems"), schema.get("maxItems")
        if n_min is not None and n_min == n_max:
            return f"array of {n_min} × {items}"
        return f"array of {items}"
    if kind == "object":
        return "object"
    return "any"


def cell(text: str) -> str:
    return " ".join(text.replace("``", "`").split()).replace("|", "\\|")


def field_order(model: type[BaseModel]) -> list[str]:
    """A message's ``type`` first, ``t`` next, ``v`` last (as in the examples), the rest in model
    order."""
    names = list(model.model_fields)
    if "type" not in names:
        return names
    head = [n for n in ("type", "t") if n in names]
    tail = ["v"] if "v" in names and model in (*E.EVENT_TYPES, *CW.EVENT_TYPES) else []
    return head + [n for n in names if n not in head and n not in tail] + tail


def ordered(model: type[BaseModel], example: dict[str, Any]) -> dict[str, Any]:
    """The example's fields in the model's order, then a game's own fields (``act``,
    ``options``) as written."""
    keys = [k for k in field_order(model) if k in example]
    return {**{k: example[k] for k in keys}, **{k: v for k, v in example.items() if k not in keys}}


def fields_table(model: type[BaseModel]) -> str:
    schema = model.model_json_schema(schema_generator=Schema)
    props: dict[str, Any] = schema["properties"]
    required = set(schema.get("required", []))
    rows = ["| field | type | required | description |", "| --- | --- | --- | --- |"]
    for name in field_order(model):
        prop = props[name]
        desc = "the message type" if name == "type" else prop.get("description") or ""
        if not desc:
            raise ValueError(f"{model.__name__}.{name} has no description: add one")
        if name in required:
            req = "yes"
        else:
            default = model.model_fields[name].default
            req = "no" if default is None else f"no (default {code(default)})"
        kind = TYPE_NOTES.get((model.__name__, name)) or render_type(prop)
        rows.append(f"| `{name}` | {cell(kind)} | {req} | {cell(desc)} |")
    return "\n".join(rows)


def doc_of(model: type[BaseModel]) -> str:
    """A model's docstring as one Markdown paragraph (``x`` becomes `x`)."""
    text = (model.__doc__ or "").replace("``", "`")
    return " ".join(text.split())


def kind_of(model: type[BaseModel]) -> str | None:
    field = model.model_fields.get("type")
    return E.type_of(model) if field is not None else None


def examples_block(model: type[BaseModel], examples: list[dict[str, Any]]) -> str:
    out = []
    for example in examples:
        model.model_validate(example)  # an example that does not validate stops the build
        game_fields = {k: v for k, v in example.items() if k not in model.model_fields}
        if model in CW.EVENT_TYPES:
            CW.SERVER_EVENT.validate_python(example)
        elif kind_of(model) == "act":
            CrispMove.model_validate(game_fields)
        elif kind_of(model) == "options":
            CrispOptions.model_validate(game_fields)
        line = json.dumps(ordered(model, example), ensure_ascii=False, separators=(", ", ": "))
        out.append(line)
    return "```json\n" + "\n".join(out) + "\n```"


def msg_heading(model: type[BaseModel], arrow: str) -> str:
    kind = E.type_of(model)
    return f'<a id="msg-{kind}"></a>\n\n### `{kind}` ({arrow})'


def client_section(model: type[BaseModel], notes: str) -> str:
    kind = E.type_of(model)
    parts = [msg_heading(model, "client → server"), doc_of(model), notes]
    parts += [fields_table(model), examples_block(model, EXAMPLES[kind])]
    return "\n\n".join(parts)


def server_section(model: type[BaseModel], notes: str) -> str:
    kind = E.type_of(model)
    examples = state_examples() if kind == "state" else EXAMPLES[kind]
    parts = [msg_heading(model, "server → client")]
    if doc_of(model):
        parts.append(doc_of(model))
    parts += [notes, fields_table(model), examples_block(model, examples)]
    return "\n\n".join(parts)


def event_section(model: type[BaseModel]) -> str:
    kind = E.type_of(model)
    parts = [
        msg_heading(model, "server → client, from the engine"),
        doc_of(model),
        fields_table(model),
        examples_block(model, EXAMPLES[kind]),
    ]
    return "\n\n".join(parts)


def crisps_event_section(model: type[BaseModel]) -> str:
    kind = E.type_of(model)
    arrow = "server → client, from the engine"
    heading = f'<a id="crisps-msg-{kind}"></a>\n\n### Crisps! `{kind}` ({arrow})'
    examples = crisps_messages()[kind]
    return "\n\n".join(
        [heading, doc_of(model), fields_table(model), examples_block(model, examples)]
    )


def crisps_view_examples() -> str:
    views = crisps_views()
    for view in views:
        CW.VIEW.validate_python(view)
    lines = [json.dumps(v, ensure_ascii=False, separators=(", ", ": ")) for v in views]
    return "```json\n" + "\n".join(lines) + "\n```"


def object_section(model: type[BaseModel]) -> str:
    name = model.__name__
    parts = [f'<a id="{anchor_obj(name)}"></a>\n\n### {name}']
    if doc_of(model):
        parts.append(doc_of(model))
    parts.append(fields_table(model))
    return "\n\n".join(parts)


def schema_block(title: str, adapter: TypeAdapter[Any]) -> str:
    schema = json.dumps(adapter.json_schema(schema_generator=Schema), ensure_ascii=False, indent=1)
    return f"### {title}\n\n```json\n{schema}\n```"


MARKDOWN_START = re.compile(r"^(#|>|[-+*] |\d+\. |\||<|```)")


def reflow(markdown: str, width: int = 100) -> str:
    """Wrap the paragraphs and list items of ``markdown`` at ``width``; headings, tables, HTML,
    numbered lists and fenced code stay as they are."""
    out: list[str] = []
    run: list[str] = []
    fenced = False

    def wrap(text: str, first: str, rest: str) -> list[str]:
        lines = textwrap.wrap(
            " ".join(text.split()),
            width,
            initial_indent=first,
            subsequent_indent=rest,
            break_long_words=False,
            break_on_hyphens=False,
        )
        for line in lines[1:]:
            if MARKDOWN_START.match(line.strip()):
                raise ValueError(f"a wrapped line would start Markdown syntax: {line!r}")
        return lines

    def flush() -> None:
        if not run:
            return
        if MARKDOWN_START.match(run[0]) and not run[0].startswith("- "):
            out.extend(run)
        elif run[0].startswith("- "):
            items: list[str] = []
            for line in run:
                if line.startswith("- "):
                    items.append(line[2:])
                else:
                    items[-1] += " " + line.strip()
            for item in items:
                out.extend(wrap(item, "- ", "  "))
        else:
            out.extend(wrap(" ".join(run), "", ""))
        run.clear()

    for line in markdown.split("\n"):
        if fenced or line.startswith("```"):
            flush()
            out.append(line)
            if line.startswith("```"):
                fenced = not fenced
            continue
        if not line.strip():
            flush()
            out.append(line)
        else:
            run.append(line)
    flush()
    return "\n".join(out)


# -- the template ---------------------------------------------------------------------------------


def constants() -> dict[str, str]:
    """The values ``${name}`` stands for in the template."""
    values: dict[str, Any] = {
        "COMMAND": COMMAND,
        "CODE_LENGTH": CODE_LENGTH,
        "CODE_ALPHABET": CODE_ALPHABET,
        "NAME_MAX": NAME_MAX,
        "MAX_SEATS": MAX_PLAYERS,
        "SPEED_DOC": "game seconds per real second",
        "FLOOD_LIMIT": FLOOD_LIMIT,
        "FLOOD_ANSWER_EVERY": FLOOD_ANSWER_EVERY,
        "VIEW_SEAT": view_example()[0]["round"]["you"]["seat"],
    }
    values.update({name: setting(name) for name in Settings.model_fields})
    prefix = Settings.model_config.get("env_prefix", "")
    values.update({f"ENV_{name}": f"{prefix}{name}".upper() for name in Settings.model_fields})
    values.update({f"CLOSE_{code.name}": int(code) for code in CloseCode})
    return {k: str(v) for k, v in values.items()}


MODELS: dict[str, dict[str, type[BaseModel]]] = {
    "client": {E.type_of(m): m for m in P.CLIENT_TYPES},
    "server": {E.type_of(m): m for m in P.SERVER_TYPES},
    "event": {E.type_of(m): m for m in E.EVENT_TYPES},
    "object": {m.__name__: m for m in OBJECTS},
    "table": {m.__name__: m for m in (P.JoinRequest, P.CreateRequest, P.Joined)},
    "crisps-event": {E.type_of(m): m for m in CW.EVENT_TYPES},
    "crisps-object": {m.__name__: m for m in CRISPS_OBJECTS},
}
SCHEMAS: dict[str, TypeAdapter[Any]] = {
    "client": P.CLIENT,
    "server": E.SERVER,
    "view": E.VIEW,
    "crisps-server": CW.SERVER,
    "crisps-view": CW.VIEW,
}
DIRECTIVE = re.compile(r"^@@([a-z-]+)(?: (\S+))?(?: (.+))?$")


def expand(text: str) -> str:
    """Replace each ``@@`` line of the template (and the prose that belongs to it) by its
    generated section."""
    out: list[str] = []
    lines = text.split("\n")
    seen: dict[str, set[str]] = {kind: set() for kind in MODELS}
    i = 0
    while i < len(lines):
        match = DIRECTIVE.match(lines[i])
        if match is None:
            out.append(lines[i])
            i += 1
            continue
        what, name, title = match.groups()
        i += 1
        notes: list[str] = []  # the prose up to the next directive or heading
        while i < len(lines) and not DIRECTIVE.match(lines[i]) and not lines[i].startswith("#"):
            notes.append(lines[i])
            i += 1
        prose = "\n".join(notes).strip()
        if what in MODELS:
            model = MODELS[what][name]
            seen[what].add(name)
        if what == "client":
            out.append(client_section(model, prose))
        elif what == "server":
            out.append(server_section(model, prose))
        elif what == "event":
            out.append(event_section(model))
        elif what in ("object", "crisps-object"):
            out.append(object_section(model))
        elif what == "crisps-event":
            out.append(crisps_event_section(model))
        elif what == "crisps-view-examples":
            out.append(crisps_view_examples())
        elif what == "table":
            out.append(fields_table(model))
        elif what == "view-examples":
            out.append(view_examples())
        elif what == "schema":
            out.append(schema_block(title, SCHEMAS[name]))
        else:
            raise ValueError(f"unknown template directive @@{what}")
        if what not in ("client", "server") and prose:
            out += ["", prose]
        out.append("")
    for kind, names in seen.items():
        if names != set(MODELS[kind]):
            raise ValueError(f"the template's @@{kind} sections are not {sorted(MODELS[kind])}")
    return "\n".join(out)


def view_examples() -> str:
    seat_view, watcher_view = view_example()
    E.VIEW.validate_python(seat_view)
    E.VIEW.validate_python(watcher_view)
    lines = [
        json.dumps(v, ensure_ascii=False, separators=(", ", ": "))
        for v in (seat_view, watcher_view)
    ]
    return "```json\n" + "\n".join(lines) + "\n```"


def check_tables(text: str) -> None:
    """Every error code and close code has its row in the template (else the build stops)."""
    codes = set(P.Error.model_fields["code"].annotation.__args__)  # type: ignore[union-attr]
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))
    if codes != rows:
        raise ValueError(f"the error table's codes are not {sorted(codes)}: {sorted(rows)}")
    closes = {str(int(code)) for code in CloseCode}
    documented = set(re.findall(r"^\| (\d{4}) \|", text, re.M))
    if documented != closes - {str(int(CloseCode.NORMAL))}:
        raise ValueError(f"the close code table is not CloseCode's codes: {sorted(closes)}")
    served = set(E.SERVER.json_schema()["discriminator"]["mapping"])
    if served != {E.type_of(m) for m in (*P.SERVER_TYPES, *E.EVENT_TYPES)}:
        raise ValueError("wire.ServerMessage does not match protocol.SERVER_TYPES + the events")


def render() -> str:
    """The whole of docs/protocol.md."""
    if not set(EXAMPLES) >= set(MODELS["client"]) | set(MODELS["event"]):
        raise ValueError("a client or engine message has no example")
    text = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(constants())
    check_tables(text)
    return reflow(expand(text).strip("\n")) + "\n"


def main() -> int:
    sys.stdout.buffer.write(render().encode("utf-8"))  # UTF-8 whatever the locale
    return 0


if __name__ == "__main__":
    sys.exit(main())
