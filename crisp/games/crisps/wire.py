"""Crisps!'s messages on the wire as pydantic models: the engine's messages (``Out.msg``, with
the room version ``v`` the server adds) and the view of a ``state`` message. ``docs/protocol.md``'s
Crisps! section is generated from them by ``tools/protocol_doc.py``; tests validate every message
and view of many engine games against them."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter
from pydantic.json_schema import SkipJsonSchema

from crisp.games.common.wire import WireObject, server_messages
from crisp.games.crisps.moves import CrispsOptions

Seat = Annotated[int, Field(ge=0, le=1)]
Rank = Literal["1", "2", "3", "4", "5", "6", "7", "8", "9", "X"]
#: A set of cards: ranks in rank order (``3344``, ``789X``), never an identity.
Cards = Annotated[str, Field(pattern=r"^1*2*3*4*5*6*7*8*9*X*$")]
Count = Annotated[int, Field(ge=0)]
Counts = Annotated[list[Count], Field(min_length=2, max_length=2)]
Points = Annotated[list[Annotated[int, Field(ge=0, le=3)]], Field(min_length=2, max_length=2)]
Kind = Literal["single", "pair", "run", "pair_run", "three", "four"]
Need = Literal["lead", "follow", "draw"]
Take = Literal["faceup", "blind"]
GameTime = Annotated[float, Field(ge=0)]


class _Event(WireObject):
    t: GameTime = Field(
        description="the game time at which the engine made the message: seconds since the "
        "deal of round 1 (Crisps!'s game time runs for the whole game; a timeout's messages "
        "carry the deadline's time)"
    )
    v: int = Field(
        ge=0, description="the room version of the change that made it (added by the server)"
    )


class CrispsCombo(WireObject):
    """A combination (CS-COMBO): its cards, kind, rank (its lowest card, CS-RUN) and size."""

    cards: Cards = Field(description="the cards, in rank order")
    kind: Kind = Field(description="single, pair, run, pair_run (Ordinary); three, four (Special)")
    rank: Rank = Field(description="its lowest card")
    size: int = Field(ge=1, le=20, description="how many cards")


class CrispsFairness(WireObject):
    """The commit–reveal shuffle (docs/fairness.md): the commitment and the client seeds, and
    the server seed once the game is over."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"server_seed"})
    commitment: str = Field(pattern="^[0-9a-f]{64}$", description="SHA-256 of the server seed")
    server_seed: str | SkipJsonSchema[None] = Field(
        None, pattern="^[0-9a-f]{64}$", description="the server seed, once the game is over"
    )
    client_seeds: list[str] = Field(description="the seats' client seeds, in seat order")


class CrispsGameEvent(_Event):
    """The game begins: the players and the host's options (to everyone)."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"fairness"})
    type: Literal["game"]
    game: Literal["crisps"] = Field(description="always `crisps`")
    players: list[str] = Field(min_length=2, max_length=2, description="the names, by seat")
    options: CrispsOptions = Field(description="the host's options (docs/rules-crisps.md §7)")
    fairness: CrispsFairness | SkipJsonSchema[None] = Field(
        None, description="the commitment and client seeds (a server's game)"
    )


class CrispsRoundEvent(_Event):
    """A round is dealt (CS-DEAL, CS-START): to each seat with its own `hand`, to watchers
    without."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"hand"})
    type: Literal["round"]
    round: int = Field(ge=1, le=5, description="the round's number, from 1")
    starter: Seat = Field(description="who leads the first trick")
    points: Points = Field(description="the points so far, by seat")
    hand: Cards | SkipJsonSchema[None] = Field(
        None, description="your own hand (CS-SEE-HAND); left out for watchers"
    )
    hands: Counts = Field(description="cards in each hand, by seat (12 and 12)")
    set_aside: Literal[4] = Field(description="four cards set aside, face down (CS-SET-ASIDE)")
    faceup: Rank | None = Field(description="the face-up card, or null (CS-OPT-NO-FACEUP)")
    pile: Count = Field(description="cards in the draw pile")


