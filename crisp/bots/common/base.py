"""What every game's bot is: a client of one seat, honest by construction.

A bot is given exactly the messages its seat is sent (``observe``, in order) or a reconnect
snapshot (``load_view``), keeps its own model of the table from them (``table``) and answers
``decide(now)`` with an ``Intent``: the action it wants next and the earliest game time at which
it may take it (or None: nothing to do until a new message). It never sees the engine: whatever
it knows came through its seat's messages. Given its seed and its messages it is deterministic.

``SeatBotBase`` does the part that is the same in every game (the seat, the level, the seeded
random source, feeding the table, the ``noticed`` and ``restarted`` hooks); each game's base
says how its table is made and when its decisions are due. The server's contract wraps an
``Intent`` in its ``Decision`` (``crisp.server.seam``).
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

#: An action as a record writes it, without ``seat`` and ``t``.
Action = dict[str, Any]
#: What a bot wants: ``(the earliest game time to act, the action)``.
Intent = tuple[float, Action]


class TableView(Protocol):
    """What a bot's table model must take: its seat's messages and a reconnect snapshot."""

    def observe(self, msg: dict[str, Any]) -> None: ...

    def load_view(self, view: dict[str, Any]) -> None: ...


TableT = TypeVar("TableT", bound=TableView)
RngT = TypeVar("RngT")


class SeatBotBase(Generic[TableT, RngT]):
    """One seat's player: ``table`` is its model of the table, ``rng`` its seeded random source."""

    level: str = "base"

    def __init__(self, seat: int, level: str, rng: RngT, table: TableT) -> None:
        self.seat = seat
        self.level = level
        self.rng = rng
        self.table = table

    # -- the interface ----------------------------------------------------------------------------

    def observe(self, msg: dict[str, Any]) -> None:
        """One message this seat was sent, in order. Unknown keys and types are ignored."""
        self.table.observe(msg)
        self.kept(msg)
        self.noticed(msg)

    def load_view(self, view: dict[str, Any]) -> None:
        """Start (over) from a reconnect snapshot, ``game.view(seat)``: only what it shows."""
        self.table.load_view(view)
        self.reloaded()
        self.restarted()

    def decide(self, now: float) -> Intent | None:
        """The next action wanted and the earliest game time to take it (never before ``now``),
        or None."""
        raise NotImplementedError

    # -- each game's base: its bookkeeping --------------------------------------------------------

    def kept(self, msg: dict[str, Any]) -> None:
        """The game's bookkeeping after the table took a message."""

    def reloaded(self) -> None:
        """The game's bookkeeping after a snapshot replaced the table."""

    # -- each level: its hooks --------------------------------------------------------------------

    def noticed(self, msg: dict[str, Any]) -> None:
        """A hook after each message has updated the table."""

    def restarted(self) -> None:
        """A hook after a snapshot replaced the table."""
