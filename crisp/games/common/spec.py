"""A game's ``GameSpec`` made of its parts: the models that check a move and the host's options
(``fields.py``), the match rebuilt from its log (``logged.py``) and its bots (``seatbot.py``).
A game's spec names its parts; the delegations are written once, here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from crisp.games.common.fields import StrictFields, checked
from crisp.games.common.logged import LoggedMatch
from crisp.games.common.records import RecordTools
from crisp.games.common.seatbot import AtSeat, GameBot
from crisp.server.seam import LogEntry, Match, Seeds


class AdapterSpec:
    """The seam's ``GameSpec``, from a game's ``name``, ``seats`` and ``bot_levels``, its
    ``move_fields`` and ``option_fields`` models, its ``match`` and its ``bot``; and, for the
    command line, its ``records`` (``crisp replay``, ``crisp verify``)."""

    name: ClassVar[str]
    seats: ClassVar[tuple[int, int]]
    bot_levels: ClassVar[tuple[str, ...]]
    move_fields: ClassVar[type[StrictFields]]
    option_fields: ClassVar[type[StrictFields]]
    match: ClassVar[type[LoggedMatch[Any]]]
    records: ClassVar[RecordTools]

    def default_options(self) -> dict[str, Any]:
        raise NotImplementedError

    def check_move_fields(self, move: dict[str, Any]) -> dict[str, Any]:
        """A move of the right shape, checked for which fields its kind takes; raises
        ``BadFields``."""
        return move

    def bot(
        self, level: str, seat: int, players: list[str], options: dict[str, Any], seed: int
    ) -> GameBot:
        """A new bot of the game (``level`` is one of ``bot_levels``)."""
        raise NotImplementedError

    def thinks(self, move: Mapping[str, Any]) -> bool:
        """Whether the server adds a human pause before the bot's ``move``."""
        return True

    def check_options(self, fields: dict[str, Any]) -> dict[str, Any]:
        return checked(self.option_fields, fields, drop_none=False)

    def check_move(self, fields: dict[str, Any]) -> dict[str, Any]:
        return self.check_move_fields(checked(self.move_fields, fields, drop_none=True))

    def new_match(
        self, players: list[str], options: dict[str, Any], number: int, seeds: Seeds
    ) -> tuple[Match, LogEntry]:
        return self.match.new(players, options, number, seeds)

    def from_log(self, entries: list[LogEntry]) -> Match:
        return self.match.from_log(entries)

    def make_bot(
        self,
        level: str,
        seat: int,
        players: list[str],
        options: dict[str, Any],
        view: dict[str, Any] | None,
        seed: int,
    ) -> AtSeat:
        bot = self.bot(level, seat, players, options, seed)
        if view is not None:
            bot.load_view(view)
        return AtSeat(bot, self.thinks)
