"""``python -m crisp.server.protocol_doc`` prints ``docs/protocol.md``, generated from the models.

The message sections (their fields, types, whether required, descriptions) and the JSON Schema at
the end come from the pydantic models of ``protocol.py`` (the client's messages and the server's
own) and ``events.py`` (the rules engine's messages, and the view of a ``state``); the limits and
close codes from the settings and ``connection.py``. The prose says how the server behaves, as
``hub.py``, ``room.py`` and ``app.py`` implement it. Every example is validated against its model
while the document is made, and a test checks that the committed file is this output.

    .venv/bin/python -m crisp.server.protocol_doc > docs/protocol.md
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from typing import Any

from pydantic import BaseModel, TypeAdapter

from crisp.engine import Game
from crisp.engine import Options as EngineOptions
from crisp.engine import actions as A
from crisp.engine.scoring import round_scores
from crisp.server import connection as C
from crisp.server import events as E
from crisp.server import protocol as P
from crisp.server.app import FLOOD_LIMIT, Joined, JoinRequest
from crisp.server.lobby import MAX_SEATS
from crisp.server.members import CODE_ALPHABET, CODE_LENGTH, NAME_MAX
from crisp.server.settings import Settings

COMMAND = ".venv/bin/python -m crisp.server.protocol_doc > docs/protocol.md"
CARD_PATTERN = "^[A2-9TJQK][SHDC]$"


def setting(name: str) -> str:
    """A setting's default, as the text shows it (20.0 is 20)."""
    value = Settings.model_fields[name].default
    return f"{value:g}" if isinstance(value, float) else str(value)


# -- descriptions of fields that have none in their model -----------------------------------------

FIELD_NOTES: dict[tuple[str, str], str] = {
    ("Hello", "token"): "your seat token (from joining over HTTP); null or left out: watch",
    ("Act", "v"): "the highest `v` you have seen (see [Versions](#versions))",
    ("Act", "do"): "the action (docs/engine.md): `ready` (done looking), `draw` (from the deck), "
    "`swap` (the drawn card into `slot`), `discard` (the drawn card), `jack`, `queen`, `king` "
    "(use the drawn J, Q, K), `take_discard` (the pile's top card into `slot`), `crisp` (call)",
    ("SetOptions", "limit"): "the game ends when a total reaches this (R-OPT-LIMIT)",
    ("SetOptions", "timer"): "seconds per draw, or null: no time (R-OPT-TIMER)",
    ("SetOptions", "take_discard"): "drawing from the discard pile allowed (R-OPT-DISCARD)",
    ("Kick", "member"): "the member's id (from `room`)",
    ("PassHost", "member"): "the new host's member id (from `room`)",
    ("Grace", "seat"): "the disconnected seat",
    ("Ping", "n"): "any number: the `pong` repeats it",
    ("Member", "name"): "the member's name, as the server cleaned it (show it as text)",
    ("Member", "host"): "this member is the host",
    ("Member", "connected"): "at least one connection of this member is open",
    ("Options", "limit"): "the game ends when a total reaches this (R-OPT-LIMIT)",
    ("Options", "timer"): "seconds per draw, or null: no time (R-OPT-TIMER)",
    ("Options", "take_discard"): "drawing from the discard pile allowed (R-OPT-DISCARD)",
    ("Room", "v"): "the room version now",
    ("Room", "code"): "the room's code",
    ("Room", "phase"): "`lobby` (before a game), `playing` (a round is played), `between` (a "
    "round's reveal, before the next deal), `over` (the game is over)",
    ("Room", "options"): "the host's options (those of the current game once it started)",
    ("Room", "members"): "every member, in the order they joined",
    ("Room", "between"): "between rounds only; null otherwise",
    ("You", "seat"): "your seat in the current game; null in the lobby (see `room.members`) and "
    "for a spectator",
    ("You", "host"): "you are the host",
    ("You", "name"): "your name; null for a watcher",
    ("Welcome", "you"): "who you are",
    ("State", "v"): "the room version this snapshot is of",
    ("State", "you"): "who you are (as in `welcome`; a new game may have given you a seat)",
    ("Error", "code"): "what went wrong: see [Errors](#errors)",
    ("Error", "message"): "a sentence for a person, in English",
    ("Error", "rule"): "the rule id (`R-…`) that refuses an `illegal` action; left out otherwise",
    ("Left", "code"): "the code of the room you left",
    ("Pong", "n"): "the `n` of the `ping`",
    ("Joined", "code"): "the room's code (upper case)",
    ("Joined", "link"): "the room's link (a path on the server) to share",
    ("Joined", "member"): "your member id in this room",
}

#: Types shown otherwise than the schema says (the model leaves them open).
TYPE_NOTES: dict[tuple[str, str], str] = {
    ("State", "view"): "[View](#obj-view) or null",
}

