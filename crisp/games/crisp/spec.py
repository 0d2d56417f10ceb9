"""Crisp's ``GameSpec``: what the server needs to host it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crisp.bots.crisp import make_bot
from crisp.bots.crisp.base import Bot
from crisp.engine.crisp import Options
from crisp.engine.crisp.game import MAX_PLAYERS, MIN_PLAYERS
from crisp.games.crisp import moves
from crisp.games.crisp.match import CrispMatch
from crisp.server.seam import Decision, LogEntry, Match, Seeds


class CrispBot:
    """A bot of ``crisp.bots.crisp`` at a server's seat. A crisp call is timed by the bot itself,
    inside its window; anything else waits a human moment."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def observe(self, msg: Mapping[str, Any]) -> None:
        self.bot.observe(dict(msg))

    def decide(self, now: float) -> Decision | None:
        wanted = self.bot.decide(now)
        if wanted is None:
            return None
        at, move = wanted
        return Decision(at, dict(move), think=move.get("do") != "crisp")


class CrispSpec:
    name = "crisp"
    seats = (MIN_PLAYERS, MAX_PLAYERS)
    bot_levels = ("easy", "normal", "hard")

    def default_options(self) -> dict[str, Any]:
        return Options().to_record()

    def check_options(self, fields: dict[str, Any]) -> dict[str, Any]:
        return moves.check_options(fields)

    def check_move(self, fields: dict[str, Any]) -> dict[str, Any]:
        return moves.check_move(fields)

    def new_match(
        self, players: list[str], options: dict[str, Any], number: int, seeds: Seeds
    ) -> tuple[Match, LogEntry]:
        return CrispMatch.new(players, options, number, seeds)

    def from_log(self, entries: list[LogEntry]) -> Match:
        return CrispMatch.from_log(entries)

    def make_bot(
        self,
        level: str,
        seat: int,
        players: list[str],
        options: dict[str, Any],
        view: dict[str, Any] | None,
        seed: int,
    ) -> CrispBot:
        bot = make_bot(level, seat, players, options, seed)
        if view is not None:
            bot.load_view(view)
        return CrispBot(bot)


SPEC = CrispSpec()
