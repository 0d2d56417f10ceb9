"""The rules engine's messages as the server forwards them: a pydantic model for each.

The engine makes these messages (docs/engine.md, "Messages"); the server sends each one as it is,
to every connection entitled to it, with one field added: ``v``, the room version of the change
that made it. ``docs/protocol.md`` is generated from these models and from ``protocol.py``
(``python -m crisp.server.protocol_doc``); tests validate every message of many engine games and of
real games on a real server against them.

Also here: the engine's reconnect view (``game.view(seat)``), which a ``state`` message carries as
its ``view``, and ``ServerMessage``, the union of everything the server sends.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator
from pydantic.json_schema import SkipJsonSchema

from crisp.server import protocol as P
from crisp.server.protocol import Card, Seat, Slot

#: A game time: seconds since the current round's deal (the clock of ``t``).
GameTime = Annotated[float, Field(ge=0)]
#: A hand as the reveal shows it: the cards in the left, middle and right slots.
Hand = Annotated[list[Card], Field(min_length=3, max_length=3)]


class _Strict(BaseModel):
    """A message or object of the protocol: unknown fields are refused. The fields named in
    ``omitted_not_null`` may be left out, but are never null when present."""

    model_config = ConfigDict(extra="forbid")
    omitted_not_null: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _present_means_not_null(self) -> Any:
        for name in self.omitted_not_null & self.model_fields_set:
            if getattr(self, name) is None:
                raise ValueError(f"{name} is left out when it does not apply, never null")
        return self


class _Event(_Strict):
    t: GameTime = Field(
        description="the game time at which the engine made the message: seconds since this "
        "round's deal (a deadline's message carries the deadline's time)"
    )
    v: int = Field(
        ge=0, description="the room version of the change that made it (added by the server)"
    )


# -- the engine's messages, in the order of docs/engine.md ----------------------------------------


class GameEvent(_Event):
    """The game begins: its players in seat order and the host's options. Sent once, to everyone,
    just before the first ``round`` (its ``t`` is 0)."""

    type: Literal["game"]
    players: list[str] = Field(description="the players' names, by seat (seat 0 first)")
    options: P.Options = Field(description="the host's options for this game (RULES.md §6)")
    commitment: str | None = Field(
        None, pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 of the server seed, as the room message published it before the "
        "start (docs/fairness.md); left out for a game dealt before the commit-reveal shuffle",
    )  # fmt: skip
    client_seeds: list[Annotated[str, Field(max_length=64)]] | None = Field(
        None, description="the client seeds fixed at the start, by seat (\"\" for a bot or a "
        "silent seat); left out with the commitment",
    )  # fmt: skip
    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"commitment", "client_seeds"})


class RoundEvent(_Event):
    """A deal (R-DEAL): a new round begins and its game time starts again at 0. Sent to everyone;
    each seat's two ``look`` messages follow (its left and right cards, R-LOOK-START)."""

    type: Literal["round"]
    round: int = Field(ge=1, description="the round's number, from 1")
    dealer: Seat = Field(description="the dealer's seat (R-DEALER)")
    first: Seat = Field(description="the seat that plays first: the dealer's left (R-FIRST)")
    deck: int = Field(ge=0, description="cards left in the deck after the deal")
    look_until: GameTime = Field(
        description="the end of the look phase (R-LOOK-PHASE): the first turn is due then at "
        "the latest, sooner if every seat is ready"
    )


class LookEvent(_Event):
    """A look at one of your own cards (R-SEE-LOOK): at the deal (your left and right cards), after
    your Jack (your middle card), or after a Queen brought a card into your left or right slot
    (either player). Sent to the looking seat only. Show the card briefly: no later message names
    it again (a ``state`` repeats it only while the look is still open)."""

    type: Literal["look"]
    seat: Seat = Field(description="your seat")
    slot: Slot = Field(description="the slot looked at")
    card: Card = Field(description="the card in that slot")
    why: Literal["deal", "jack", "queen"] = Field(description="what gave the look")


class ReadyEvent(_Event):
    """A seat is done looking (its ``ready`` action). When every seat is ready the look phase ends
    at once and the first ``turn`` follows. Sent to everyone."""

    type: Literal["ready"]
    seat: Seat = Field(description="the seat that is ready")


