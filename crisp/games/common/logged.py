"""A game as the server drives it, kept as the log of its inputs: what every game's match shares.

The log is what the server stores: a head (``e: game``, with the players, the options and the
secret seeds of the commit–reveal shuffle), then each input in order, each entry as the game
writes it (a deal, a move at its game time, deadlines applied at a game time, …). Replaying it
rebuilds the game exactly: ``from_log`` is ``new``'s head followed by ``replay`` of each entry.
A game's match says how its engine is made from the head (``engine_of``), how its options are
stored, and how an entry replays; the rest of the seam that only forwards to the engine is here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from crisp.server.seam import Absence, Change, Fields, LogEntry, Outgoing, Seeds, Status


class Engine(Protocol):
    """What a logged match forwards to its game's engine as it is."""

    @property
    def players(self) -> Sequence[str]: ...
    def advance(self, t: float, /) -> Sequence[Outgoing]: ...
    def restart_clock(self, t: float, /) -> Sequence[Outgoing]: ...
    def next_deadline(self) -> float | None: ...
    def view(self, seat: int | None, /) -> dict[str, Any]: ...
    def record(self) -> dict[str, Any]: ...


G = TypeVar("G", bound=Engine)


class LoggedMatch(Generic[G]):
    """A ``Match`` of the seam: the engine ``game`` and the ``head`` of its log."""

    #: The message types that make their seat's pending move stale (``round``: every seat's).
    due_types: ClassVar[frozenset[str]] = frozenset({"turn"})
    absence: Absence | None = None

    def __init__(self, head: LogEntry) -> None:
        self.head = head
        self.game: G = self.engine_of(head)

    @classmethod
    def engine_of(cls, head: LogEntry) -> G:
        """The game of a log's head, before any input."""
        raise NotImplementedError

    @staticmethod
    def stored_options(options: dict[str, Any]) -> dict[str, Any]:
        """The host's options as the head keeps them."""
        raise NotImplementedError

    def replay(self, entry: LogEntry) -> None:
        """Apply one entry of the log after the head."""
        raise NotImplementedError

    # -- the seam, as each game answers it (see ``crisp.server.seam.Match``) --------------------

    def status(self) -> Status:
        raise NotImplementedError

    def started(self) -> bool:
        raise NotImplementedError

    def start_round(self) -> Change:
        raise NotImplementedError

    def apply(self, seat: int, move: Fields, t: float, lag_ms: int) -> Change:
        raise NotImplementedError

    def last_time(self) -> float:
        raise NotImplementedError

    def legal_moves(self, seat: int) -> list[Fields]:
        raise NotImplementedError

    @classmethod
    def new(
        cls, players: list[str], options: dict[str, Any], number: int, seeds: Seeds
    ) -> tuple[Self, LogEntry]:
        head = {
            "e": "game",
            "no": number,
            "players": players,
            "options": cls.stored_options(options),
            "server_seed": seeds.server_seed.hex(),
            "client_seeds": list(seeds.client_seeds),
        }
        return cls(head), head

    @classmethod
    def from_log(cls, entries: list[LogEntry]) -> Self:
        match = cls(entries[0])
        for entry in entries[1:]:
            match.replay(entry)
        return match

    def stale(self, outs: Sequence[Outgoing]) -> frozenset[int] | None:
        """A new round makes every seat's pending move stale; a decision newly due, its seat's."""
        seats = set()
        for out in outs:
            kind = out.msg["type"]
            if kind == "round":
                return None
            if kind in self.due_types:
                seats.add(out.msg["seat"])
        return frozenset(seats)

    def change(self, outs: Sequence[Outgoing], entry: LogEntry | None) -> Change:
        """The change of one input (None: nothing to log, nothing changed)."""
        if entry is None:
            return Change()
        return Change(list(outs), [entry], self.stale(outs))

    # -- the seam, as the engine answers it -----------------------------------------------------

    @property
    def players(self) -> Sequence[str]:
        return self.game.players

    def advance(self, t: float) -> Change:
        outs = self.game.advance(t)
        return self.change(outs, {"e": "advance", "t": t} if outs else None)

    def restart_clock(self, t: float) -> Change:
        outs = self.game.restart_clock(t)
        return self.change(outs, {"e": "restart", "t": t} if outs else None)

    def next_deadline(self) -> float | None:
        return self.game.next_deadline()

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.game.view(seat)

    def record(self) -> dict[str, Any]:
        return self.game.record()
