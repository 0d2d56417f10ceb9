"""Crisp's messages on the wire as pydantic models: the engine's events, and the view.

The event models are derived from the engine's event dataclasses (``crisp.engine.crisp.events``):
their
fields, types and descriptions, and their docstrings, are the dataclasses' own, so nothing is
written twice; each gets one field more, ``v``, the room version the server adds. The view of a
``state`` message (the engine's ``game.view(seat)``) is modelled here, as are ``ServerEvent`` (the
union of the engine's messages) and ``ServerMessage`` (everything the server sends for Crisp).
``docs/protocol.md`` is generated from these models and ``crisp/server/wire/protocol.py`` by
``tools/protocol_doc.py``; tests validate every message of many engine games and of real games on
a real server against them.
"""

from __future__ import annotations

import types
from dataclasses import MISSING, fields
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, Field, TypeAdapter, create_model, model_validator
from pydantic.json_schema import SkipJsonSchema

from crisp.engine.crisp import events as engine_events
from crisp.engine.crisp.events import DOC, OMIT, Wire
from crisp.engine.crisp.phase import Phase
from crisp.games.common.wire import WireObject, server_messages
from crisp.games.crisp.moves import Card, CrispOptions, Seat, Slot

#: A game time: seconds since the current round's deal (the clock of ``t``).
GameTime = Annotated[float, Field(ge=0)]
#: A hand as the reveal shows it: the cards in the left, middle and right slots.
Hand = Annotated[list[Card], Field(min_length=3, max_length=3)]

#: The schema of each ``Wire`` mark of the engine's event fields.
WIRE_TYPES: dict[Wire, Any] = {
    Wire.SEAT: Seat,
    Wire.CARD: Card,
    Wire.TIME: GameTime,
    Wire.COUNT: Annotated[int, Field(ge=0)],
    Wire.ORDINAL: Annotated[int, Field(ge=1)],
    Wire.HAND: Hand,
    Wire.OPTIONS: CrispOptions,
}


_T_FIELD = next(f for f in fields(engine_events.Event) if f.name == "t")


class _Event(WireObject):
    t: GameTime = Field(description=_T_FIELD.metadata[DOC])
    v: int = Field(
        ge=0, description="the room version of the change that made it (added by the server)"
    )


# -- the engine's messages, derived from its event dataclasses ------------------------------------


def wire_type(hint: Any) -> Any:
    """The pydantic type of an event field's type: each ``Wire`` mark becomes its schema."""
    origin = get_origin(hint)
    if origin is Annotated:
        marks = [m for m in hint.__metadata__ if isinstance(m, Wire)]
        if not marks:
            raise TypeError(f"{hint!r} has no Wire mark")
        return WIRE_TYPES[marks[0]]
    if origin is Union or origin is types.UnionType:
        return Union[tuple(wire_type(arg) for arg in get_args(hint))]  # noqa: UP007
    if origin is list:
        return list[wire_type(get_args(hint)[0])]  # type: ignore[misc]
    return hint  # bool, str, int, float, a Literal


def _without_none(hint: Any) -> Any:
    args = [arg for arg in get_args(hint) if arg is not type(None)]
    return args[0] if len(args) == 1 else Union[tuple(args)]  # noqa: UP007


def event_model(cls: type[engine_events.Event]) -> type[_Event]:
    """The pydantic model of one engine event: the same name, docstring, fields, descriptions."""
    hints = get_type_hints(cls, include_extras=True)
    definitions: dict[str, Any] = {"type": (Literal[cls.type], ...)}
    omitted: set[str] = set()
    for f in fields(cls):
        if f.name == "t":
            continue
        hint = wire_type(hints[f.name])
        if f.metadata.get(OMIT):  # left out when None: never null when present
            omitted.add(f.name)
            hint = _without_none(hint) | SkipJsonSchema[None]  # type: ignore[misc]
        default = ... if f.default is MISSING else f.default
        definitions[f.name] = (hint, Field(default, description=f.metadata[DOC]))
    model: type[_Event] = create_model(
        cls.__name__, __base__=_Event, __doc__=cls.__doc__, __module__=__name__, **definitions
    )
    model.omitted_not_null = frozenset(omitted)
    return model


#: Every engine message's model, in the order of docs/engine.md.
EVENT_TYPES: tuple[type[_Event], ...] = tuple(event_model(cls) for cls in engine_events.EVENT_TYPES)
globals().update({model.__name__: model for model in EVENT_TYPES})  # GameEvent, RoundEvent, …

#: Every engine message, as one union.
Events = Union[EVENT_TYPES]  # type: ignore[valid-type]  # noqa: UP007
ServerEvent = Annotated[Events, Field(discriminator="type")]
SERVER_EVENT: TypeAdapter[Any] = TypeAdapter(ServerEvent)


