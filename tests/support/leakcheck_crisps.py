"""An independent checker of who may see what in Crisps! (docs/rules-crisps.md §9), for message
streams.

It never calls the engine. From a ``crisps-record/1`` record (explicit ``decks`` and
``first_starter``) it deals each round itself (CS-DEAL positions) and follows one seat's stream
(None: a watcher) to know, at every message, that seat's own hand, the face-up card and the
pile (top first). Every field that can carry a card must carry exactly what the seat may see:

- CS-SEE-HAND: ``hand`` (in ``round`` and in a ``state`` view) only to its own seat, equal to the
  model's hand in rank order; never to a watcher; ``legal`` only to the due seat, made of its own
  cards;
- CS-SEE-DRAW: ``blind`` only in the ``draw`` sent to the seat that got the blind card, equal to
  the pile's top (the next one under CS-OPT-NO-FACEUP);
- CS-SEE-PUBLIC: plays, the face-up card (the model's), the taken face-up card, the new one
  (the pile's next card);
- CS-SEE-END: ``set_aside`` and ``loser_hand`` at a ``round_end``, equal to the model's;
- CS-NO-TRACE: every key is one of the documented keys of its message type (no ``id``,
  ``index``, ``hash``...), and no other string in a message is made of ranks, so no hidden card
  can travel in an unexpected field; the opponent's hand and the pile are counts only.

``check_stream`` returns the problems found (an empty list: none). ``strip_server`` turns a
server's traffic (``v`` added, ``state`` snapshots) into what the checker reads.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

RANKS = "123456789X"
CARDS_RE = re.compile(r"^[1-9X]+$")
IDENTITY = re.compile(r"(^|_)(id|ids|index|idx|hash|uid|key|position|order)($|_)")

# docs/protocol.md, "Crisps!": the keys of every engine message (each has its game time, `t`).
KEYS: dict[str, frozenset[str]] = {
    k: frozenset(v) | {"type", "t"}
    for k, v in {
        "game": {"game", "players", "options", "fairness"},
        "round": {"round", "starter", "points", "hand", "hands", "set_aside", "faceup", "pile"},
        "turn": {"seat", "need", "deadline", "legal", "can_pass", "take"},
        "play": {"seat", "cards", "kind", "rank", "size", "hands", "timeout"},
        "pass": {"seat", "skipped", "timeout"},
        "draw": {"seat", "take", "faceup", "new_faceup", "pile", "hands", "timeout", "blind"},
        "round_end": {"round", "winner", "points", "set_aside", "loser_hand"},
        "game_over": {"winner", "points", "fairness"},
        "clock": {"seat", "need", "deadline"},
    }.items()
}
VIEW_KEYS = frozenset(
    {
        "game",
        "players",
        "options",
        "round",
        "starter",
        "points",
        "you",
        "hand",
        "hands",
        "pile",
        "faceup",
        "set_aside",
        "trick",
        "played",
        "known",
        "due",
        "legal",
        "can_pass",
        "take",
        "last_round",
        "history",
        "over",
        "winner",
        "fairness",
    }
)
# where a string of ranks may be, by message type (anything else is a leak)
CARD_FIELDS: dict[str, frozenset[str]] = {
    "round": frozenset({"hand", "faceup"}),
    "play": frozenset({"cards", "rank"}),
    "draw": frozenset({"faceup", "new_faceup", "blind"}),
    "round_end": frozenset({"set_aside", "loser_hand"}),
}


def _sorted(cards: Iterable[str]) -> str:
    return "".join(sorted(cards, key=RANKS.index))


class Model:
    """What one seat knows, and the true cards it is checked against."""

    def __init__(self, record: Mapping[str, Any], seat: int | None) -> None:
        self.decks = list(record["decks"])
        self.no_faceup = bool(record["options"].get("no_faceup"))
        self.seat = seat
        self.round = 0
        self.hands: list[Counter[str]] = []
        self.aside = ""
        self.faceup: str | None = None
        self.pile: list[str] = []
        self.due: int | None = None
        # the face-up cards each seat took and has not played since: public (CS-SEE-PUBLIC)
        self.known: list[Counter[str]] = [Counter(), Counter()]

    def deal(self) -> None:
        deck = self.decks[self.round]
        self.round += 1
        self.hands = [Counter(deck[:12]), Counter(deck[12:24])]
        self.aside = _sorted(deck[24:28])
        self.faceup = None if self.no_faceup else deck[28]
        self.pile = list(deck[28:] if self.no_faceup else deck[29:])
        self.known = [Counter(), Counter()]

    def hand(self, seat: int) -> str:
        return _sorted(self.hands[seat].elements())


def _strings(obj: Any, path: str = "") -> Iterable[tuple[str, str]]:
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _strings(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, f"{path}[{i}]")


def _keys(obj: Any) -> Iterable[str]:
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            yield str(k)
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def _no_trace(msg: Mapping[str, Any], where: str) -> list[str]:
    return [
        f"{where}: a key {k!r} looks like an identity (CS-NO-TRACE)"
        for k in _keys(msg)
        if IDENTITY.search(k)
    ]


def check_stream(
    record: Mapping[str, Any], seat: int | None, msgs: list[Mapping[str, Any]]
) -> list[str]:
    """Every problem of ``seat``'s stream (None: a watcher) for the game of ``record``."""
    model, problems = Model(record, seat), []
    # a frame of several messages (docs/protocol.md, Frames): each inner message is checked
    flat = [m for x in msgs for m in (x if isinstance(x, list) else [x])]
    for i, msg in enumerate(flat):
        where = f"message {i} ({msg.get('type')})"
        if msg.get("type") == "state":
            if msg.get("view") is not None:
                problems += check_view(model, msg["view"], f"{where}.view")
            continue
        problems += _check(model, msg, where)
    return problems


