"""A game of Crisp as the server drives it: the engine's ``Game`` and the log of its inputs.

The log is what the server stores: a head (``e: game``, with the players, options and secret
seeds), then each input in order: a deal, a move at its game time (with its R-WINDOW-LAG
``allowance_ms`` when not 0), deadlines applied at a game time, a seat made absent or present, a
clock restart. Replaying it rebuilds the game exactly, and ``record()`` (docs/record.md) follows.

The head of a game dealt by the commit–reveal shuffle (docs/fairness.md) holds
``"server_seed"`` (hex) and ``"client_seeds"``; a head stored before it holds ``"seed"``, the
SplitMix64 seed, and rebuilds exactly as it always did.
"""

from __future__ import annotations

from typing import Any

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisp import Game, IllegalAction, Options, actions
from crisp.engine.crisp.timing import to_seconds
from crisp.games.common.logged import LoggedMatch
from crisp.server.seam import Absence, BadFields, Change, LogEntry, MoveRefused, Status


class CrispAbsence:
    """Absent seats (the host's grace): their draws time out until they are back."""

    def __init__(self, match: CrispMatch) -> None:
        self.match = match

    def grace_refusal(self) -> str | None:
        if self.match.game.options.timer is not None:
            return "with a per-draw time the clock already plays for absent seats"
        return None

    def is_absent(self, seat: int) -> bool:
        absent = self.match.game.absent
        return seat < len(absent) and absent[seat]

    def set_absent(self, seat: int, until: float | None, t: float) -> Change:
        outs = self.match.game.set_absent(seat, until, t)  # ValueError: cannot be
        return self.match.change(outs, {"e": "absent", "t": t, "seat": seat, "until": until})


class CrispMatch(LoggedMatch[Game]):
    def __init__(self, head: LogEntry) -> None:
        super().__init__(head)
        self.absence: Absence | None = CrispAbsence(self)

    @classmethod
    def engine_of(cls, head: LogEntry) -> Game:
        players, options = list(head["players"]), Options.from_record(head["options"])
        if "seed" in head:  # stored before the commit–reveal shuffle: SplitMix64
            return Game(players, options, seed=int(head["seed"]))
        fair = Fairness(bytes.fromhex(head["server_seed"]), tuple(head["client_seeds"]))
        return Game(players, options, fairness=fair)

    @staticmethod
    def stored_options(options: dict[str, Any]) -> dict[str, Any]:
        return Options.from_record(options).to_record()

    def replay(self, entry: LogEntry) -> None:
        game = self.game
        kind, t = entry["e"], entry.get("t", 0.0)
        if kind == "deal":
            game.start_round()
        elif kind == "act":
            fields = {k: v for k, v in entry.items() if k not in ("e", "allowance_ms")}
            game.apply(actions.from_record(fields), t, allowance_ms=entry.get("allowance_ms", 0))
        elif kind == "advance":
            game.advance(t)
        elif kind == "absent":
            game.set_absent(entry["seat"], entry["until"], t)
        elif kind == "restart":
            game.restart_clock(t)
        else:
            raise ValueError(f"unknown log entry {kind!r}")

    # -- the seam -----------------------------------------------------------------------------

    def status(self) -> Status:
        game = self.game
        if game.over:
            return Status.OVER
        if not game.rounds or game.round.over:
            return Status.BETWEEN
        return Status.PLAYING

    def started(self) -> bool:
        return bool(self.game.rounds)

    def start_round(self) -> Change:
        return self.change(self.game.start_round(), {"e": "deal"})

    def apply(self, seat: int, move: dict[str, Any], t: float, lag_ms: int) -> Change:
        try:
            action = actions.from_record({**move, "seat": seat})
        except ValueError as err:
            raise BadFields("move", str(err)) from err
        before = self.advance(t)  # deadlines first, as time passed anyway
        if self.status() != Status.PLAYING:
            raise MoveRefused("R-FINAL-TURNS", "the round is over", before)
        try:
            # raises IllegalAction, changing nothing; R-WINDOW-LAG if it ends the seat's turn
            outs = self.game.apply(action, t, allowance_ms=lag_ms)
        except IllegalAction as err:
            raise MoveRefused(err.rule, err.message, before) from err
        entry = {"e": "act", "t": t, **action.to_record()}
        if lag_ms:
            entry["allowance_ms"] = lag_ms
        return before.then(self.change(outs, entry))

    def last_time(self) -> float:
        return to_seconds(self.game.round.now) if self.game.rounds else 0.0

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in a.to_record().items() if k != "seat"}
            for a in self.game.legal_actions(seat)
        ]
