"""High Card plugged into the server's seam, on ``crisp.games.common``: its move and options
models, its match (the engine and the log of its inputs) and its ``GameSpec``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crisp.games.common.fields import StrictFields
from crisp.games.common.logged import LoggedMatch
from crisp.games.common.spec import AdapterSpec
from crisp.server.seam import Change, LogEntry, MoveRefused, Status
from toygame.bots import HighCardBot
from toygame.engine import HighCardGame, Illegal


class HighCardMove(StrictFields):
    play: int


class HighCardOptions(StrictFields):
    """High Card has no options."""


class HighCardMatch(LoggedMatch[HighCardGame]):
    @classmethod
    def engine_of(cls, head: LogEntry) -> HighCardGame:
        # High Card deals from an integer: it takes one from the server seed, and ignores the
        # client seeds (a game may use the seeds or not).
        seed = int.from_bytes(bytes.fromhex(head["server_seed"])[:8], "big")
        return HighCardGame(list(head["players"]), seed)

    @staticmethod
    def stored_options(options: dict[str, Any]) -> dict[str, Any]:
        return {}

    def replay(self, entry: LogEntry) -> None:
        if entry["e"] == "deal":
            self.game.deal()
        else:
            self.game.play(entry["seat"], entry["play"], entry["t"])

    def status(self) -> Status:
        if self.game.over:
            return Status.OVER
        return Status.PLAYING if self.game.dealt else Status.BETWEEN

    def started(self) -> bool:
        return self.game.dealt

    def start_round(self) -> Change:
        return Change(list(self.game.deal()), [{"e": "deal"}], None)

    def apply(self, seat: int, move: dict[str, Any], t: float, lag_ms: int = 0) -> Change:
        try:
            outs = self.game.play(seat, move["play"], t)
        except Illegal as err:
            raise MoveRefused(err.rule, err.message) from err
        return self.change(outs, {"e": "act", "t": t, "seat": seat, "play": move["play"]})

    def last_time(self) -> float:
        return 0.0

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        return [{"play": card} for card in self.game.legal(seat)]


class HighCardSpec(AdapterSpec):
    name = "highcard"
    seats = (2, 2)
    bot_levels = ("easy",)
    move_fields = HighCardMove
    option_fields = HighCardOptions
    match = HighCardMatch

    def default_options(self) -> dict[str, Any]:
        return {}

    def bot(
        self, level: str, seat: int, players: list[str], options: dict[str, Any], seed: int
    ) -> HighCardBot:
        return HighCardBot(seat)

    def thinks(self, move: Mapping[str, Any]) -> bool:
        return False  # it plays at once


SPEC = HighCardSpec()
