"""A game of Crisps! as the server drives it: the engine's ``CrispsGame`` and the log of its
inputs.

The log is what the server stores: a head (``e: game``, with the players, the options and the
secret seeds of the commit–reveal shuffle), then each input in order: the deal, a move at its
game time, the timeouts applied at a game time, a clock restart. Replaying it rebuilds the game
exactly; ``record()`` is the game's ``crisps-record/1`` (docs/record-crisps.md).

A round that ends deals the next at once (CS-GAME-END), so the match is PLAYING from its deal to
its end, and its game time runs for the whole game (the server never has to ``continue``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisps import CrispsGame, CrispsOptions, CrispsRefusal, Out
from crisp.server.seam import Absence, Change, LogEntry, MoveRefused, Seeds, Status


def _stale(outs: list[Out]) -> frozenset[int] | None:
    """A new round makes every seat's pending move stale; a decision newly due, its seat's."""
    seats = set()
    for out in outs:
        kind = out.msg["type"]
        if kind == "round":
            return None
        if kind in ("turn", "clock"):
            seats.add(out.msg["seat"])
    return frozenset(seats)


def _change(outs: list[Out], entry: LogEntry | None) -> Change:
    if entry is None:
        return Change()
    return Change(list(outs), [entry], _stale(outs))


class CrispsMatch:
    absence: Absence | None = None  # the timer plays for an absent seat; no host's grace

    def __init__(self, head: LogEntry) -> None:
        self.head = head
        fair = Fairness(bytes.fromhex(head["server_seed"]), tuple(head["client_seeds"]))
        self.game = CrispsGame(
            list(head["players"]), CrispsOptions.from_record(head["options"]), fairness=fair
        )

    @classmethod
    def new(
        cls, players: list[str], options: dict[str, Any], number: int, seeds: Seeds
    ) -> tuple[CrispsMatch, LogEntry]:
        head = {
            "e": "game",
            "no": number,
            "players": players,
            "options": CrispsOptions.from_record(options).to_record(),
            "server_seed": seeds.server_seed.hex(),
            "client_seeds": list(seeds.client_seeds),
        }
        return cls(head), head

    @classmethod
    def from_log(cls, entries: list[LogEntry]) -> CrispsMatch:
        match = cls(entries[0])
        for entry in entries[1:]:
            match.replay(entry)
        return match

    def replay(self, entry: LogEntry) -> None:
        game, kind, t = self.game, entry["e"], entry.get("t", 0.0)
        if kind == "deal":
            game.start()
        elif kind == "act":
            move = {k: v for k, v in entry.items() if k not in ("e", "t", "seat")}
            game.apply(entry["seat"], move, t)
        elif kind == "advance":
            game.advance(t)
        elif kind == "restart":
            game.restart_clock(t)
        else:
            raise ValueError(f"unknown log entry {kind!r}")

    # -- the seam -----------------------------------------------------------------------------

    @property
    def players(self) -> Sequence[str]:
        return self.game.players

    def status(self) -> Status:
        if self.game.over:
            return Status.OVER
        return Status.PLAYING if self.game.started else Status.BETWEEN

    def started(self) -> bool:
        return self.game.started

    def start_round(self) -> Change:
        if self.game.started:  # later rounds are dealt by the engine, in the step that ends one
            return Change()
        return _change(self.game.start(), {"e": "deal"})

    def advance(self, t: float) -> Change:
        outs = self.game.advance(t)
        return _change(outs, {"e": "advance", "t": t} if outs else None)

    def apply(self, seat: int, move: dict[str, Any], t: float, lag_ms: int) -> Change:
        before = self.advance(t)  # timeouts first: at exactly the deadline it is too late
        try:
            outs = self.game.apply(seat, dict(move), t)
        except CrispsRefusal as err:
            raise MoveRefused(err.rule, err.message, before) from err
        return before.then(_change(outs, {"e": "act", "t": t, "seat": seat, **move}))

    def restart_clock(self, t: float) -> Change:
        outs = self.game.restart_clock(t)
        return _change(outs, {"e": "restart", "t": t} if outs else None)

    def next_deadline(self) -> float | None:
        return self.game.next_deadline()

    def last_time(self) -> float:
        return self.game.now

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.game.view(seat)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        return self.game.legal_moves(seat)

    def record(self) -> dict[str, Any]:
        return self.game.record()