class CrispsTurnEvent(_Event):
    """A decision falls due (CS-TURN): to everyone; the due seat's copy also has its choices."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"legal", "can_pass", "take"})
    type: Literal["turn"]
    seat: Seat = Field(description="whose decision it is")
    need: Need = Field(description="`lead`, `follow` (or pass) or `draw` (choose)")
    deadline: GameTime | None = Field(description="the game time it times out, or null")
    legal: list[CrispsCombo] | SkipJsonSchema[None] = Field(
        None, description="due seat only: every play it may make now"
    )
    can_pass: bool | SkipJsonSchema[None] = Field(
        None, description="due seat only: it may pass (a follow)"
    )
    take: list[Take] | SkipJsonSchema[None] = Field(
        None, description="due seat only: the draws it may choose (`faceup`, `blind`), or []"
    )


class CrispsPlayEvent(_Event):
    """A play (lead or follow), to everyone (CS-SEE-PUBLIC)."""

    type: Literal["play"]
    seat: Seat = Field(description="who played")
    cards: Cards = Field(description="the cards played")
    kind: Kind = Field(description="the combination's kind")
    rank: Rank = Field(description="its rank (lowest card)")
    size: int = Field(ge=1, le=20, description="how many cards")
    hands: Counts = Field(description="cards left in each hand")
    timeout: bool = Field(description="played by the clock (CS-TIMEOUT)")


class CrispsPassEvent(_Event):
    """A pass ends the trick (CS-PASS), to everyone; `skipped` when the engine passed for a
    follower who could not possibly follow (CS-OPT-SKIP)."""

    type: Literal["pass"]
    seat: Seat = Field(description="who passed")
    skipped: bool = Field(description="an automatic skip (CS-OPT-SKIP)")
    timeout: bool = Field(description="passed by the clock (CS-TIMEOUT)")


class CrispsDrawEvent(_Event):
    """The draw after a pass (CS-DRAW, CS-REFILL), to everyone; the copy to the seat that got
    the blind card also has `blind` (CS-SEE-DRAW). Under CS-OPT-NO-FACEUP both draw blind, by
    themselves: `take`, `faceup` and `new_faceup` are null and each seat's copy has its own
    `blind`."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"blind"})
    type: Literal["draw"]
    seat: Seat = Field(description="the trick's winner, who chose")
    take: Take | None = Field(description="what the winner took, or null (no face-up draw)")
    faceup: Rank | None = Field(description="the face-up card that was taken (by either seat)")
    new_faceup: Rank | None = Field(description="the card turned face up next, or null")
    pile: Count = Field(description="cards left in the pile")
    hands: Counts = Field(description="cards in each hand")
    timeout: bool = Field(description="chosen by the clock (CS-TIMEOUT): the face-up card")
    blind: Rank | SkipJsonSchema[None] = Field(
        None, description="only to the seat that got it: the blind card"
    )


class CrispsRoundEndEvent(_Event):
    """A hand is empty (CS-OUT, CS-POINT): the round's winner and what was hidden (CS-SEE-END)."""

    type: Literal["round_end"]
    round: int = Field(ge=1, le=5, description="the round that ended")
    winner: Seat = Field(description="who emptied their hand")
    points: Points = Field(description="the points after it")
    set_aside: Cards = Field(min_length=4, max_length=4, description="the four set-aside cards")
    loser_hand: Cards = Field(description="the other seat's remaining hand")


class CrispsGameOverEvent(_Event):
    """A seat has 3 points (CS-GAME-END); the server seed is revealed."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"fairness"})
    type: Literal["game_over"]
    winner: Seat = Field(description="the winner")
    points: Points = Field(description="the final points")
    fairness: CrispsFairness | SkipJsonSchema[None] = Field(
        None, description="the commitment, the server seed and the client seeds"
    )


class CrispsClockEvent(_Event):
    """The due decision's time restarted in full (after a pause)."""

    type: Literal["clock"]
    seat: Seat = Field(description="whose decision it is")
    need: Need = Field(description="which decision")
    deadline: GameTime = Field(description="the new deadline")


