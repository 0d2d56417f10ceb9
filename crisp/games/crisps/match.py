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

from typing import Any, ClassVar

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisps import CrispsGame, CrispsOptions, CrispsRefusal
from crisp.games.common.logged import LoggedMatch
from crisp.server.seam import Change, LogEntry, MoveRefused, Status


class CrispsMatch(LoggedMatch[CrispsGame]):
    """The timer plays for an absent seat: no host's grace (``absence`` is None)."""

    due_types: ClassVar[frozenset[str]] = frozenset({"turn", "clock"})

    @classmethod
    def engine_of(cls, head: LogEntry) -> CrispsGame:
        fair = Fairness(bytes.fromhex(head["server_seed"]), tuple(head["client_seeds"]))
        return CrispsGame(
            list(head["players"]), CrispsOptions.from_record(head["options"]), fairness=fair
        )

    @staticmethod
    def stored_options(options: dict[str, Any]) -> dict[str, Any]:
        return CrispsOptions.from_record(options).to_record()

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

    def status(self) -> Status:
        if self.game.over:
            return Status.OVER
        return Status.PLAYING if self.game.started else Status.BETWEEN

    def started(self) -> bool:
        return self.game.started

    def start_round(self) -> Change:
        if self.game.started:  # later rounds are dealt by the engine, in the step that ends one
            return Change()
        return self.change(self.game.start(), {"e": "deal"})

    def apply(self, seat: int, move: dict[str, Any], t: float, lag_ms: int) -> Change:
        before = self.advance(t)  # timeouts first: at exactly the deadline it is too late
        try:
            outs = self.game.apply(seat, dict(move), t)
        except CrispsRefusal as err:
            raise MoveRefused(err.rule, err.message, before) from err
        return before.then(self.change(outs, {"e": "act", "t": t, "seat": seat, **move}))

    def last_time(self) -> float:
        return self.game.now

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        return self.game.legal_moves(seat)
