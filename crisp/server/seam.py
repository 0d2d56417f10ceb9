"""The game seam: everything the server knows of a game, and nothing more.

A game plugs into the server with a ``GameSpec`` (registered by name, see ``registry.py``): how its
host options and moves are checked, how a match starts or is rebuilt from its log, and which bots
it offers. A running game is a ``Match``: the server gives it moves and times, stores the log
entries each change returns, and sends the addressed messages (``Outgoing``) to the seats entitled
to them. The server never decides a rule; a game never touches a socket, a clock or a database.

Time is the game's own: seconds since the current round began (a new round starts at 0), as exact
thousandths. The server maps it to real time, pauses it and restarts it (``GameClock``).

Fairness (commit–reveal): the server draws a secret ``server_seed`` when a lobby opens and at each
rematch, publishes its SHA-256 (``commitment``) before anyone can start, collects each phone's
``client_seed`` in the lobby and hands both to ``new_match`` as ``Seeds``; a game that shuffles
derives its deals from them (Crisp: docs/fairness.md), a game that does not ignores them. The
server reveals nothing: the game's own ``game_over`` message and record do.

Latency (R-WINDOW-LAG): every move comes with ``lag_ms``, the server's estimate of the one-way
delay of the connection that sent it (half its measured round trip, capped by a setting; 0 for a
bot or before a measure). A game with a time window may extend the window the move opens by it;
it must keep it in the log entry so that ``from_log`` rebuilds exactly. Others ignore it.

Optional capabilities: ``absence`` (a host's grace for a disconnected seat, after which its turns
time out) and ``restart_clock`` (a game with turn clocks restarts the current one in full after a
pause or a restart). A game without them returns None / an empty change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from crisp.engine.common.fairness import commitment_of

LogEntry = dict[str, Any]
Fields = dict[str, Any]


class Status(StrEnum):
    """Where a match stands."""

    PLAYING = "playing"  # a round is being played
    BETWEEN = "between"  # a round is over (or none was dealt yet); the game is not
    OVER = "over"  # the game is over


class Outgoing(Protocol):
    """One message and who gets it: ``to`` None (everyone), a seat ``s >= 0`` (that seat only) or
    ``~s`` (everyone but seat ``s``); ``for_seat`` answers for a seat or a watcher (None)."""

    @property
    def to(self) -> int | None: ...
    @property
    def msg(self) -> Mapping[str, Any]: ...
    def for_seat(self, seat: int | None, /) -> bool: ...


@dataclass
class Change:
    """What one input did to a match: the messages it produced, the log entries that replay it,
    and which seats' pending moves it makes stale (None: every seat's)."""

    outs: list[Outgoing] = field(default_factory=list)
    entries: list[LogEntry] = field(default_factory=list)
    stale: frozenset[int] | None = frozenset()

    def __bool__(self) -> bool:
        return bool(self.entries)

    def then(self, other: Change) -> Change:
        """This change followed by ``other``, as one."""
        stale = None if self.stale is None or other.stale is None else self.stale | other.stale
        return Change([*self.outs, *other.outs], [*self.entries, *other.entries], stale)


@dataclass(frozen=True, repr=False)
class Seeds:
    """The seeds of a new game: the server's secret (32 bytes, committed to before the start)
    and the seated players' client seeds in seat order (``""`` for a bot or a silent seat)."""

    server_seed: bytes
    client_seeds: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.server_seed) != 32:
            raise ValueError("a server seed is 32 bytes")
        object.__setattr__(self, "client_seeds", tuple(self.client_seeds))

    def commitment(self) -> str:
        """SHA-256 of the server seed, lower-case hex: what the ``room`` message published."""
        return commitment_of(self.server_seed)

    def __repr__(self) -> str:  # never print the secret (a log line, a traceback)
        return f"Seeds(commitment={self.commitment()!r}, client_seeds={self.client_seeds!r})"


