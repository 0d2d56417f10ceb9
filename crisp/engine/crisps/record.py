"""The game record ``crisps-record/1`` (docs/record-crisps.md): the players, the options, how the
decks were dealt (every round's deck and the first starter, or a seed) and every action in order.
Replaying it is playing it again: the same messages, byte for byte."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crisp.engine.common.fairness import SCHEME, Committed, Fairness, fairness_from_record
from crisp.engine.common.messages import Message, Out
from crisp.engine.common.messages import stream as filter_stream
from crisp.engine.common.recordfile import RECORD_NUMBER_MAX, RecordFileError, read_record_file
from crisp.engine.crisps.cards import is_deck
from crisp.engine.crisps.errors import CrispsRefusal
from crisp.engine.crisps.options import CrispsOptions

if TYPE_CHECKING:
    from crisp.engine.crisps.game import CrispsGame

RECORD_FORMAT = "crisps-record/1"
_FIELDS = {
    "format",
    "game",
    "players",
    "options",
    "first_starter",
    "decks",
    "seed",
    "actions",
    "shuffle",
    "fairness",
}
_ACTION_FIELDS = {"seat", "do", "cards", "take", "t"}


class RecordError(ValueError):
    """A record that is not a well-formed ``crisps-record/1`` (``crisp replay`` exits 2)."""


class ReplayError(Exception):
    """A record action the rules refuse (``crisp replay`` exits 1): one line naming the action
    and the rule it breaks."""

    def __init__(self, index: int, action: dict[str, Any], refusal: CrispsRefusal) -> None:
        shown = json.dumps(action, separators=(",", ":"), ensure_ascii=False)
        super().__init__(f"actions[{index}] {shown} is refused: {refusal.rule}: {refusal.message}")
        self.index = index
        self.rule = refusal.rule


def record_of(game: CrispsGame) -> dict[str, Any]:
    """The record of ``game`` so far (it can be replayed at any point, finished or not)."""
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": "crisps",
        "players": list(game.players),
        "options": game.options.to_record(),
    }
    if game.seed is not None:
        rec["seed"] = game.seed
    if game.fairness is not None:
        rec["shuffle"] = SCHEME
        rec["fairness"] = game.fairness_record()
    if game.started:
        rec["first_starter"] = game.rounds[0].starter
        rec["decks"] = [r.deck for r in game.rounds]
    elif game.seed is None and game.fairness is None:
        rec["first_starter"] = game.dealing.first_starter()
        rec["decks"] = list(game.dealing.decks)
    rec["actions"] = [dict(a) for a in game.actions]
    return rec


def _read(source: str | Path | dict[str, Any]) -> Any:
    if isinstance(source, dict):
        return source
    try:
        return read_record_file(source)
    except RecordFileError as err:
        raise RecordError(str(err)) from err


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_action(i: int, a: Any) -> None:
    where = f"actions[{i}]"
    if not isinstance(a, dict):
        raise RecordError(f"{where}: an action is an object")
    unknown = set(a) - _ACTION_FIELDS
    if unknown:
        raise RecordError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    if "seat" not in a or "do" not in a:
        raise RecordError(f"{where}: an action has a seat and a do")
    if "t" in a:
        t = a["t"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise RecordError(f"{where}: t is a finite, non-negative number of seconds")
        if t > RECORD_NUMBER_MAX:
            raise RecordError(f"{where}: t is at most {RECORD_NUMBER_MAX:g} seconds")


def load(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """Read (a path or a dict) and check a record's form; raise RecordError if malformed."""
    data = _read(source)
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError(f"format must be {RECORD_FORMAT!r}, not {data.get('format')!r}")
    unknown = set(data) - _FIELDS
    if unknown:
        raise RecordError(f"unknown field {sorted(unknown)[0]!r}")
    if data.get("game", "crisps") != "crisps":
        raise RecordError("game must be 'crisps'")
    players = data.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, str) for p in players)
    ):
        raise RecordError("players must be a list of two names (CS-PLAYERS)")
    try:
        CrispsOptions.from_record(data.get("options", {}))
    except (TypeError, ValueError) as err:
        raise RecordError(f"options: {err}") from err
    decks = data.get("decks", [])
    if not isinstance(decks, list):
        raise RecordError("decks must be a list of 40-card strings, one a round")
    for i, deck in enumerate(decks):
        if not is_deck(deck):
            raise RecordError(f"decks[{i}] is not 40 cards holding each of 1-9 and X four times")
    if "first_starter" in data and data["first_starter"] not in (0, 1):
        raise RecordError("first_starter must be 0 or 1")
    if "first_starter" in data and isinstance(data["first_starter"], bool):
        raise RecordError("first_starter must be 0 or 1")
    if "seed" in data and not _is_int(data["seed"]):
        raise RecordError("seed must be an integer")
    if "fairness" in data:
        try:
            fairness_from_record(data["fairness"], 2)
        except ValueError as err:
            raise RecordError(f"fairness: {err}") from err
    revealed = isinstance(_fairness(data), Fairness)
    if "seed" not in data and not revealed and ("first_starter" not in data or not decks):
        raise RecordError("a record has a seed, or first_starter and decks")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise RecordError("actions must be a list")
    for i, a in enumerate(actions):
        _check_action(i, a)
    return data


def _fairness(data: dict[str, Any]) -> Fairness | Committed | None:
    if "fairness" not in data:
        return None
    return fairness_from_record(data["fairness"], 2)


@dataclass
class Replay:
    game: CrispsGame
    outs: list[Out]

    @property
    def result(self) -> dict[str, Any]:
        return result_of(self.game)


def result_of(game: CrispsGame) -> dict[str, Any]:
    """What ``crisp replay`` prints: each round's starter, winner and points after it (null for
    an unfinished round), the points, whether the game is over and its winner."""
    rounds = []
    for r in game.rounds:
        done = r.winner is not None
        scores = next((h["points"] for h in game.history if h["round"] == r.no), None)
        rounds.append(
            {
                "starter": r.starter,
                "winner": r.winner,
                "scores": list(scores) if done and scores else None,
            }
        )
    return {
        "game": "crisps",
        "rounds": rounds,
        "scores": list(game.points),
        "over": game.over,
        "winner": game.winner,
    }


def replay(source: str | Path | dict[str, Any]) -> Replay:
    """Play a record again; raises RecordError (malformed) or ReplayError (an illegal action)."""
    from crisp.engine.crisps.game import CrispsGame

    data = load(source)
    try:
        game = CrispsGame(
            list(data["players"]),
            CrispsOptions.from_record(data.get("options", {})),
            seed=data.get("seed"),
            fairness=_fairness(data),
            first_starter=data.get("first_starter"),
            decks=list(data.get("decks", [])),
        )
        outs = game.start()
    except ValueError as err:
        raise RecordError(str(err)) from err
    for i, a in enumerate(data["actions"]):
        action = {k: v for k, v in a.items() if k not in ("seat", "t")}
        try:
            outs += game.apply(a["seat"], action, a.get("t", game.now))
        except CrispsRefusal as err:
            raise ReplayError(i, a, err) from err
        except ValueError as err:  # a round past the record's decks, with no seed
            raise RecordError(f"actions[{i}]: {err}") from err
    return Replay(game, outs)


def stream(source: str | Path | dict[str, Any], seat: int | None) -> list[Message]:
    """Every message ``seat`` (None: a watcher) is sent while the record is played."""
    return filter_stream(replay(source).outs, seat)