EVENT_TYPES: tuple[type[_Event], ...] = (
    CrispsGameEvent,
    CrispsRoundEvent,
    CrispsTurnEvent,
    CrispsPlayEvent,
    CrispsPassEvent,
    CrispsDrawEvent,
    CrispsRoundEndEvent,
    CrispsGameOverEvent,
    CrispsClockEvent,
)
ServerEvent = Annotated[Union[EVENT_TYPES], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007
SERVER_EVENT: TypeAdapter[Any] = TypeAdapter(ServerEvent)
#: Everything the server sends on a WebSocket in a Crisps! room.
ServerMessage = server_messages(EVENT_TYPES)
SERVER: TypeAdapter[Any] = TypeAdapter(ServerMessage)


# -- the view ------------------------------------------------------------------------------------


class CrispsTrickPlay(CrispsCombo):
    """A play of the current trick."""

    seat: Seat = Field(description="who played it")


class CrispsDue(WireObject):
    """The decision due."""

    seat: Seat = Field(description="whose")
    need: Need = Field(description="`lead`, `follow` or `draw`")
    deadline: GameTime | None = Field(description="when it times out, or null")


class CrispsLastRound(WireObject):
    """The last finished round, as its `round_end` showed it."""

    round: int = Field(ge=1, description="its number")
    winner: Seat = Field(description="who went out")
    set_aside: Cards = Field(description="its set-aside cards")
    loser_hand: Cards = Field(description="the other seat's remaining hand")


class CrispsHistory(WireObject):
    """A finished round."""

    round: int = Field(ge=1, description="its number")
    starter: Seat = Field(description="who started it")
    winner: Seat = Field(description="who went out")
    points: Points = Field(description="the points after it")


class CrispsView(WireObject):
    """The `view` of a `state` in a Crisps! room (docs/rules-crisps.md §9): everything public, your
    own hand, and your choices when your decision is due."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"hand", "fairness"})
    game: Literal["crisps"] = Field(description="always `crisps`")
    players: list[str] = Field(description="the names, by seat")
    options: CrispsOptions = Field(description="the host's options")
    round: int = Field(ge=0, description="the current round's number (0 before the deal)")
    starter: Seat | None = Field(description="the current round's starter")
    points: Points = Field(description="the points, by seat")
    you: Seat | None = Field(description="your seat, or null for a watcher")
    hand: Cards | SkipJsonSchema[None] = Field(None, description="your hand (seats only)")
    hands: Counts = Field(description="cards in each hand")
    pile: Count = Field(description="cards in the pile")
    faceup: Rank | None = Field(description="the face-up card, or null")
    set_aside: Literal[0, 4] = Field(description="cards set aside (4 once dealt)")
    trick: list[CrispsTrickPlay] = Field(description="the current trick's plays, in order")
    played: Cards = Field(description="every card played this round")
    known: list[Cards] = Field(
        min_length=2,
        max_length=2,
        description="by seat: the face-up cards it took this round and has not played since "
        "(CS-SEE-PUBLIC: a face-up card taken stays known to both)",
    )
    due: CrispsDue | None = Field(description="the decision due, or null (the game is over)")
    legal: list[CrispsCombo] = Field(description="your legal plays when your decision is due")
    can_pass: bool = Field(description="you may pass now")
    take: list[Take] = Field(description="the draws you may choose now")
    last_round: CrispsLastRound | None = Field(description="the last finished round, or null")
    history: list[CrispsHistory] = Field(description="every finished round")
    over: bool = Field(description="the game is over")
    winner: Seat | None = Field(description="the winner once over")
    fairness: CrispsFairness | SkipJsonSchema[None] = Field(
        None, description="the commit–reveal fairness (a server's game)"
    )


VIEW: TypeAdapter[CrispsView] = TypeAdapter(CrispsView)
OBJECTS: tuple[type[BaseModel], ...] = (
    CrispsCombo,
    CrispsFairness,
    CrispsView,
    CrispsTrickPlay,
    CrispsDue,
    CrispsLastRound,
    CrispsHistory,
)