class TurnEvent(_Event):
    """A draw becomes due: the start of a turn (``draw`` 1) or an extra draw after a King. Sent to
    everyone. The seat may draw (or take from the pile) from ``at`` on; with a deadline, the draw
    times out at ``deadline`` (R-TIMER, R-TIMEOUT)."""

    type: Literal["turn"]
    seat: Seat = Field(description="whose draw it is")
    draw: int = Field(ge=1, description="which draw of the turn, from 1 (Kings add draws)")
    left: int = Field(ge=1, description="draws left in the turn, this one included")
    at: GameTime = Field(
        description="the game time from which the seat may draw: 2 s after the previous turn "
        "ended with a crisp window (R-WINDOW), or at once"
    )
    deadline: GameTime | None = Field(
        description="the game time at which this draw times out: the per-draw time (R-TIMER) "
        "counted from `at`, or sooner the end of an absent seat's grace; null: no deadline"
    )
    final: bool = Field(description="a final turn, after a crisp call (R-FINAL-TURNS)")


class DrawEvent(_Event):
    """A card drawn from the deck (R-DRAW). The drawer's copy names the card (R-SEE-DRAWN);
    everyone else (other seats and spectators) gets the same message without ``card``."""

    type: Literal["draw"]
    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"card"})
    seat: Seat = Field(description="the drawer")
    deck: int = Field(ge=0, description="cards left in the deck after the draw")
    card: Card | SkipJsonSchema[None] = Field(
        None, description="the drawn card: in the drawer's own copy only (left out for others)"
    )


class RecycleEvent(_Event):
    """The deck ran out: the discard pile was turned over, unshuffled, to make a new deck
    (R-RECYCLE); the pile is empty. Sent to everyone, just before the draw that needed it."""

    type: Literal["recycle"]
    deck: int = Field(ge=0, description="cards in the new deck")


class SwapEvent(_Event):
    """The drawn card went into the drawer's hand (R-SWAP); the card it replaced lands face up on
    the discard pile. Sent to everyone."""

    type: Literal["swap"]
    seat: Seat = Field(description="the seat that swapped")
    slot: Slot = Field(description="the slot the drawn card went into")
    card: Card = Field(description="the replaced card, now on top of the discard pile")


class DiscardEvent(_Event):
    """The drawn card was discarded without effect (R-DISCARD). Sent to everyone."""

    type: Literal["discard"]
    seat: Seat = Field(description="the seat that discarded")
    card: Card = Field(description="the discarded card, now on top of the pile")


class JackEvent(_Event):
    """A drawn Jack was played (R-JACK): its player looks at their own middle card (a private
    ``look`` follows, to that seat only). Sent to everyone."""

    type: Literal["jack"]
    seat: Seat = Field(description="the seat that played the Jack")
    card: Card = Field(description="the Jack, now on top of the pile")


class QueenEvent(_Event):
    """A drawn Queen was played (R-QUEEN): a blind exchange of one of the player's cards with one
    of another seat's. Which slots is public; the faces are not. A card arriving in a left or
    right slot is looked at by its new owner (R-QUEEN-LOOK): private ``look`` messages follow.
    Sent to everyone."""

    type: Literal["queen"]
    seat: Seat = Field(description="the seat that played the Queen")
    slot: Slot = Field(description="the player's slot that was exchanged")
    target: Seat = Field(description="the other seat")
    target_slot: Slot = Field(description="the other seat's slot that was exchanged")
    card: Card = Field(description="the Queen, now on top of the pile")


class KingEvent(_Event):
    """A drawn King was played (R-KING): two extra draws in the same turn (a ``turn`` with the
    next ``draw`` number follows). Sent to everyone."""

    type: Literal["king"]
    seat: Seat = Field(description="the seat that played the King")
    card: Card = Field(description="the King, now on top of the pile")
    left: int = Field(ge=0, description="draws still to come in this turn (the King's included)")


class TakeEvent(_Event):
    """The top card of the discard pile was taken into the player's hand instead of a draw
    (R-TAKE-DISCARD, when the host allows it); the card it replaced lands face up on the pile.
    Sent to everyone."""

    type: Literal["take"]
    seat: Seat = Field(description="the seat that took")
    slot: Slot = Field(description="the slot the taken card went into")
    card: Card = Field(description="the replaced card, now on top of the pile")


class TimeoutEvent(_Event):
    """A draw's deadline passed (R-TIMEOUT): the player loses the rest of the turn, which ends with
    no crisp window (a ``turn_end`` follows). Sent to everyone."""

    type: Literal["timeout"]
    seat: Seat = Field(description="the seat that ran out of time")
    card: Card | None = Field(
        description="the card discarded for the player (the drawn card, or the deck's top card "
        "if nothing was drawn yet), now on top of the pile; null between a King's extra draws"
    )
    lost: int = Field(ge=0, description="the extra draws lost")