# -- the prose for each message -------------------------------------------------------------------

#: Client messages: (who sends it and when, what the server answers, what refuses it).
CLIENT_NOTES: dict[str, tuple[str, str, str]] = {
    "hello": (
        "Every connection, first (anything else before it is refused `unauthorized`).",
        "`welcome` to you, `room` to everyone, `state` to you. If the game clock had stopped "
        "because no seated player was connected, your seat's return starts it again (with a "
        "per-draw time the current draw's time restarts in full: a `clock` follows if that moves "
        "its deadline). If your "
        "seat was absent (the host's `grace`), it is present again: its draws stop timing out, "
        "and the game's messages of that change (a `clock` if it is your draw) and a `room` "
        "follow.",
        "`unauthorized` if the token is not valid in this room (wrong, or its member was "
        "removed), then the server closes the connection (4401); `bad_message` for a second "
        "`hello`.",
    ),
    "act": (
        "A seated player, while a round is played (room phase `playing`).",
        "No acknowledgement: the game's messages of the action, to everyone entitled to them, "
        "you included. Deadlines that passed before the action are applied first (their "
        "messages come first, as time passed anyway).",
        "`forbidden` (no seat in the current game); `bad_phase` (no round is played: lobby, "
        "between rounds, game over); `bad_version` and `stale` (see [Versions](#versions)); "
        "`bad_message` if the action lacks a field it needs or has one it does not take (only "
        "`swap` and `take_discard` take `slot`; only `queen` takes `slot`, `target`, "
        "`target_slot`; a null field counts as left out); `illegal`, with `rule`, when the "
        'rules refuse it (docs/engine.md "Refusals": e.g. `R-TURN`, `R-WINDOW`), including '
        "`R-FINAL-TURNS` when a deadline ended the round just before it arrived.",
    ),
    "options": (
        "The host, in the lobby.",
        "A `room` to everyone, with the new options.",
        "`forbidden` (not the host); `bad_phase` (not in the lobby); `bad_message` (a value "
        "not allowed).",
    ),
    "start": (
        "The host, in the lobby, with at least 2 members.",
        f"The first {MAX_SEATS} members, in the order they joined, are seated (seat 0 first); the "
        "others watch this game. Everyone gets a `room` (phase `playing`), the deal's messages "
        "(`game`, `round`, and each seat its two `look`s), then a `state` (the new game, with "
        "your seat in `you`) that already holds them: it has the same `v`.",
        "`forbidden` (not the host); `bad_phase` (not in the lobby, or fewer than 2 members).",
    ),
    "kick": (
        "The host, in the lobby.",
        "The member is removed and their token stops working: their connections get an `error` "
        '`unauthorized` ("the host removed you") and are closed (4409); everyone else gets a '
        "`room`.",
        "`forbidden` (not the host); `bad_phase` (not in the lobby); `not_found` (no such "
        "member); `bad_message` (yourself: send `leave`).",
    ),
    "host": (
        "The host, at any time.",
        "A `room` to everyone, with the new host.",
        "`forbidden` (not the host); `not_found` (no such member).",
    ),
    "leave": (
        "A member, in the lobby.",
        "Each of your connections gets a [`left`](#msg-left) and is closed (4409); your token "
        "stops working; everyone else gets a `room`. A host who leaves passes the role to the "
        "remaining member who joined first.",
        "`forbidden` (a watcher); `bad_phase` (not in the lobby: during a game your seat waits "
        "for you).",
    ),
    "continue": (
        "A seated player, between rounds (room phase `between`), when done with the reveal.",
        "A `room` to everyone (`between.waiting` without you); or, once every connected seat "
        "has continued, the next deal: a `room` (phase `playing`), `round` and the `look`s. The "
        "next deal also comes by itself when the time between rounds is over.",
        "`bad_phase` (not between rounds); `forbidden` (no seat in the current game).",
    ),
    "rematch": (
        "The host, after the game (room phase `over`).",
        f"Back to the lobby, same room and members: a `room` (phase `lobby`, the first "
        f"{MAX_SEATS} members seated, spectators included), then a `state` to every connection "
        "(with a null `view`). The last game's record stays downloadable until the next game "
        "ends.",
        "`forbidden` (not the host); `bad_phase` (the game is not over).",
    ),
    "grace": (
        "The host, during a game with no per-draw time, for a seat that is disconnected (with "
        "no time per draw, the game waits for a missing player).",
        "From now plus `seconds` (game seconds), the seat's draws time out (R-TIMEOUT), and in "
        "later rounds as soon as they are due, until it comes back (its `hello`). The game's "
        "messages of the change (a `clock` if it is that seat's draw) and a `room` (the "
        "member's `absent` is true) go to everyone.",
        "`forbidden` (not the host); `bad_phase` (no game in progress, a per-draw time is set, "
        "the seat is connected, or every other seat is absent already); `not_found` (no such "
        "seat).",
    ),
    "add_bot": (
        "The host, in the lobby, while fewer than 8 members would be seated.",
        "A bot member joins the room (its `bot` is its level, its name ends in \"(bot)\"; it "
        "has no token) and a `room` goes to everyone. It is seated like a player at the start "
        "and plays at a human pace from its seat's messages only. The host removes it with "
        "`kick`.",
        "`forbidden` (not the host); `bad_phase` (not in the lobby, or the table is full).",
    ),
    "bot": (
        "The host, during a game, for a seat whose player is disconnected.",
        "A bot of `level` plays that seat from its reconnect view until the player's next "
        "`hello`, which takes the seat back; the member's `stand_in` shows the level meanwhile "
        "(a `room` to everyone). A seat that was absent (a `grace`) no longer times out.",
        "`forbidden` (not the host); `bad_phase` (no game in progress, the seat is connected, "
        "or a bot plays it already); `not_found` (no such seat).",
    ),
    "sync": (
        "Anyone, at any time (e.g. when the page becomes visible again).",
        "A `state` to you.",
        "Nothing (except before `hello`).",
    ),
    "ping": (
        "Anyone, at any time (after `hello`).",
        "A `pong` to you, with the same `n`.",
        "Nothing (except before `hello`).",
    ),
}