def _check(model: Model, msg: Mapping[str, Any], where: str) -> list[str]:
    kind = msg.get("type")
    if kind not in KEYS:
        return [f"{where}: an unknown message type"]
    problems = [f"{where}: undocumented key {k!r}" for k in set(msg) - KEYS[kind]]
    if "t" in msg and (isinstance(msg["t"], bool) or not isinstance(msg["t"], int | float)):
        problems.append(f"{where}: t is a game time, not {msg['t']!r}")
    problems += _no_trace(msg, where)
    allowed = CARD_FIELDS.get(kind, frozenset())
    for path, value in _strings(msg):
        top = path.split(".")[0].split("[")[0]
        if (
            CARDS_RE.match(value)
            and top not in allowed
            and not (kind == "turn" and top == "legal")
            and not (kind == "game" and top == "players")
        ):
            problems.append(f"{where}: cards {value!r} in {path} (CS-NO-TRACE)")
    seat = model.seat
    if kind == "round":
        model.deal()
        if seat is None and "hand" in msg:
            problems.append(f"{where}: a watcher got a hand (CS-SEE-HAND)")
        if seat is not None and msg.get("hand") != model.hand(seat):
            problems.append(
                f"{where}: hand {msg.get('hand')!r}, the seat holds "
                f"{model.hand(seat)!r} (CS-SEE-HAND)"
            )
        if msg.get("faceup") != model.faceup:
            problems.append(f"{where}: face-up {msg.get('faceup')!r} is not {model.faceup!r}")
        if msg.get("pile") != len(model.pile) or msg.get("hands") != [12, 12]:
            problems.append(f"{where}: wrong counts")
    elif kind == "turn":
        model.due = msg["seat"]
        if "legal" in msg or "can_pass" in msg or "take" in msg:
            if seat != msg["seat"]:
                problems.append(f"{where}: another seat's choices (CS-SEE-HAND)")
            else:
                mine = model.hands[seat]
                for play in msg.get("legal", []):
                    if Counter(play["cards"]) - mine:
                        problems.append(f"{where}: legal {play['cards']} is not in the hand")
    elif kind == "play":
        played = Counter(msg["cards"])
        if played - model.hands[msg["seat"]]:
            problems.append(f"{where}: seat {msg['seat']} played cards it does not hold")
        model.hands[msg["seat"]] -= played
        model.known[msg["seat"]] -= played
    elif kind == "draw":
        problems += _check_draw(model, msg, where)
    elif kind == "round_end":
        loser = 1 - msg["winner"]
        if msg["set_aside"] != model.aside:
            problems.append(f"{where}: set_aside {msg['set_aside']!r} is not {model.aside!r}")
        if msg["loser_hand"] != model.hand(loser):
            problems.append(f"{where}: loser_hand is not {model.hand(loser)!r}")
    return problems


