"""A game's bot at a server's seat: the seam's ``SeatBot``, its answer a ``Decision``.

A game's bot is fed its seat's messages (``observe``) and answers ``decide(now)`` with
``(at, move)`` (not before game time ``at``) or None. The server adds a human pause to a move
unless the game says its bot times that move itself (``thinks``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from crisp.server.seam import Decision


class GameBot(Protocol):
    """A bot of a game, at one seat (``load_view``: mid-game, from the seat's view)."""

    def load_view(self, view: dict[str, Any], /) -> None: ...
    def observe(self, msg: dict[str, Any], /) -> None: ...
    def decide(self, now: float, /) -> tuple[float, Mapping[str, Any]] | None: ...


def always(move: Mapping[str, Any]) -> bool:
    return True


class AtSeat:
    """``bot`` at a server's seat; ``thinks(move)``: the server adds a human pause to it."""

    def __init__(self, bot: GameBot, thinks: Callable[[Mapping[str, Any]], bool] = always) -> None:
        self.bot = bot
        self.thinks = thinks

    def observe(self, msg: Mapping[str, Any]) -> None:
        self.bot.observe(dict(msg))

    def decide(self, now: float) -> Decision | None:
        wanted = self.bot.decide(now)
        if wanted is None:
            return None
        at, move = wanted
        return Decision(float(at), dict(move), think=self.thinks(move))