#: The server's own messages: when they are sent.
SERVER_NOTES: dict[str, str] = {
    "welcome": "To a connection, as the first answer to its `hello`.",
    "room": "To every connection that said `hello`, on every change of the room: a member "
    "joining (over HTTP), leaving or removed, a connection opening (`hello`) or closing, a new "
    "host, new options, a change of phase (start, end of a round, next deal, game over, "
    "rematch), a seat made absent or present, and between rounds when a seat continues.",
    "state": "To a connection: after its `welcome`; on its `sync`; to everyone at the first "
    "deal of each game (after the deal's messages, with their `v`) and after a `rematch` (with "
    "a null `view`).",
    "error": "To a connection, when its message is refused (nothing changed), or before the "
    "server closes it (close codes 4401, 4404, 4409).",
    "left": "To each connection of a member who sent `leave`, just before the server closes "
    "it (4409).",
    "pong": "To a connection, as the answer to its `ping`.",
}

#: Error codes: what makes the server send each.
ERROR_NOTES: dict[str, str] = {
    "bad_json": "the message is not JSON",
    "bad_message": "not a JSON object with a string `type`; a field missing or invalid (the "
    "`message` says which, as `field: reason`); a binary frame; a second `hello`; an `act` "
    "with a field its action does not take, or without one it needs; a `kick` of yourself",
    "unknown_type": "the `type` is not one of the client messages",
    "too_large": f"the message is over {setting('max_message_bytes')} bytes (see "
    "[Limits](#limits-and-close-codes))",
    "rate_limited": "too many messages: this one was dropped (see "
    "[Limits](#limits-and-close-codes))",
    "unauthorized": "a message before `hello`; a token not valid in this room (then close "
    "4401); the host removed you (then close 4409)",
    "forbidden": "a watcher or spectator tried what only a member or a seated player may do, or "
    "a member what only the host may do",
    "not_found": "no such member or seat; no such room (then close 4404)",
    "bad_phase": "the room is not in the phase the message is for (e.g. `options` during a "
    "game, `continue` outside the time between rounds)",
    "illegal": "the rules refuse the action; `rule` names the rule (docs/engine.md "
    '"Refusals and their rule ids")',
    "stale": "an `act` whose `v` is older than your seat's floor (see [Versions](#versions))",
    "bad_version": "an `act` whose `v` is greater than the current version",
    "internal": "the server failed on this message (a bug, which it logs); the room and the "
    "connection go on, but whether the message took effect is unknown: `sync`",
}

#: Close codes: (constant in connection.py, meaning).
CLOSE_NOTES: list[tuple[int, str]] = [
    (C.CLOSE_GOING_AWAY, "the server is shutting down: reconnect (retry until it is back)"),
    (C.CLOSE_POLICY, f"{FLOOD_LIMIT} messages in a row dropped by the rate limit"),
    (C.CLOSE_TOO_BIG, f"a message over {setting('max_message_bytes')} bytes"),
    (C.CLOSE_UNAUTHORIZED, "the `hello` token is not valid in this room (after an `error`)"),
    (
        C.CLOSE_FORBIDDEN_ORIGIN,
        "a browser page of another site (the handshake is refused: HTTP 403)",
    ),
    (C.CLOSE_NO_ROOM, "no such room, or it expired (after an `error` `not_found`)"),
    (
        C.CLOSE_TOO_SLOW,
        f"the client stopped reading: {setting('send_queue_max')} messages were "
        "waiting for it. Reconnect; the `state` brings you up to date",
    ),
    (C.CLOSE_REMOVED, "the host removed this member (after an `error`), or it left (after `left`)"),
]