class BadFields(ValueError):
    """A move or options that do not fit the game's model: ``where`` names the field."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


class MoveRefused(Exception):
    """A move the rules refuse, with the id of the rule it breaks. ``before`` holds what was
    applied before the refusal (deadlines that were due): it stands, and is stored."""

    def __init__(self, rule: str, message: str, before: Change | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.before = before or Change()


class Decision(NamedTuple):
    """A bot's next move: not before game time ``at``; ``think`` adds a human pause."""

    at: float
    move: Fields
    think: bool = True


class SeatBot(Protocol):
    """A bot at one seat: fed exactly that seat's messages, it says what it wants to do next."""

    def observe(self, msg: Mapping[str, Any], /) -> None: ...
    def decide(self, now: float, /) -> Decision | None: ...


class Absence(Protocol):
    """The capability to time out a disconnected seat's turns after a host's grace."""

    def grace_refusal(self) -> str | None:
        """Why the host cannot give a grace in this game (None: they can)."""

    def is_absent(self, seat: int, /) -> bool: ...

    def set_absent(self, seat: int, until: float | None, t: float, /) -> Change:
        """At ``t``: ``seat``'s turns time out from ``until`` (None: the seat is back).
        Raises ValueError when that cannot be (e.g. every other seat is absent)."""


class Match(Protocol):
    """A game being played, as the server drives it."""

    @property
    def players(self) -> Sequence[str]: ...

    def status(self) -> Status: ...

    def started(self) -> bool:
        """A round has been dealt (before that, there is no view)."""

    def start_round(self) -> Change:
        """Deal the next round; its game time starts at 0."""

    def apply(self, seat: int, move: Fields, t: float, lag_ms: int, /) -> Change:
        """``seat``'s move at game time ``t`` (deadlines due by then apply first), sent over a
        connection whose one-way delay is estimated at ``lag_ms`` (0 to 1000; see above). Raises
        ``MoveRefused`` (nothing changed but ``before``) or ``BadFields``."""

    def advance(self, t: float, /) -> Change:
        """Apply every deadline due by game time ``t``."""

    def restart_clock(self, t: float, /) -> Change:
        """After a pause: the running turn clock, if any, restarts in full."""

    def next_deadline(self) -> float | None:
        """The game time at which ``advance`` will change something, or None."""

    def last_time(self) -> float:
        """The game time of the last change of the current round (time never goes back)."""

    def view(self, seat: int | None, /) -> dict[str, Any]:
        """What ``seat`` (None: a watcher) may see now: a reconnect snapshot."""

    def legal_moves(self, seat: int, /) -> list[Fields]: ...

    def record(self) -> dict[str, Any]:
        """The game so far as the game's record format (it holds the deck order)."""

    @property
    def absence(self) -> Absence | None: ...


class GameSpec(Protocol):
    """A game the server can host."""

    @property
    def name(self) -> str:
        """Its name in ``POST /api/rooms {"game": …}`` and the ``room`` message's ``game_type``."""

    @property
    def seats(self) -> tuple[int, int]:
        """The fewest and most players of a game."""

    @property
    def bot_levels(self) -> tuple[str, ...]: ...

    def default_options(self) -> Fields: ...

    def check_options(self, fields: Fields, /) -> Fields:
        """The host's options as stored and sent; raises ``BadFields``."""

    def check_move(self, fields: Fields, /) -> Fields:
        """A move's fields, checked for shape only (the rules come in ``Match.apply``); raises
        ``BadFields``."""

    def new_match(
        self, players: list[str], options: Fields, number: int, seeds: Seeds, /
    ) -> tuple[Match, LogEntry]:
        """A new game and the head entry of its log (``e`` is ``"game"``; it holds the secrets
        the game needs to be rebuilt, such as its seeds). ``seeds.client_seeds`` has one seed a
        player."""

    def from_log(self, entries: list[LogEntry], /) -> Match:
        """The game of ``entries`` (its head first) as it was after the last one."""

    def make_bot(
        self,
        level: str,
        seat: int,
        players: list[str],
        options: Fields,
        view: dict[str, Any] | None,
        seed: int,
        /,
    ) -> SeatBot:
        """A bot for ``seat``; mid-game it starts from the seat's view."""
