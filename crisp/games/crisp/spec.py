"""Crisp's ``GameSpec``: what the server needs to host it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crisp.bots.crisp import make_bot
from crisp.bots.crisp.base import Bot
from crisp.engine.crisp import Options
from crisp.engine.crisp.game import MAX_PLAYERS, MIN_PLAYERS
from crisp.games.common.spec import AdapterSpec
from crisp.games.crisp.match import CrispMatch
from crisp.games.crisp.moves import CrispMove, CrispOptions, check_move_fields
from crisp.games.crisp.records import RECORDS


class CrispSpec(AdapterSpec):
    name = "crisp"
    seats = (MIN_PLAYERS, MAX_PLAYERS)
    bot_levels = ("easy", "normal", "hard")
    move_fields = CrispMove
    option_fields = CrispOptions
    records = RECORDS
    match = CrispMatch

    def default_options(self) -> dict[str, Any]:
        return Options().to_record()

    def check_move_fields(self, move: dict[str, Any]) -> dict[str, Any]:
        return check_move_fields(move)

    def bot(
        self, level: str, seat: int, players: list[str], options: dict[str, Any], seed: int
    ) -> Bot:
        return make_bot(level, seat, players, options, seed)

    def thinks(self, move: Mapping[str, Any]) -> bool:
        """A crisp call is timed by the bot itself, inside its window; anything else waits a
        human moment."""
        return move.get("do") != "crisp"


SPEC = CrispSpec()
