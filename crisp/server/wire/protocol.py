"""The WebSocket protocol: a pydantic model for every message, both ways.

``docs/protocol.md`` is generated from these models (``python tools/protocol_doc.py``) and a test
keeps it current. Every message is one JSON object with a ``type``: a client sends one per text
frame; a server's text frame is one message, or a JSON array of several, in order (``frames.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationInfo
from pydantic_core import PydanticCustomError

from crisp.server.wire.errors import ErrorCode

#: The validation context's key for the most seats a game of the server has (``parse.py``).
SEATS = "seats"


def below_the_most_seats(seat: int, info: ValidationInfo) -> int:
    """A seat number exists in some game of the server: below the context's ``seats``."""
    most = info.context.get(SEATS) if isinstance(info.context, dict) else None
    if most is not None and seat >= most:
        raise PydanticCustomError(
            "less_than_equal", "Input should be less than or equal to {le}", {"le": most - 1}
        )
    return seat


#: A seat number, from 0; its bound is the server's games' (``spec.seats``), not the protocol's.
Seat = Annotated[int, Field(ge=0), AfterValidator(below_the_most_seats)]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# -- client to server -------------------------------------------------------------------------


class Hello(_Msg):
    """The first message of every connection. With the seat token from joining, the connection
    acts for that member (and its seat); without one it only watches, as a spectator."""

    type: Literal["hello"]
    token: str | None = Field(
        None,
        max_length=128,
        description="your seat token (from joining over HTTP); null or left out: watch",
    )
    frames: Literal["one", "array"] = Field(
        "one",
        description='`"array"`: the server may send several messages in one frame, as a JSON '
        "array (see [Frames](#frames)); left out: one message per frame",
    )


class Act(_Msg):
    """A move for the connection's own seat (the seat comes from the token, never from the
    message). ``v`` is the latest version the client has seen: a move decided on an older state
    of the seat's own turn is refused as ``stale``, so a double tap applies once. The move's own
    fields follow ``v`` and are the game's (Crisp: see "Crisp's moves" below)."""

    model_config = ConfigDict(extra="allow", strict=True)
    type: Literal["act"]
    v: int = Field(ge=0, description="the highest `v` you have seen (see [Versions](#versions))")


class SetOptions(_Msg):
    """Host, in the lobby: the game's options, every field (Crisp: the three options of
    docs/rules.md §6, see "Crisp's options" below)."""

    model_config = ConfigDict(extra="allow", strict=True)
    type: Literal["options"]


class Start(_Msg):
    """Host, in the lobby, with 2 to 8 members seated: deal the first round."""

    type: Literal["start"]


class Kick(_Msg):
    """Host, in the lobby: remove a member (their token is no longer accepted)."""

    type: Literal["kick"]
    member: int = Field(description="the member's id (from `room`)")


class PassHost(_Msg):
    """Host: make another member the host."""

    type: Literal["host"]
    member: int = Field(description="the new host's member id (from `room`)")


class Leave(_Msg):
    """In the lobby: leave the room (a host leaving passes the role to the next member)."""

    type: Literal["leave"]


class Continue(_Msg):
    """Between rounds: this seat is done with the reveal. The next deal comes when every
    connected seat has continued, or when the time between rounds has passed."""

    type: Literal["continue"]


class Rematch(_Msg):
    """Host, after the game: back to the lobby with the same room; spectators get seats."""

    type: Literal["rematch"]


class Grace(_Msg):
    """Host, during a game with no per-draw time: give a disconnected seat a grace period, after
    which its draws time out (R-TIMEOUT) until it comes back."""

    type: Literal["grace"]
    seat: Seat = Field(description="the disconnected seat")
    seconds: float | None = Field(None, ge=1, le=600, description="default: the server's setting")


class AddBot(_Msg):
    """Host, in the lobby: add a bot player (marked as a bot) to the next free seat."""

    type: Literal["add_bot"]
    level: str = Field(max_length=20, description="how well the bot plays (the game's levels)")