class TurnEndEvent(_Event):
    """A turn ended. With a crisp window (a turn that ended normally, before any call), its player
    may call until ``window_until`` and the next player may draw from ``next_at`` (R-WINDOW).
    Sent to everyone; the next ``turn`` follows, or the ``reveal`` after the last final turn."""

    type: Literal["turn_end"]
    seat: Seat = Field(description="whose turn ended")
    window_until: GameTime | None = Field(
        description="the end of this seat's crisp window: 3 s after its turn ended plus its "
        "connection's allowance (R-WINDOW-LAG, at most 250 ms); null: no window (a timeout, or "
        "a final turn, R-WINDOW-NONE)"
    )
    next: Seat | None = Field(description="the next seat to play; null: the round is over")
    next_at: GameTime | None = Field(
        description="the game time from which the next seat may draw; null: the round is over"
    )


class WindowClosedEvent(_Event):
    """A crisp window closed with no call: 3 s passed, or the next player's turn ended. Sent to
    everyone."""

    type: Literal["window_closed"]
    seat: Seat = Field(description="the seat whose window closed")


class CrispEvent(_Event):
    """Crisp was called (R-CRISP): every other seat plays one final turn, in order, then the round
    ends (R-FINAL-TURNS). Sent to everyone."""

    type: Literal["crisp"]
    seat: Seat = Field(description="the caller")
    final: list[Seat] = Field(description="the seats of the final turns, in playing order")


class RevealEvent(_Event):
    """The round is over: every hand face up (R-SEE-REVEAL) and the round's scores (R-ROUND-SCORE).
    Sent to everyone, then a ``room`` with the phase ``between`` (or ``game_over``, then a ``room``
    with the phase ``over``)."""

    type: Literal["reveal"]
    caller: Seat = Field(description="the seat that called crisp")
    hands: list[Hand] = Field(description="every seat's hand, by seat: [left, middle, right]")
    scores: list[int] = Field(
        description="this round's score of each seat, by seat (R-ROUND-SCORE; the caller's "
        "R-CALLER-BONUS may make it negative)"
    )
    totals: list[int] = Field(description="each seat's total so far, by seat")


class GameOverEvent(_Event):
    """A total reached the host's limit: the game is over (R-GAME-END). Sent to everyone, right
    after the last ``reveal``."""

    type: Literal["game_over"]
    totals: list[int] = Field(description="the final totals, by seat")
    winners: list[Seat] = Field(description="the seats with the lowest total (ties share)")
    server_seed: str | None = Field(
        None, pattern=r"^[0-9a-f]{64}$",
        description="the server seed revealed (hex): its SHA-256 is the commitment, and with "
        "the client seeds it derives every deck (docs/fairness.md); left out for a game dealt "
        "before the commit-reveal shuffle",
    )  # fmt: skip
    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"server_seed"})


class ClockEvent(_Event):
    """The deadline of the current draw changed: the host gave its absent seat a grace (its draws
    now time out at the grace's end), the seat came back (its deadline is removed), or the game
    clock started again after a pause (no seated player was connected, or the server restarted)
    and the per-draw time restarted in full. Sent to everyone."""

    type: Literal["clock"]
    seat: Seat = Field(description="whose draw it is")
    deadline: GameTime | None = Field(description="the draw's new deadline; null: none")


#: Every engine message, as one union (``EVENT_TYPES`` lists its members in this order).
Events = (
    GameEvent
    | RoundEvent
    | LookEvent
    | ReadyEvent
    | TurnEvent
    | DrawEvent
    | RecycleEvent
    | SwapEvent
    | DiscardEvent
    | JackEvent
    | QueenEvent
    | KingEvent
    | TakeEvent
    | TimeoutEvent
    | TurnEndEvent
    | WindowClosedEvent
    | CrispEvent
    | RevealEvent
    | GameOverEvent
    | ClockEvent
)
ServerEvent = Annotated[Events, Field(discriminator="type")]
SERVER_EVENT: TypeAdapter[ServerEvent] = TypeAdapter(ServerEvent)
EVENT_TYPES: tuple[type[_Event], ...] = get_args(Events)


def type_of(model: type[BaseModel]) -> str:
    """The ``type`` value of a message model."""
    value: str = model.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    return value


#: Everything the server sends on a WebSocket: its own messages and the engine's.
ServerMessage = Annotated[
    P.Welcome | P.Room | P.State | P.Error | P.Left | P.Pong | P.Probe | Events,
    Field(discriminator="type"),
]
SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


# -- the view of a ``state`` message (the engine's ``game.view(seat)``) ---------------------------


class LookView(_Strict):
    """A look of yours that is still open (R-SEE-LOOK)."""

    slot: Slot = Field(description="your slot")
    card: Card = Field(description="the card in it")
    why: Literal["deal", "jack", "queen"] = Field(description="what gave the look")