def _check_draw(model: Model, msg: Mapping[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    winner, seat = msg["seat"], model.seat
    passer = 1 - winner
    if model.no_faceup:  # both draw blind: each sees its own card
        got = {winner: model.pile.pop(0), passer: model.pile.pop(0)}
        blind_seats = {winner, passer}
        if (msg.get("take"), msg.get("faceup"), msg.get("new_faceup")) != (None, None, None):
            problems.append(f"{where}: a face-up card without CS-OPT-NO-FACEUP's face-up")
    else:
        faceup, blind = model.faceup, model.pile.pop(0)
        if msg.get("faceup") != faceup or faceup is None:
            problems.append(f"{where}: the taken face-up card is not {faceup!r}")
        blind_to = winner if msg["take"] == "blind" else passer
        got = {blind_to: blind, 1 - blind_to: faceup or ""}
        model.known[1 - blind_to][faceup or ""] += 1
        blind_seats = {blind_to}
        model.faceup = model.pile.pop(0) if model.pile else None
        if msg.get("new_faceup") != model.faceup:
            problems.append(
                f"{where}: new face-up {msg.get('new_faceup')!r} is not {model.faceup!r}"
            )
    for s, card in got.items():
        model.hands[s][card] += 1
    if seat is not None and seat in blind_seats:
        if msg.get("blind") != got[seat]:
            problems.append(f"{where}: blind {msg.get('blind')!r}, drawn {got[seat]!r}")
    elif "blind" in msg:
        problems.append(f"{where}: a blind card to a seat that did not draw it (CS-SEE-DRAW)")
    if msg.get("pile") != len(model.pile):
        problems.append(f"{where}: pile {msg.get('pile')} is not {len(model.pile)}")
    return problems


def model_after(
    record: Mapping[str, Any], seat: int | None, msgs: list[Mapping[str, Any]]
) -> Model:
    """The model of ``seat`` once it has followed ``msgs`` (to check a later snapshot)."""
    model = Model(record, seat)
    for msg in msgs:
        if msg.get("type") in KEYS:
            _check(model, msg, "")
    return model


def check_view(model: Model, view: Mapping[str, Any], where: str) -> list[str]:
    """A reconnect snapshot: the documented keys, the seat's own hand only, no cards anywhere
    else but the public places."""
    problems = [f"{where}: undocumented key {k!r}" for k in set(view) - VIEW_KEYS]
    problems += _no_trace(view, where)
    seat = model.seat
    if view.get("you") != seat:
        problems.append(f"{where}: you is {view.get('you')!r}, not {seat!r}")
    if seat is None and "hand" in view:
        problems.append(f"{where}: a watcher got a hand (CS-SEE-HAND)")
    if seat is not None and model.hands and view.get("hand") != model.hand(seat):
        problems.append(f"{where}: hand {view.get('hand')!r} is not {model.hand(seat)!r}")
    if model.hands and view.get("faceup") != model.faceup:
        problems.append(f"{where}: face-up {view.get('faceup')!r} is not {model.faceup!r}")
    if model.hands and view.get("pile") != len(model.pile):
        problems.append(f"{where}: pile count {view.get('pile')} is not {len(model.pile)}")
    known = [_sorted(k.elements()) for k in model.known] if model.hands else ["", ""]
    if view.get("known") != known:
        problems.append(f"{where}: known {view.get('known')!r} is not the public {known!r}")
    if view.get("legal") and (model.due != seat or seat is None):
        problems.append(f"{where}: choices for a seat whose decision is not due")
    public = {"hand", "faceup", "trick", "played", "known", "last_round", "legal"}
    for path, value in _strings(view):
        top = path.split(".")[0].split("[")[0]
        if CARDS_RE.match(value) and top not in public and top not in ("players", "fairness"):
            problems.append(f"{where}: cards {value!r} in {path} (CS-NO-TRACE)")
    return problems


def strip_server(msgs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A server's traffic as the checker reads it: the engine's messages without the room
    version ``v``, and ``state`` snapshots; the server's own messages (room, welcome, probe …)
    left out."""
    out = []
    for m in msgs:
        kind = m.get("type")
        if kind == "state" or kind in KEYS:
            out.append({k: v for k, v in m.items() if k != "v"})
    return out
