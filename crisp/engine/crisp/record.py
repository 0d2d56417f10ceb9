"""Game records (``crisp-record/1``, docs/record.md): read, check, replay, and the seat streams."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from crisp.engine.common.fairness import SCHEME, Committed, Fairness, fairness_from_record
from crisp.engine.common.recordfile import RECORD_NUMBER_MAX, RecordFileError, read_record_file
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.cards import check_deck
from crisp.engine.crisp.errors import IllegalAction
from crisp.engine.crisp.game import MAX_PLAYERS, MIN_PLAYERS, RECORD_FORMAT, Game
from crisp.engine.crisp.lag import check_allowance
from crisp.engine.crisp.messages import Message, Out, dumps_stream
from crisp.engine.crisp.messages import stream as filter_stream
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.timing import to_ms

__all__ = ["RecordError", "Replay", "ReplayError", "dumps_stream", "load", "replay", "stream"]


class RecordError(ValueError):
    """A record that is not a well-formed ``crisp-record/1`` (says where and what)."""


class ReplayError(IllegalAction):
    """A record's action that breaks a rule: ``rule``, and where (0-based ``round``, ``index``)."""

    def __init__(
        self, rule: str, message: str, round_index: int, index: int | None, what: str = ""
    ) -> None:
        where = f"rounds[{round_index}]"
        human = f"round {round_index + 1}"
        if index is not None:
            where += f".actions[{index}]"
            human += f", action {index + 1}"
        if what:
            human += f", {what}"
        super().__init__(rule, message)
        self.args = (f"{where} ({human}): {rule}: {message}",)
        self.round = round_index
        self.index = index


@dataclass
class Replay:
    game: Game
    outs: list[Out] = field(default_factory=list)

    @property
    def result(self) -> dict[str, Any]:
        return self.game.result()