# -- examples: a room KWMNA with Ana (host, seat 0), Ben (seat 1) and Chloé (seat 2) --------------

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
    "welcome": [{"type": "welcome", "you": {**YOU_BEN, "seat": None}, "clock_speed": 1.0}],
    "room": [
        {
            "type": "room",
            "v": 6,
            "code": "KWMNA",
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
            "code": "KWMNA",
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
    "left": [{"type": "left", "code": "KWMNA"}],
    "pong": [{"type": "pong", "n": 7}],
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


# -- rendering ------------------------------------------------------------------------------------

OBJECTS: list[type[BaseModel]] = [
    P.Options, P.Member, P.Between, P.You,
    E.View, E.RoundView, E.TurnView, E.WindowView, E.YouView, E.LookView,
]  # fmt: skip
OBJECT_NAMES = {m.__name__ for m in OBJECTS}


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
    tail = ["v"] if "v" in names and model in E.EVENT_TYPES else []
    return head + [n for n in names if n not in head and n not in tail] + tail


def ordered(model: type[BaseModel], example: dict[str, Any]) -> dict[str, Any]:
    keys = [k for k in field_order(model) if k in example]
    return {k: example[k] for k in keys}


def fields_table(model: type[BaseModel]) -> str:
    schema = model.model_json_schema()
    props: dict[str, Any] = schema["properties"]
    required = set(schema.get("required", []))
    rows = ["| field | type | required | description |", "| --- | --- | --- | --- |"]
    for name in field_order(model):
        prop = props[name]
        if name == "type":
            desc = "the message type"
        else:
            desc = FIELD_NOTES.get((model.__name__, name)) or prop.get("description") or ""
            if (model.__name__, name) in FIELD_NOTES and model.model_fields[name].description:
                raise ValueError(f"{model.__name__}.{name} has a description: drop its note")
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


def examples_block(model: type[BaseModel], examples: list[dict[str, Any]]) -> str:
    out = []
    for example in examples:
        model.model_validate(example)  # an example that does not validate stops the build
        line = json.dumps(ordered(model, example), ensure_ascii=False, separators=(", ", ": "))
        out.append(line)
    return "```json\n" + "\n".join(out) + "\n```"


def msg_heading(model: type[BaseModel], arrow: str) -> str:
    kind = E.type_of(model)
    return f'<a id="msg-{kind}"></a>\n\n### `{kind}` ({arrow})'


def client_section(model: type[BaseModel]) -> str:
    kind = E.type_of(model)
    who, answer, refused = CLIENT_NOTES[kind]
    parts = [
        msg_heading(model, "client → server"),
        doc_of(model),
        f"- **Sent by:** {who}\n- **Answer:** {answer}\n- **Refused:** {refused}",
        fields_table(model),
        examples_block(model, EXAMPLES[kind]),
    ]
    return "\n\n".join(parts)


def server_section(model: type[BaseModel], examples: list[dict[str, Any]]) -> str:
    kind = E.type_of(model)
    parts = [msg_heading(model, "server → client")]
    if doc_of(model):
        parts.append(doc_of(model))
    parts += [f"- **Sent:** {SERVER_NOTES[kind]}", fields_table(model)]
    parts.append(examples_block(model, examples))
    return "\n\n".join(parts)


def event_section(model: type[BaseModel]) -> str:
    kind = E.type_of(model)
    parts = [msg_heading(model, "server → client, from the engine"), doc_of(model),
             fields_table(model), examples_block(model, EXAMPLES[kind])]  # fmt: skip
    return "\n\n".join(parts)


def object_section(model: type[BaseModel]) -> str:
    name = model.__name__
    parts = [f'<a id="{anchor_obj(name)}"></a>\n\n### {name}']
    if doc_of(model):
        parts.append(doc_of(model))
    parts.append(fields_table(model))
    return "\n\n".join(parts)


def http_table(model: type[BaseModel]) -> str:
    return fields_table(model)


def schema_block(title: str, adapter: TypeAdapter[Any]) -> str:
    schema = json.dumps(adapter.json_schema(), ensure_ascii=False, indent=1)
    return f"### {title}\n\n```json\n{schema}\n```"


def check_notes() -> None:
    """Every message, error code and close code has its prose (else the build stops)."""
    kinds = {E.type_of(m) for m in P.CLIENT_TYPES}
    if kinds != set(CLIENT_NOTES) or not kinds <= set(EXAMPLES):
        raise ValueError(f"client notes/examples do not match the messages {sorted(kinds)}")
    if {E.type_of(m) for m in P.SERVER_TYPES} != set(SERVER_NOTES):
        raise ValueError("server notes do not match protocol.SERVER_TYPES")
    if not {E.type_of(m) for m in E.EVENT_TYPES} <= set(EXAMPLES):
        raise ValueError("an engine message has no example")
    codes = set(P.Error.model_fields["code"].annotation.__args__)  # type: ignore[union-attr]
    if codes != set(ERROR_NOTES):
        raise ValueError(f"error notes do not match the codes {sorted(codes)}")
    served = set(E.SERVER.json_schema()["discriminator"]["mapping"])
    if served != {E.type_of(m) for m in (*P.SERVER_TYPES, *E.EVENT_TYPES)}:
        raise ValueError("events.ServerMessage does not match protocol.SERVER_TYPES + the events")
    constants = {v for k, v in vars(C).items() if k.startswith("CLOSE_")}
    if constants != {c for c, _ in CLOSE_NOTES}:
        raise ValueError("close notes do not match connection.py's CLOSE_ constants")


#: A game as a seated client sees it: (direction, messages).
FLOW: list[tuple[str, str]] = [
    ("→", 'HTTP `POST /api/rooms/KWMNA/join` `{"name": "Ben"}`: the answer holds the token'),
    ("→", "`hello` with the token"),
    ("←", "`welcome` (who you are), `room` (to everyone), `state` (the snapshot)"),
    ("→", "(the host) `options`, `start`"),
    ("←", "`room` (phase `playing`), `game`, `round`, your two `look`s, `state` (the new game)"),
    ("→", "`act` `ready` when you have seen your cards"),
    ("←", "`ready` (each seat), then `turn` (whose draw, from when, until when)"),
    ("→", "when a `turn` is yours: `act` `draw` from its `at` (or `take_discard`)"),
    (
        "←",
        "`draw` (with your card), then after your `act` (`swap`, `discard`, `jack`, `queen`, "
        "`king`): its message, `turn_end`, the next `turn`",
    ),
    ("→", "`act` `crisp` during your crisp window (until `turn_end.window_until`)"),
    ("←", "`crisp`, the final turns, `reveal`, `room` (phase `between`)"),
    ("→", "`continue` when done with the reveal"),
    ("←", "`room`, `round`, … until `game_over` and a `room` (phase `over`)"),
]


def flow_table() -> str:
    rows = ["| | messages |", "| --- | --- |"]
    rows += [f"| {d} | {m} |" for d, m in FLOW]
    return "\n".join(rows)


# -- the document ---------------------------------------------------------------------------------


def intro() -> str:
    speed_doc = "game seconds per real second"
    return f"""\
# The Crisp protocol

<!-- Generated from crisp/server/protocol.py and crisp/server/events.py by
{COMMAND}
Do not edit by hand: a test regenerates it and fails if it differs. -->

This is everything that crosses the wire between a Crisp server and its clients, both ways: enough
to write another client (a phone client, a bot, a table display) from it alone. The rules of the
game are in [the rule book](rules.md) (each rule has an id, `R-…`, cited here); the rules engine
that makes the game's messages is described in [docs/engine.md](engine.md).

1. [Overview](#overview)
2. [Rooms over HTTP](#rooms-over-http)
3. [The WebSocket](#the-websocket): [connecting and `hello`](#connecting-and-hello),
   [versions and stale actions](#versions), [what a seat may see](#what-a-seat-may-see),
   [time and countdowns](#time-and-countdowns), [reconnecting](#reconnecting),
   [limits and close codes](#limits-and-close-codes), [errors](#errors)
4. [Client messages](#client-messages)
5. [Server messages](#server-messages)
6. [Game messages](#game-messages) (made by the rules engine)
7. [Objects](#objects) (inside messages; the view of a `state`)
8. [JSON Schema](#json-schema)

## Overview

- A **room** has a code of {CODE_LENGTH} letters from `{CODE_ALPHABET}` (case and spaces are
  ignored where a code is typed) and **members**. One joins over HTTP with a name and receives a
  secret **seat token**. The first member is the **host**.
- A room's **phase** is `lobby` (members gather; the host sets the options and starts), then
  `playing` (a round is played), `between` (a round's reveal, until the next deal), `playing`
  again, …, and `over` (the game is over; the host may start a `rematch`, back to the `lobby`).
- Everything else happens on one WebSocket per client, at `/ws/{{CODE}}`: JSON objects, one per
  text frame, each with a `type`. The client says `hello` first (with its token; without one it
  watches). The server sends the room (`room`), a snapshot (`state`), and the game as it happens:
  the rules engine's messages (`turn`, `draw`, `swap`, …), each to those entitled to it.
- The server is the only judge: it applies messages one at a time, in the order they arrive, at
  the game time they arrive, and answers a refused message with an `error` (nothing changed). An
  accepted action is not acknowledged other than by the game messages it causes.

A game, as a seated client sees it (→ sent, ← received):

{flow_table()}

## Rooms over HTTP

The bodies are JSON. A refusal has a status and the body `{{"error": "<a sentence>"}}`, except a
body of the wrong shape (e.g. no `name`), which gets `422` and FastAPI's
`{{"detail": [...]}}`.

**`POST /api/rooms`** creates a room; its creator is the first member and the host. **`POST
/api/rooms/{{code}}/join`** joins one. Both take the same request and give the same answer, `201`:

Request:

{http_table(JoinRequest)}

Answer:

{http_table(Joined)}

- A name is trimmed, its inner spaces collapsed, control and invisible characters removed, and it
  is cut to {NAME_MAX} characters; it is always shown as text. `422`: no visible character left.
  `409`: the name is taken in this room (case does not count). `404`: no such room (or it
  expired).
- A member who joins in the lobby will have the `seat` of the answer when the game starts (the
  first {MAX_SEATS} members, in the order they joined); one who joins during a game, or beyond
  {MAX_SEATS}, watches (`seat` null) until a `rematch` seats them.
- The token is the member's only credential (the server keeps only its hash): keep it (e.g. per
  room code in the phone's storage) and send it in the `hello` of every connection.

**`GET /api/rooms/{{code}}`**: `200`, the room as in a [`room`](#msg-room) message with the fields
`code`, `phase`, `options`, `members`, `game` and `record` only; `404`.

**`GET /api/rooms/{{code}}/record`**: `200`, the room's last finished game as a `crisp-record/1`
record ([docs/record.md](record.md)), as a JSON file to download; `409` until a game of this
room is over (the record holds the deck order); `404`.

**`GET /r/{{code}}`**: the room's link (`link` above), a web page (`404` if there is no room).
**`GET /healthz`**: `{{"ok": true, "rooms": <number of rooms>}}`.

## The WebSocket

### Connecting and hello

Open `ws://HOST/ws/{{CODE}}` (`wss://` behind TLS). A browser sends an `Origin` header: the server
accepts its own origin (the `Host` it was reached at) and the origins it is configured to allow;
a page of another site is refused during the handshake (HTTP 403). A client that sends no
`Origin` (a script, a bot, an app) is accepted: the token is what authorizes. If the room does not
exist (or expired), the server sends `{{"type":"error","code":"not_found","message":"no such
room"}}` and closes the connection ({C.CLOSE_NO_ROOM}).

The first message is [`hello`](#msg-hello), with the token (a member) or without one (a watcher).
Until then the connection is sent nothing but errors, and any other message is refused
`unauthorized`. The answer is [`welcome`](#msg-welcome) (who you are, the clock speed), a
[`room`](#msg-room) (sent to everyone: you are connected) and your [`state`](#msg-state).

Who may do what: a **watcher** (no token) and a member with no seat in the current game are
**spectators**: they receive the public messages and may send `sync` and `ping`. A **member** may
also `leave` in the lobby; a **seated** member plays (`act`, `continue`); the **host** also sends
`options`, `start`, `kick`, `host`, `rematch` and `grace`. Several connections may use the same
token (two tabs, or a new connection before the old one is noticed closed): each acts for the
member and each receives everything for its seat. A member is `connected` (in `room`) while at
least one of its connections is open.

<a id="versions"></a>

### Versions and stale actions

Each change of the room (a member joining, new options, a deal, an action, a deadline passing, …)
is stored, then numbered: the **room version**, `v`, which never decreases (also across restarts
of the server). Every game message carries the `v` of the change that made it (the messages of
one change share it); a `room` or a `state` carries the version at the moment it is made, an
`error` the current version. Along one connection, `v` never decreases.

An `act` carries `v`: the highest `v` you have seen (in any message but an `error`). It is
refused as `bad_version` if that version does not exist yet, and as `stale` if it is older than
your seat's **floor**: the version of the latest of the current round's deal, the latest `turn`
giving your seat a draw, and your seat's latest accepted action (after a restart of the server:
the restart). So an action decided on an older state of your own turn is refused rather than
applied to a newer one, and a double tap (or a message sent again) applies once: the second copy
has the same `v`, older than the floor the first one set. After `stale`, look at the latest
messages (or `sync`) and decide again. Other seats' actions never make yours stale: e.g. a crisp
call still counts after the next player has started (R-WINDOW).

### What a seat may see

Crisp is a memory game, and the server holds every hidden card ([rules](rules.md) §7). A seat
is sent a card's face only when it draws that card from the deck (`draw`, to the drawer alone,
R-SEE-DRAWN),
when it looks at one of its own cards it is entitled to see (`look`, to that seat alone, at the
deal, after its Jack, or after a Queen brings a card into its left or right slot, R-SEE-LOOK),
when a card lands face up on the discard pile (everyone, R-SEE-PUBLIC), and every hand at the end
of the round (`reveal`, everyone, R-SEE-REVEAL). Everything else, the deck order, the other
players' cards, your own middle card, your own cards after a look, is never sent; a face-down card
is named only by its seat and slot, never by an identity that would follow it (R-NO-TRACE). So a
client must remember what its player was shown, for as long as the game allows (the look is
"once"): show a `look` briefly, then face down. What is public: the seats and names, the dealer,
whose turn it is and which draw, the counts of the deck and the pile, every action without hidden
faces, the calls, the clocks and the scores; a spectator gets only that. A `state` follows the
same rule: it holds what you may see now, and nothing you saw before.

### Time and countdowns

The game has its own clock: **game time**, in seconds since the current round's deal (it starts
again at 0 with each `round`). A message's `t` is the game time at which it was made (for the
messages of a deadline, such as a `timeout`, the deadline's time), and every deadline in a message
is a game time: `round.look_until`, `turn.at` (the draw may start) and `turn.deadline` (it times
out), `turn_end.window_until` and `next_at`, `clock.deadline`; a `state` has `now`, the game time
when it was made. Game time runs `clock_speed` ({speed_doc}, from `welcome`: 1 on a real server;
tests raise it so that rule times pass faster). It stands still while the server is down and while
no seated player is connected; when a seat is back (its `hello`) it runs on from where it stopped,
and with a per-draw time the current draw's time restarts in full (a `clock` gives the new
deadline), so that no one is timed out by a pause. A pause has no message of its own: `room` shows
it (no seated member `connected`).

To draw a countdown, keep an anchor: the `t` of the latest game message (or the `now` of a
`state`) and your own monotonic clock when it arrived. The game time now is about
`anchor_t + (local_now − anchor_local) × clock_speed`, and a deadline `D` is
`(D − game_now) / clock_speed` real seconds away. The server applies every deadline by itself, at
its time (a client never reports that time passed), and it judges an action by the game time at
which it arrives: one that arrives at or after a deadline is too late (R-EDGES), so count down a
little early rather than late. A `clock` message moves the current draw's deadline. Between rounds,
`room.between.deal_in` is in real seconds.

### Reconnecting

Connections drop: a phone sleeps or changes networks, the server restarts. To resume, open a new
WebSocket, send `hello` with the same token and replace what you knew with the `state` that
follows; apply the messages after it as usual. Messages missed while away are not sent again: the
`state` has all you may see now, including your drawn card and a look that is still open (the
first look until you are ready or the look phase ends; a Jack's or a Queen's until the next change
of the game). A `sync` asks for a fresh `state` at any time, e.g. when the page becomes visible
again.

While a seat is disconnected, the others see it in `room` (`connected` false). With a per-draw
time its draws time out as usual; with none, the game waits for it, and the host may send `grace`:
once the grace is over, that seat's draws time out as soon as they are due (R-TIMEOUT; `absent` in
`room`), in this round and the next ones, until its `hello` brings it back. Between rounds only
the connected seats are waited for. When the server restarts, its connections close
({C.CLOSE_GOING_AWAY} on a clean shutdown); it restores every room from its storage, and a game's
clock stays stopped at the game time of the round's last change until a seat is back (see
[time](#time-and-countdowns)).
Retry the connection, with a growing delay, until the server is back. A room with no connection
and no change for {setting("room_ttl_s")} s (real time) is deleted.

### Limits and close codes

- A message is at most {setting("max_message_bytes")} bytes (UTF-8). With `crisp serve`, the
  WebSocket layer closes a connection that sends a larger one ({C.CLOSE_TOO_BIG}); a server that
  lets it through answers `too_large`.
- A connection may send {setting("rate_per_s")} messages a second, with bursts of
  {setting("rate_burst")}. Beyond that a message is dropped (not handled); the server answers
  `rate_limited` for the first one dropped and for every 20th in a row, and closes the connection
  ({C.CLOSE_POLICY}) after {FLOOD_LIMIT} in a row. A message that is let through ends the run.
- Binary frames are refused (`bad_message`): send JSON text.
- Each connection has its own queue: a client that stops reading is closed
  ({C.CLOSE_TOO_SLOW}) when {setting("send_queue_max")} messages wait for it; the others never
  wait for it.
- The server sends WebSocket pings (of the protocol, not `ping` messages) and closes a connection
  that does not answer them; browsers and WebSocket libraries answer by themselves.
- These numbers are the defaults; a server may be configured otherwise (`crisp serve --help`).

| close code | meaning |
| --- | --- |
{chr(10).join(f"| {c} | {cell(text)} |" for c, text in sorted(CLOSE_NOTES))}

### Errors

A refused message gets an [`error`](#msg-error), and nothing changed (but see `internal`); a
client shows the
`message` (a sentence) or handles the `code`; `about` is the `type` of the refused message when it
could be read, `rule` the rule id of an `illegal` action.

| code | when |
| --- | --- |
{chr(10).join(f"| `{c}` | {cell(text)} |" for c, text in ERROR_NOTES.items())}
"""


MARKDOWN_START = re.compile(r"^(#|>|[-+*] |\d+\. |\||<|```)")


def reflow(markdown: str, width: int = 100) -> str:
    """Wrap the paragraphs and list items of ``markdown`` at ``width``; headings, tables, HTML,
    numbered lists and fenced code stay as they are."""
    out: list[str] = []
    run: list[str] = []
    fenced = False

    def wrap(text: str, first: str, rest: str) -> list[str]:
        lines = textwrap.wrap(" ".join(text.split()), width, initial_indent=first,
                              subsequent_indent=rest, break_long_words=False,
                              break_on_hyphens=False)  # fmt: skip
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


def render() -> str:
    """The whole of docs/protocol.md."""
    check_notes()
    parts = [intro()]
    parts.append(
        "## Client messages\n\nWhat a client sends: one JSON object per text frame. Unknown "
        "fields are refused (`bad_message`). Only `hello`, `sync` and `ping` are open to "
        "everyone; see [who may do what](#connecting-and-hello)."
    )
    parts += [client_section(m) for m in P.CLIENT_TYPES]
    parts.append(
        "## Server messages\n\nThe server's own messages, apart from the game's. A client should "
        "ignore fields it does not know (a newer server may add some)."
    )
    for model in P.SERVER_TYPES:
        kind = E.type_of(model)
        examples = state_examples() if kind == "state" else EXAMPLES[kind]
        parts.append(server_section(model, examples))
    parts.append(
        '## Game messages\n\nThe rules engine\'s messages (docs/engine.md, "Messages"), sent as '
        "it makes them, in order, each with the room version `v` added. Each one goes to "
        "everyone (every seat and every spectator) unless it says otherwise: a `look` goes to "
        "the looking seat alone, and a `draw` with its `card` to the drawer alone (the others "
        "get it without). Cards are codes: rank `A 2 3 4 5 6 7 8 9 T J Q K` then suit `S H D C` "
        "(`7H`, `TD`, `QS`); slots are `left`, `middle`, `right`; seats are numbers from 0, in "
        "the order of `game.players`. One change often makes several messages, which share a `v`: "
        "e.g. a swap makes `swap`, `turn_end` and the next `turn`."
    )
    parts += [event_section(m) for m in E.EVENT_TYPES]
    seat_view, watcher_view = view_example()
    parts.append(
        "## Objects\n\nThe objects inside messages. The **view** is the `view` of a "
        "[`state`](#msg-state): the engine's snapshot of the game for your seat (or for a "
        "spectator), with only what you may see now; null before a game's first deal. It holds "
        "the game as the game messages so far would have built it: after a `state`, keep it "
        "current with the messages that follow. A view while seat "
        f"{seat_view['round']['you']['seat']} holds a drawn card, and the same moment for a "
        "spectator (no `you`):\n\n```json\n"
        + json.dumps(seat_view, ensure_ascii=False, separators=(", ", ": "))
        + "\n"
        + json.dumps(watcher_view, ensure_ascii=False, separators=(", ", ": "))
        + "\n```"
    )
    E.VIEW.validate_python(seat_view)
    E.VIEW.validate_python(watcher_view)
    parts += [object_section(m) for m in OBJECTS]
    parts.append(
        "## JSON Schema\n\nThe three unions as JSON Schema (draft 2020-12), exported from the "
        "models: every message a client may send, every message the server sends (its own and "
        "the game's, by `type`), and the view of a `state`. A field of a game message that is "
        "left out when it does not apply (`draw.card`, and in the view `look_until`, `ready`, "
        "`turn`, `hands`, `scores`, `you`) is never null when present."
    )
    parts.append(schema_block("Client messages", P.CLIENT))
    parts.append(schema_block("Server messages", E.SERVER))
    parts.append(schema_block("The view", E.VIEW))
    return reflow("\n\n".join(p.rstrip("\n") for p in parts)) + "\n"


def main() -> int:
    sys.stdout.buffer.write(render().encode("utf-8"))  # UTF-8 whatever the locale
    return 0


if __name__ == "__main__":
    sys.exit(main())