class StandIn(_Msg):
    """Host, during a game: a bot plays a disconnected player's seat until the player comes back
    (their next ``hello`` takes the seat back)."""

    type: Literal["bot"]
    seat: Seat = Field(description="the disconnected player's seat")
    level: str = Field(max_length=20, description="how well the bot plays (the game's levels)")


class Sync(_Msg):
    """Ask for the full current state again (e.g. when the page becomes visible)."""

    type: Literal["sync"]


class ClientSeed(_Msg):
    """In the lobby, any member: your client seed for the next game's shuffle (docs/fairness.md).
    Send it once you have the ``room`` message with the lobby's ``commitment`` (the server fixed
    its seed first), and again after each rematch (a new commitment, and every client seed is
    cleared). The last one sent before the start counts; it is published in the ``game`` message.
    The room message marks you ``seeded``. A phone sends 16 bytes of ``crypto.getRandomValues``
    as 32 lower-case hex digits (``crisp/static/fairseed.js``)."""

    type: Literal["client_seed"]
    seed: str = Field(min_length=1, max_length=64, description="1 to 64 characters")


class ProbeAck(_Msg):
    """The answer to the server's ``probe``: send it at once, with the same ``n``. The server
    times the round trip (R-WINDOW-LAG); an unknown or repeated ``n`` is ignored."""

    type: Literal["probe_ack"]
    n: int = Field(ge=0, description="the `n` of the probe it answers")


class Ping(_Msg):
    """Keep-alive and latency probe; answered by ``pong`` with the same ``n``."""

    type: Literal["ping"]
    n: int | None = Field(None, description="any number: the `pong` repeats it")


ClientMessage = Annotated[
    Hello
    | Act
    | SetOptions
    | Start
    | Kick
    | PassHost
    | Leave
    | Continue
    | Rematch
    | Grace
    | AddBot
    | StandIn
    | Sync
    | ClientSeed
    | ProbeAck
    | Ping,
    Field(discriminator="type"),
]
CLIENT = TypeAdapter(ClientMessage)
CLIENT_TYPES = (
    Hello,
    Act,
    SetOptions,
    Start,
    Kick,
    PassHost,
    Leave,
    Continue,
    Rematch,
    Grace,
    AddBot,
    StandIn,
    Sync,
    ClientSeed,
    ProbeAck,
    Ping,
)


# -- server to client: the room -----------------------------------------------------------------


class Member(_Msg):
    id: int = Field(description="the member's number in this room (not a secret)")
    name: str = Field(description="the member's name, as the server cleaned it (show it as text)")
    seat: Seat | None = Field(description="seat in the current game, or null (spectator)")
    host: bool = Field(description="this member is the host")
    connected: bool = Field(description="at least one connection of this member is open")
    absent: bool = Field(description="a seat whose draws time out (the host's grace)")
    bot: str | None = Field(None, description="a bot member's level (bots have no token)")
    stand_in: str | None = Field(
        None, description="a bot of this level plays the seat until its player comes back"
    )
    seeded: bool = Field(
        False, description="the member sent a client seed in this lobby (the seed is not shown)"
    )


class Between(_Msg):
    waiting: list[Seat] = Field(description="connected seats that have not continued yet")
    deal_in: float = Field(description="seconds (real time) until the next deal at the latest")


class Room(_Msg):
    """The room: sent to everyone on every change of members, presence, options or phase."""

    type: Literal["room"]
    v: int = Field(description="the room version now")
    code: str = Field(description="the room's code")
    game_type: str = Field(description='the game played in this room, e.g. "crisp"')
    phase: Literal["lobby", "playing", "between", "over"] = Field(
        description=(
            "`lobby` (before a game), `playing` (a round is played), `between` (a round's reveal, "
            "before the next deal), `over` (the game is over)"
        )
    )
    options: dict[str, Any] = Field(
        description="the host's options, the game's own fields (those of the current game once "
        "it started; Crisp: see Crisp's options)"
    )
    members: list[Member] = Field(description="every member, in the order they joined")
    game: int = Field(description="how many games this room has started")
    between: Between | None = Field(None, description="between rounds only; null otherwise")
    record: bool = Field(description="a finished game's record can be downloaded")
    commitment: str | None = Field(
        None,
        pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 (hex) of the server seed of this lobby's next game, or of the game "
        "being played (or just over): published before anyone can start, new at each rematch "
        "(docs/fairness.md); null for a game dealt before the commit-reveal shuffle",
    )