def type_of(model: type[BaseModel]) -> str:
    """The ``type`` value of a message model."""
    value: str = model.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    return value


#: Everything the server sends on a WebSocket for Crisp: its own messages and the engine's.
ServerMessage = server_messages(EVENT_TYPES)
SERVER: TypeAdapter[Any] = TypeAdapter(ServerMessage)


# -- the view of a ``state`` message (the engine's ``game.view(seat)``) ---------------------------


class LookView(WireObject):
    """A look of yours that is still open (R-SEE-LOOK)."""

    slot: Slot = Field(description="your slot")
    card: Card = Field(description="the card in it")
    why: Literal["deal", "jack", "queen"] = Field(description="what gave the look")


class YouView(WireObject):
    """What only your seat may see now."""

    seat: Seat = Field(description="your seat")
    card: Card | None = Field(
        description="the card you drew and have not played yet (R-SEE-DRAWN), or null"
    )
    looks: list[LookView] = Field(
        description="your looks still open: your left and right cards during the look phase "
        "until you are ready; a Jack's or Queen's look until the next change of the game"
    )


class TurnView(WireObject):
    """The draw that is due (as the last ``turn`` said, with a later ``clock`` applied)."""

    seat: Seat = Field(description="whose draw it is")
    draw: int = Field(ge=1, description="which draw of the turn, from 1")
    left: int = Field(ge=1, description="draws left in the turn, this one included")
    at: GameTime = Field(description="the game time from which the seat may draw")
    deadline: GameTime | None = Field(description="the game time at which the draw times out")
    holding: bool = Field(description="the seat holds a drawn card (to play now)")
    final: bool = Field(description="a final turn, after a crisp call")


class WindowView(WireObject):
    """A crisp window that is open (R-WINDOW)."""

    seat: Seat = Field(description="the seat that may call")
    until: GameTime = Field(description="the game time at which the window closes")


class RoundView(WireObject):
    """The current round: everything public, plus ``you`` for a seat. Which fields are present
    depends on ``phase``: ``look_until`` and ``ready`` in the look phase, ``turn`` and ``window``
    in play, ``hands`` and ``scores`` once the round is over."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset(
        {"look_until", "ready", "turn", "hands", "scores", "you"}
    )
    round: int = Field(ge=1, description="the round's number, from 1")
    t: GameTime = Field(description="the game time of the round's last change")
    phase: Literal[tuple(p.value for p in Phase)] = Field(  # type: ignore[valid-type]
        description="the round's phase"
    )
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
        Phase.LOOK: frozenset({"look_until", "ready"}),
        Phase.PLAY: frozenset({"turn", "window"}),
        Phase.OVER: frozenset({"hands", "scores"}),
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


class RoundScores(WireObject):
    """One finished round's scores and the totals after it (R-CUMULATIVE)."""

    round: int = Field(description="the round's number, from 1")
    scores: list[int] = Field(description="each seat's score in that round, by seat")
    totals: list[int] = Field(description="each seat's total after that round, by seat")


class View(WireObject):
    """What a seat (or a spectator) may see now (docs/rules.md §7): the game, and its current round.
    It is the whole state a client needs to draw the table; later messages update it."""

    omitted_not_null: ClassVar[frozenset[str]] = frozenset({"fairness"})
    players: list[str] = Field(description="the players' names, by seat")
    options: CrispOptions = Field(description="the host's options for this game")
    totals: list[int] = Field(description="each seat's total so far, by seat")
    history: list[RoundScores] = Field(
        description="every finished round of the game, in order: its scores and the totals "
        "after it (the reveal messages' figures, for a phone that reconnects)"
    )
    feed: list[dict[str, Any]] = Field(
        description="the current round's public moves so far, as the messages everyone got "
        "(`round`, `ready`, `draw`, `swap`, `discard`, `jack`, `queen`, `king`, `take`, "
        "`timeout`, `recycle`, `crisp`) but without their `card` (R-SEE-PUBLIC: a face is public "
        "at the moment it lands on the pile only), so that a phone that reconnects rebuilds its "
        "move feed"
    )
    over: bool = Field(description="the game is over")
    winners: list[Seat] = Field(description="the winning seats once the game is over, else []")
    fairness: dict[str, Any] | SkipJsonSchema[None] = Field(
        None,
        description="the record's fairness object (docs/fairness.md): the commitment and "
        "the client seeds, and the server seed once the game is over; left out for a game dealt "
        "before the commit-reveal shuffle",
    )
    round: RoundView = Field(description="the current (or last) round")


VIEW: TypeAdapter[View] = TypeAdapter(View)
