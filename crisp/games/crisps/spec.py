"""Crisps!'s ``GameSpec``: what the server needs to host it. Two seats; anyone else watches."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from crisp.engine.crisps import CrispsOptions
from crisp.games.crisps import moves
from crisp.games.crisps.match import CrispsMatch
from crisp.server.seam import Decision, LogEntry, Match, SeatBot, Seeds

THINK = 1.0  # the fallback bot's pause, game seconds


class LegalRandomBot:
    """The fallback bot while ``crisp.bots.crisps`` does not exist: a random legal move from
    the ``turn`` messages of its own seat (it never sees more than that seat may). Its choice
    stays the same until the game moves on (the server asks again after every change)."""

    def __init__(self, seat: int, seed: int, view: dict[str, Any] | None) -> None:
        self.seat = seat
        self.rng = random.Random(seed)
        self.move: dict[str, Any] | None = None
        self.at: float | None = None
        if view is not None and view.get("due") and view["due"]["seat"] == seat:
            self._choose(view)

    def _choose(self, msg: Mapping[str, Any]) -> None:
        moves: list[dict[str, Any]] = [{"do": "play", "cards": p["cards"]} for p in msg["legal"]]
        if msg.get("can_pass"):
            moves.append({"do": "pass"})
        moves += [{"do": "draw", "take": take} for take in msg.get("take", [])]
        self.move = self.rng.choice(moves) if moves else None
        self.at = None

    def observe(self, msg: Mapping[str, Any]) -> None:
        if msg.get("type") == "turn":
            self.move = None
            if msg["seat"] == self.seat and "legal" in msg:
                self._choose(msg)
        elif msg.get("type") in ("round_end", "game_over"):
            self.move = None

    def decide(self, now: float) -> Decision | None:
        if self.move is None:
            return None
        if self.at is None:
            self.at = now + THINK
        return Decision(self.at, dict(self.move))


class _Wrapped:
    """A bot of ``crisp.bots.crisps`` at a server's seat: it may answer ``decide`` with a
    ``Decision`` or with ``(at, move)``."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def observe(self, msg: Mapping[str, Any]) -> None:
        self.bot.observe(dict(msg))

    def decide(self, now: float) -> Decision | None:
        wanted = self.bot.decide(now)
        if wanted is None or isinstance(wanted, Decision):
            return wanted
        at, move = wanted
        return Decision(float(at), dict(move))


class CrispsSpec:
    name = "crisps"
    seats = (2, 2)
    bot_levels = ("random", "normal", "hard")

    def default_options(self) -> dict[str, Any]:
        return CrispsOptions().to_record()

    def check_options(self, fields: dict[str, Any]) -> dict[str, Any]:
        return moves.check_options(fields)

    def check_move(self, fields: dict[str, Any]) -> dict[str, Any]:
        return moves.check_move(fields)

    def new_match(
        self, players: list[str], options: dict[str, Any], number: int, seeds: Seeds
    ) -> tuple[Match, LogEntry]:
        return CrispsMatch.new(players, options, number, seeds)

    def from_log(self, entries: list[LogEntry]) -> Match:
        return CrispsMatch.from_log(entries)

    def make_bot(
        self,
        level: str,
        seat: int,
        players: list[str],
        options: dict[str, Any],
        view: dict[str, Any] | None,
        seed: int,
    ) -> SeatBot:
        try:
            from crisp.bots.crisps import make_bot  # type: ignore[import-not-found,unused-ignore]
        except ImportError:  # the bots land on their own branch: a legal-random stand-in
            return LegalRandomBot(seat, seed, view)
        bot = make_bot(level, seat, players, options, seed)
        if view is not None and hasattr(bot, "load_view"):
            bot.load_view(view)
        return _Wrapped(bot)


SPEC = CrispsSpec()