class YouView(_Strict):
    """What only your seat may see now."""

    seat: Seat = Field(description="your seat")
    card: Card | None = Field(
        description="the card you drew and have not played yet (R-SEE-DRAWN), or null"
    )
    looks: list[LookView] = Field(
        description="your looks still open: your left and right cards during the look phase "
        "until you are ready; a Jack's or Queen's look until the next change of the game"
    )


class TurnView(_Strict):
    """The draw that is due (as the last ``turn`` said, with a later ``clock`` applied)."""

    seat: Seat = Field(description="whose draw it is")
    draw: int = Field(ge=1, description="which draw of the turn, from 1")
    left: int = Field(ge=1, description="draws left in the turn, this one included")
    at: GameTime = Field(description="the game time from which the seat may draw")
    deadline: GameTime | None = Field(description="the game time at which the draw times out")
    holding: bool = Field(description="the seat holds a drawn card (to play now)")
    final: bool = Field(description="a final turn, after a crisp call")


class WindowView(_Strict):
    """A crisp window that is open (R-WINDOW)."""

    seat: Seat = Field(description="the seat that may call")
    until: GameTime = Field(description="the game time at which the window closes")


class RoundView(_Strict):
    """The current round: everything public, plus ``you`` for a seat. Which fields are present
    depends on ``phase``: ``look_until`` and ``ready`` in the look phase, ``turn`` and ``window``
    in play, ``hands`` and ``scores`` once the round is over."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset(
        {"look_until", "ready", "turn", "hands", "scores", "you"}
    )
    round: int = Field(ge=1, description="the round's number, from 1")
    t: GameTime = Field(description="the game time of the round's last change")
    phase: Literal["look", "play", "over"] = Field(description="the round's phase")
    dealer: Seat = Field(description="the dealer's seat")
    first: Seat = Field(description="the seat that played first")
    deck: int = Field(ge=0, description="cards left in the deck")
    pile: int = Field(ge=0, description="cards on the discard pile")
    top: Card | None = Field(description="the top card of the discard pile, or null (empty)")
    caller: Seat | None = Field(description="the seat that called crisp, or null")
    final: list[Seat] = Field(description="the seats of the final turns, in order (after a call)")
    final_left: int = Field(ge=0, description="final turns not yet ended")
    look_until: GameTime | SkipJsonSchema[None] = Field(
        None, description="look phase only: the end of the look phase"
    )
    ready: list[bool] | SkipJsonSchema[None] = Field(
        None, description="look phase only: which seats are ready, by seat"
    )
    turn: TurnView | SkipJsonSchema[None] = Field(None, description="play only: the due draw")
    window: WindowView | None = Field(
        None, description="play only: the open crisp window, or null (none open)"
    )
    hands: list[Hand] | SkipJsonSchema[None] = Field(
        None, description="once over: every hand, by seat (R-SEE-REVEAL)"
    )
    scores: list[int] | SkipJsonSchema[None] = Field(
        None, description="once over: the round's scores, by seat"
    )
    you: YouView | SkipJsonSchema[None] = Field(
        None, description="for a seat only (left out for spectators): what you alone see"
    )

    PHASE_FIELDS: ClassVar[dict[str, frozenset[str]]] = {
        "look": frozenset({"look_until", "ready"}),
        "play": frozenset({"turn", "window"}),
        "over": frozenset({"hands", "scores"}),
    }

    @model_validator(mode="after")
    def _fields_of_the_phase(self) -> Any:
        every = frozenset().union(*self.PHASE_FIELDS.values())
        present = self.model_fields_set & every
        if present != self.PHASE_FIELDS[self.phase]:
            raise ValueError(
                f"phase {self.phase!r} has the fields {sorted(self.PHASE_FIELDS[self.phase])}, "
                f"not {sorted(present)}"
            )
        return self


class View(_Strict):
    """What a seat (or a spectator) may see now (RULES.md §7): the game, and its current round.
    It is the whole state a client needs to draw the table; later messages update it."""

    players: list[str] = Field(description="the players' names, by seat")
    options: P.Options = Field(description="the host's options for this game")
    totals: list[int] = Field(description="each seat's total so far, by seat")
    over: bool = Field(description="the game is over")
    winners: list[Seat] = Field(description="the winning seats once the game is over, else []")
    fairness: dict[str, Any] | None = Field(
        None, description="the record's fairness object (docs/fairness.md): the commitment and "
        "the client seeds, and the server seed once the game is over; left out for a game dealt "
        "before the commit-reveal shuffle",
    )  # fmt: skip
    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"fairness"})
    round: RoundView = Field(description="the current (or last) round")


VIEW: TypeAdapter[View] = TypeAdapter(View)
