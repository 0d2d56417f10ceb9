"""Crisps!'s ``GameSpec``: what the server needs to host it. Two seats; anyone else watches."""

from __future__ import annotations

from typing import Any

from crisp.bots.crisps import CrispsBot, make_bot
from crisp.engine.crisps import CrispsOptions
from crisp.games.common.spec import AdapterSpec
from crisp.games.crisps import moves
from crisp.games.crisps.match import CrispsMatch
from crisp.games.crisps.records import RECORDS


class CrispsSpec(AdapterSpec):
    name = "crisps"
    seats = (2, 2)
    bot_levels = ("random", "normal", "hard")
    move_fields = moves.CrispsMove
    option_fields = moves.CrispsOptions
    records = RECORDS
    match = CrispsMatch

    def default_options(self) -> dict[str, Any]:
        return CrispsOptions().to_record()

    def check_move_fields(self, move: dict[str, Any]) -> dict[str, Any]:
        return moves.check_move_fields(move)

    def bot(
        self, level: str, seat: int, players: list[str], options: dict[str, Any], seed: int
    ) -> CrispsBot:
        return make_bot(level, seat, players, options, seed)


SPEC = CrispsSpec()