class You(_Msg):
    member: int | None = Field(description="your member id, or null for a watcher")
    seat: Seat | None = Field(
        description=(
            "your seat in the current game; null in the lobby (see `room.members`) and for a "
            "spectator"
        )
    )
    host: bool = Field(description="you are the host")
    name: str | None = Field(description="your name; null for a watcher")


class Welcome(_Msg):
    """The answer to ``hello``: who you are, then a ``room`` and a ``state`` follow."""

    type: Literal["welcome"]
    you: You = Field(description="who you are")
    clock_speed: float = Field(description="game seconds per real second (1 except in tests)")


class State(_Msg):
    """A full snapshot: the engine's view for your seat (docs/engine.md), with only what you may
    see now. Sent after ``welcome``, on ``sync``, and at each new game."""

    type: Literal["state"]
    v: int = Field(description="the room version this snapshot is of")
    now: float | None = Field(description="the game time (seconds since the deal) right now")
    view: dict[str, Any] | None = Field(description="null before the first deal")
    you: You = Field(
        description="who you are (as in `welcome`; a new game may have given you a seat)"
    )


class Error(_Msg):
    """A refused message. Nothing changed. ``rule`` names the rule for an illegal action."""

    type: Literal["error"]
    code: ErrorCode = Field(description="what went wrong: see [Errors](#errors)")
    message: str = Field(description="a sentence for a person, in English")
    rule: str | None = Field(
        None, description="the rule id (`R-…`) that refuses an `illegal` action; left out otherwise"
    )
    about: str | None = Field(
        None,
        description="the type of the refused message, whenever it could be read (see Errors); "
        "left out otherwise",
    )
    v: int | None = Field(None, description="the current version")


class Left(_Msg):
    """The answer to ``leave``: you left the room; the connection closes (4409)."""

    type: Literal["left"]
    code: str = Field(description="the code of the room you left")


class Pong(_Msg):
    type: Literal["pong"]
    n: int | None = Field(None, description="the `n` of the `ping`")


class Probe(_Msg):
    """While a game runs, every 2 s (the server's ``probe_every_s``) until 3 round trips in a row
    agree, then every 30 s or so (``probe_settled_every_s``, at random within a quarter) while
    the answers stay near their median, and on a hello mid-game: answer at once with
    ``probe_ack`` and the same ``n``. Half the median of the last 8
    round trips, capped at 250 ms (``window_lag_cap_ms``), extends the crisp window your turn
    opens (R-WINDOW-LAG; ``turn_end.window_until`` shows it). A phone that does not answer gets
    no allowance; a phone that answers late gets at most the cap."""

    type: Literal["probe"]
    n: int = Field(ge=1, description="the probe's number on this connection")


SERVER_TYPES: tuple[type[BaseModel], ...] = (Welcome, Room, State, Error, Left, Pong, Probe)


# -- over HTTP: creating and joining a room ----------------------------------------------------


class JoinRequest(BaseModel):
    """The body of ``POST /api/rooms`` and ``POST /api/rooms/{code}/join``."""

    name: str = Field(max_length=200, description="trimmed and capped at 20 characters")


class CreateRequest(JoinRequest):
    """The body of ``POST /api/rooms``: the host's name, and the game (default: the server's
    first)."""

    game: str | None = Field(None, max_length=40, description='the game, e.g. "crisp"')


class Joined(BaseModel):
    """The answer (201) of ``POST /api/rooms`` and ``POST /api/rooms/{code}/join``."""

    code: str = Field(description="the room's code (upper case)")
    link: str = Field(description="the room's link (a path on the server) to share")
    member: int = Field(description="your member id in this room")
    token: str = Field(description="the secret seat token: keep it, send it in hello")
    seat: int | None = Field(description="the seat you would have if the game started now")