def _number(value: Any, where: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise RecordError(f"{where}: t must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value < 0:
        raise RecordError(f"{where}: t must be a finite, non-negative number, not {value!r}")
    if value > RECORD_NUMBER_MAX:
        raise RecordError(
            f"{where}: t must be at most {RECORD_NUMBER_MAX:g} seconds, not {value!r}"
        )
    return value


def load(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """Read (from a path or a dict) and check a record's form; raise RecordError if malformed."""
    if isinstance(source, dict):
        data: Any = source
    else:
        try:
            data = read_record_file(source)
        except RecordFileError as err:
            raise RecordError(str(err)) from err
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError(f"format must be {RECORD_FORMAT!r}, not {data.get('format')!r}")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"players: Crisp is for 2 to 8 players, not {len(players)}")
    try:
        Options.from_record(data.get("options", {}))
    except ValueError as err:
        raise RecordError(f"options: {err}") from err
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError("seed must be an integer")
    fair = _fairness(data, len(players))
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError("rounds must be a list")
    derived = seed is not None or isinstance(fair, Fairness)
    for ri, rnd in enumerate(rounds):
        _check_round(rnd, ri, len(players), derived)
    return data


def _fairness(data: dict[str, Any], n: int) -> Fairness | Committed | None:
    """The record's ``shuffle`` and ``fairness`` (docs/fairness.md): both or neither."""
    shuffle = data.get("shuffle")
    if "shuffle" in data and shuffle != SCHEME:
        raise RecordError(f"shuffle must be {SCHEME!r} (or absent), not {shuffle!r}")
    if ("fairness" in data) != (shuffle == SCHEME):
        raise RecordError(f"a record has both 'shuffle': {SCHEME!r} and 'fairness', or neither")
    if "fairness" not in data:
        return None
    if data.get("seed") is not None:
        raise RecordError("a record has a seed or a fairness, not both")
    try:
        return fairness_from_record(data["fairness"], n)
    except ValueError as err:
        raise RecordError(f"fairness: {err}") from err


def record_fairness(data: dict[str, Any]) -> Fairness | Committed | None:
    """The fairness of a record that ``load`` accepted (None: an older or hand-made record)."""
    return _fairness(data, len(data["players"]))


def _check_round(rnd: Any, ri: int, n: int, derived: bool) -> None:
    where = f"rounds[{ri}]"
    if not isinstance(rnd, dict):
        raise RecordError(f"{where}: a round is an object")
    if "deck" in rnd:
        try:
            check_deck(rnd["deck"] if isinstance(rnd["deck"], list) else [])
        except ValueError as err:
            raise RecordError(f"{where}.deck: {err}") from err
    elif not derived:
        raise RecordError(f"{where}: a round needs a deck, or the record a seed")
    if "dealer" in rnd:
        dealer = rnd["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise RecordError(f"{where}.dealer must be a seat from 0 to {n - 1}")
    elif ri == 0 and not derived:
        raise RecordError(f"{where}: the first round needs a dealer, or the record a seed")
    acts = rnd.get("actions", [])
    if not isinstance(acts, list):
        raise RecordError(f"{where}.actions must be a list")
    last: Any = 0
    for ai, act in enumerate(acts):
        here = f"{where}.actions[{ai}]"
        try:
            A.from_record(_bare(act))
            if "allowance_ms" in act and check_allowance(act["allowance_ms"]) == 0:
                raise ValueError("allowance_ms is from 1 ms (left out when there is none)")
        except ValueError as err:
            raise RecordError(f"{here}: {err}") from err
        t = _number(act.get("t"), here)
        if to_ms(t) < to_ms(last):
            raise RecordError(f"{here}: t goes back in time ({t} after {last})")
        last = t
    if "end" in rnd:
        end = _number(rnd["end"], f"{where}.end")
        if to_ms(end) < to_ms(last):
            raise RecordError(f"{where}.end is before the round's last action")
    times = [to_ms(act["t"]) for act in acts]
    _check_clock(rnd.get("clock", []), where, times, n)
    unknown = set(rnd) - {"dealer", "deck", "actions", "end", "clock"}
    if unknown:
        raise RecordError(f"{where}: unknown field {sorted(unknown)[0]!r}")


def _check_clock(entries: Any, where: str, times: list[Any], n: int) -> None:
    """A round's optional ``clock`` list: absent seats and restarts (docs/engine.md)."""
    if not isinstance(entries, list):
        raise RecordError(f"{where}.clock must be a list")
    count = len(times)
    last = 0
    last_t: Any = 0
    for ci, entry in enumerate(entries):
        here = f"{where}.clock[{ci}]"
        if not isinstance(entry, dict):
            raise RecordError(f"{here}: an entry is an object")
        after = entry.get("after")
        if isinstance(after, bool) or not isinstance(after, int) or not last <= after <= count:
            raise RecordError(f"{here}.after must be an action count from {last} to {count}")
        last = after
        t = to_ms(_number(entry.get("t"), here))
        if t < last_t or (after > 0 and t < times[after - 1]):
            raise RecordError(f"{here}.t is before the action or entry it follows")
        if after < count and t > times[after]:
            raise RecordError(f"{here}.t is after the action it comes before")
        last_t = t
        do = entry.get("do")
        if do == "restart":
            allowed = {"after", "t", "do"}
        elif do == "absent":
            allowed = {"after", "t", "do", "seat", "until"}
            seat = entry.get("seat")
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise RecordError(f"{here}.seat must be a seat from 0 to {n - 1}")
            if "until" not in entry:
                raise RecordError(f"{here}: 'absent' needs 'until' (a time, or null for a return)")
            if entry["until"] is not None:
                _number(entry["until"], f"{here}.until")
        else:
            raise RecordError(f"{here}.do must be 'restart' or 'absent', not {do!r}")
        unknown = set(entry) - allowed
        if unknown:
            raise RecordError(f"{here}: unknown field {sorted(unknown)[0]!r}")


def _bare(act: Any) -> Any:
    """An action entry without its ``allowance_ms`` (R-WINDOW-LAG), which is not the action's."""
    if isinstance(act, dict) and "allowance_ms" in act:
        return {k: v for k, v in act.items() if k != "allowance_ms"}
    return act


def _apply_clock(game: Game, entry: dict[str, Any], ri: int) -> list[Out]:
    try:
        if entry["do"] == "restart":
            return game.restart_clock(entry["t"])
        return game.set_absent(entry["seat"], entry.get("until"), entry["t"])
    except (ValueError, IllegalAction) as err:
        raise RecordError(f"rounds[{ri}].clock: {err}") from err


def replay(source: str | Path | dict[str, Any]) -> Replay:
    """Replay a record; raise ``ReplayError`` at the first action that breaks a rule."""
    data = load(source)
    fair = record_fairness(data)
    if isinstance(fair, Fairness) and fair.commitment() != data["fairness"]["commitment"]:
        raise RecordError("fairness.commitment is not the SHA-256 of its server_seed")
    options = Options.from_record(data.get("options", {}))
    game = Game(data["players"], options, seed=data.get("seed"), fairness=fair)
    rep = Replay(game)
    rounds = data["rounds"]
    for ri, rnd in enumerate(rounds):
        try:
            rep.outs += game.start_round(rnd.get("deck"), rnd.get("dealer"))
        except IllegalAction as err:
            raise ReplayError(err.rule, err.message, ri, None, "the deal") from err
        acts = rnd.get("actions", [])
        clock = list(rnd.get("clock", []))
        for ai, act in enumerate(acts):
            while clock and clock[0]["after"] == ai:
                rep.outs += _apply_clock(game, clock.pop(0), ri)
            action = A.from_record(_bare(act))
            lag = act.get("allowance_ms", 0)
            try:
                rep.outs += game.apply(action, act["t"], allowance_ms=lag)
            except IllegalAction as err:
                what = f"seat {action.seat} {action.do}"
                raise ReplayError(err.rule, err.message, ri, ai, what) from err
            if lag and game.round.lag_used != lag:
                raise RecordError(
                    f"rounds[{ri}].actions[{ai}].allowance_ms: the action opened no crisp window"
                )
        for entry in clock:
            rep.outs += _apply_clock(game, entry, ri)
        if "end" in rnd:
            rep.outs += game.advance(rnd["end"])
        if ri + 1 < len(rounds):
            rep.outs += _finish(game, ri, len(acts))
    return rep


def _finish(game: Game, ri: int, count: int) -> list[Out]:
    """A round followed by another must end; only pending deadlines may end it (a timeout)."""
    r = game.round
    outs: list[Out] = []
    while not r.over and r.caller is not None:
        nxt = r.next_deadline()
        if nxt is None:
            break
        outs += game.advance_ms(nxt)
    if not r.over:
        raise ReplayError(
            "R-FINAL-TURNS" if r.caller is not None else "R-NO-CALL",
            f"the round has not ended after its {count} actions, yet the record deals another",
            ri,
            None,
        )
    return outs


def stream(source: str | Path | dict[str, Any], seat: int | None) -> list[Message]:
    """Every message ``seat`` (None: a spectator) is sent while the record is played."""
    return filter_stream(replay(source).outs, seat)
