"""The engine's messages as typed events: one frozen dataclass per message type (docs/engine.md,
"Messages"), each with ``to_wire()``, the JSON-ready dict a seat is sent.

Each field carries its description (``field(metadata={DOC: ...})``) and a type that says what it is
on the wire (``Seat``, ``Card``, ``Time``, ``Count``, …: ``Annotated`` with a ``Wire`` mark), so
that a protocol's schema (``crisp/games/crisp/wire.py``) is derived from these classes and never
written twice. ``to_wire()`` gives ``type``, then the fields in their declared order; a field marked
``OMIT`` is left out when it is None (the public twin of a ``draw`` has no ``card``). Lists stay
lists, as the wire has them: treat an event's lists as read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import Annotated, Any, ClassVar, Literal

from crisp.engine.common.messages import Message
from crisp.engine.crisp.cards import SlotName

#: The metadata keys of an event's fields: its description, and "left out when None".
DOC, OMIT = "doc", "omit"


__all__ = ["DOC", "EVENTS", "EVENT_TYPES", "OMIT", "Event", "Message", "SlotName", "Wire"]


class Wire(Enum):
    """What a value is on the wire, beyond its Python type (a protocol schema maps each)."""

    SEAT = "a seat number, from 0"
    CARD = "a card code, e.g. 7H"
    TIME = "a game time: seconds since the round's deal, at least 0"
    COUNT = "a count, at least 0"
    ORDINAL = "a number counted from 1"
    HAND = "a hand: the left, middle and right cards"
    OPTIONS = "the host's options, as a record has them"


Seat = Annotated[int, Wire.SEAT]
Card = Annotated[str, Wire.CARD]
Time = Annotated[float, Wire.TIME]
Count = Annotated[int, Wire.COUNT]
Ordinal = Annotated[int, Wire.ORDINAL]
Hand = Annotated[list[Card], Wire.HAND]
OptionsRecord = Annotated[dict[str, Any], Wire.OPTIONS]
LookWhy = Literal["deal", "jack", "queen"]


def _doc(text: str) -> dict[str, str]:
    return {DOC: text}


class _Stored:
    """Where an event keeps its values: its wire dict, in one slot."""

    __slots__ = ("_wire",)
    _wire: Message


@dataclass(frozen=True, slots=True)
class Event(_Stored):
    """A message of the engine. ``type`` names it on the wire.

    An event keeps its field values in its wire dict (``_with_wire`` makes, per class, the
    ``__init__`` that builds it in one dict literal and the read-only field properties that read
    it): the engine makes several events per action, and a dataclass's frozen ``__init__`` (an
    ``object.__setattr__`` call per field) cost several times what the dict alone did. It is as
    frozen as any frozen dataclass, and compares, prints and copies like one.
    """

    type: ClassVar[str] = ""
    t: Time = field(
        metadata=_doc(
            "the game time at which the engine made the message: seconds since this round's "
            "deal (a deadline's message carries the deadline's time)"
        )
    )

    def to_wire(self) -> Message:
        """The JSON-ready message: ``type``, then the fields in order (a new dict each time)."""
        return self._wire.copy()

    def __reduce__(self) -> tuple[Callable[..., Event], tuple[Any, ...]]:
        """Copies and pickles are made again by ``__init__``, from the field values."""
        return self.__class__, tuple(getattr(self, f.name) for f in fields(self))


def _field_property(name: str, omitted: bool) -> property:
    if omitted:
        return property(lambda self: self._wire.get(name), doc=f"the event's {name}")
    return property(lambda self: self._wire[name], doc=f"the event's {name}")


def _with_wire(cls: type[Event]) -> type[Event]:
    """Give ``cls`` its ``__init__``, which stores the wire dict built in one literal (``type``
    first, then the fields in order, an ``OMIT`` field only when not None), and a read-only
    property per field."""
    every = fields(cls)
    kept = [f.name for f in every if not f.metadata.get(OMIT)]
    omitted = [f.name for f in every if f.metadata.get(OMIT)]
    params = [f.name if f.default is MISSING else f"{f.name}=_default_{f.name}" for f in every]
    items = [f"'type': {cls.type!r}", *(f"{n!r}: {n}" for n in kept)]
    init = [f"def __init__(self, {', '.join(params)}):", f"    wire = {{{', '.join(items)}}}"]
    init += [f"    if {n} is not None: wire[{n!r}] = {n}" for n in omitted]
    init.append("    _set_wire(self, wire)")
    namespace: dict[str, Any] = {"_set_wire": vars(_Stored)["_wire"].__set__}
    namespace.update({f"_default_{f.name}": f.default for f in every if f.default is not MISSING})
    exec("\n".join(init), namespace)  # code made from the class's own field names only
    function = namespace["__init__"]
    function.__qualname__ = f"{cls.__name__}.__init__"
    setattr(cls, "__init__", function)  # noqa: B010
    for f in every:
        setattr(cls, f.name, _field_property(f.name, f.name in omitted))
    return cls


# -- the messages, in the order of docs/engine.md ---------------------------------------------


@dataclass(frozen=True, slots=True)
class GameEvent(Event):
    """The game begins: its players in seat order and the host's options. Sent once, to everyone,
    just before the first ``round`` (its ``t`` is 0)."""

    type: ClassVar[str] = "game"
    players: list[str] = field(metadata=_doc("the players' names, by seat (seat 0 first)"))
    options: OptionsRecord = field(
        metadata=_doc("the host's options for this game (docs/rules.md §6)")
    )
    commitment: str | None = field(
        default=None,
        metadata={
            DOC: "SHA-256 of the server seed, lower-case hex (docs/fairness.md); left out "
            "for a game without a verifiable shuffle",
            OMIT: True,
        },
    )
    client_seeds: list[str] | None = field(
        default=None,
        metadata={
            DOC: "the seated players' client seeds, by seat (a bot's is empty); left out "
            "with the commitment",
            OMIT: True,
        },
    )


@dataclass(frozen=True, slots=True)
class RoundEvent(Event):
    """A deal (R-DEAL): a new round begins and its game time starts again at 0. Sent to everyone;
    each seat's two ``look`` messages follow (its left and right cards, R-LOOK-START)."""

    type: ClassVar[str] = "round"
    round: Ordinal = field(metadata=_doc("the round's number, from 1"))
    dealer: Seat = field(metadata=_doc("the dealer's seat (R-DEALER)"))
    first: Seat = field(metadata=_doc("the seat that plays first: the dealer's left (R-FIRST)"))
    deck: Count = field(metadata=_doc("cards left in the deck after the deal"))
    look_until: Time = field(
        metadata=_doc(
            "the end of the look phase (R-LOOK-PHASE): the first turn is due then at the "
            "latest, sooner if every seat is ready"
        )
    )


@dataclass(frozen=True, slots=True)
class LookEvent(Event):
    """A look at one of your own cards (R-SEE-LOOK): at the deal (your left and right cards), after
    your Jack (your middle card), or after a Queen brought a card into your left or right slot
    (either player). Sent to the looking seat only. Show the card briefly: no later message names
    it again (a ``state`` repeats it only while the look is still open)."""

    type: ClassVar[str] = "look"
    seat: Seat = field(metadata=_doc("your seat"))
    slot: SlotName = field(metadata=_doc("the slot looked at"))
    card: Card = field(metadata=_doc("the card in that slot"))
    why: LookWhy = field(metadata=_doc("what gave the look"))


@dataclass(frozen=True, slots=True)
class ReadyEvent(Event):
    """A seat is done looking (its ``ready`` action). When every seat is ready the look phase ends
    at once and the first ``turn`` follows. Sent to everyone."""

    type: ClassVar[str] = "ready"
    seat: Seat = field(metadata=_doc("the seat that is ready"))


@dataclass(frozen=True, slots=True)
class TurnEvent(Event):
    """A draw becomes due: the start of a turn (``draw`` 1) or an extra draw after a King. Sent to
    everyone. The seat may draw (or take from the pile) from ``at`` on; with a deadline, the draw
    times out at ``deadline`` (R-TIMER, R-TIMEOUT).

    A turn's first ``turn`` comes with the ``turn_end`` of the turn before, while that player's
    crisp window is still open. A call in that window (R-WINDOW) makes the turn under way the first
    final turn although its ``turn`` said ``final`` false: no ``turn`` is sent again for a draw
    (its new version would make that seat's action in flight ``stale``). The ``crisp`` message
    tells it instead: its ``final`` begins with that seat. Every later ``turn`` (the same turn's
    extra draws after a King, the other final turns) and the view's ``turn.final`` say true."""

    type: ClassVar[str] = "turn"
    seat: Seat = field(metadata=_doc("whose draw it is"))
    draw: Ordinal = field(metadata=_doc("which draw of the turn, from 1 (Kings add draws)"))
    left: Ordinal = field(metadata=_doc("draws left in the turn, this one included"))
    at: Time = field(
        metadata=_doc(
            "the game time from which the seat may draw: 2 s after the previous turn ended with "
            "a crisp window (R-WINDOW), or at once"
        )
    )
    deadline: Time | None = field(
        metadata=_doc(
            "the game time at which this draw times out: the per-draw time (R-TIMER) counted "
            "from `at`, or sooner the end of an absent seat's grace; null: no deadline"
        )
    )
    final: bool = field(
        metadata=_doc(
            "a final turn (R-FINAL-TURNS): crisp was called before this draw became due (so "
            "false for the draw under way when the call comes: see above)"
        )
    )


@dataclass(frozen=True, slots=True)
class DrawEvent(Event):
    """A card drawn from the deck (R-DRAW). The drawer's copy names the card (R-SEE-DRAWN);
    everyone else (other seats and spectators) gets the same message without ``card``."""

    type: ClassVar[str] = "draw"
    seat: Seat = field(metadata=_doc("the drawer"))
    deck: Count = field(metadata=_doc("cards left in the deck after the draw"))
    card: Card | None = field(
        default=None,
        metadata={
            DOC: "the drawn card: in the drawer's own copy only (left out for others)",
            OMIT: True,
        },
    )


@dataclass(frozen=True, slots=True)
class RecycleEvent(Event):
    """The deck ran out: the discard pile was turned over, unshuffled, to make a new deck
    (R-RECYCLE); the pile is empty. Sent to everyone, just before the draw that needed it."""

    type: ClassVar[str] = "recycle"
    deck: Count = field(metadata=_doc("cards in the new deck"))


@dataclass(frozen=True, slots=True)
class SwapEvent(Event):
    """The drawn card went into the drawer's hand (R-SWAP); the card it replaced lands face up on
    the discard pile. Sent to everyone."""

    type: ClassVar[str] = "swap"
    seat: Seat = field(metadata=_doc("the seat that swapped"))
    slot: SlotName = field(metadata=_doc("the slot the drawn card went into"))
    card: Card = field(metadata=_doc("the replaced card, now on top of the discard pile"))


@dataclass(frozen=True, slots=True)
class DiscardEvent(Event):
    """The drawn card was discarded without effect (R-DISCARD). Sent to everyone."""

    type: ClassVar[str] = "discard"
    seat: Seat = field(metadata=_doc("the seat that discarded"))
    card: Card = field(metadata=_doc("the discarded card, now on top of the pile"))


@dataclass(frozen=True, slots=True)
class JackEvent(Event):
    """A drawn Jack was played (R-JACK): its player looks at their own middle card (a private
    ``look`` follows, to that seat only). Sent to everyone."""

    type: ClassVar[str] = "jack"
    seat: Seat = field(metadata=_doc("the seat that played the Jack"))
    card: Card = field(metadata=_doc("the Jack, now on top of the pile"))


@dataclass(frozen=True, slots=True)
class QueenEvent(Event):
    """A drawn Queen was played (R-QUEEN): a blind exchange of one of the player's cards with one
    of another seat's. Which slots is public; the faces are not. A card arriving in a left or
    right slot is looked at by its new owner (R-QUEEN-LOOK): private ``look`` messages follow.
    Sent to everyone."""

    type: ClassVar[str] = "queen"
    seat: Seat = field(metadata=_doc("the seat that played the Queen"))
    slot: SlotName = field(metadata=_doc("the player's slot that was exchanged"))
    target: Seat = field(metadata=_doc("the other seat"))
    target_slot: SlotName = field(metadata=_doc("the other seat's slot that was exchanged"))
    card: Card = field(metadata=_doc("the Queen, now on top of the pile"))


@dataclass(frozen=True, slots=True)
class KingEvent(Event):
    """A drawn King was played (R-KING): two extra draws in the same turn (a ``turn`` with the
    next ``draw`` number follows). Sent to everyone."""

    type: ClassVar[str] = "king"
    seat: Seat = field(metadata=_doc("the seat that played the King"))
    card: Card = field(metadata=_doc("the King, now on top of the pile"))
    left: Count = field(metadata=_doc("draws still to come in this turn (the King's included)"))


@dataclass(frozen=True, slots=True)
class TakeEvent(Event):
    """The top card of the discard pile was taken into the player's hand instead of a draw
    (R-TAKE-DISCARD, when the host allows it); the card it replaced lands face up on the pile.
    Sent to everyone."""

    type: ClassVar[str] = "take"
    seat: Seat = field(metadata=_doc("the seat that took"))
    slot: SlotName = field(metadata=_doc("the slot the taken card went into"))
    card: Card = field(metadata=_doc("the replaced card, now on top of the pile"))


@dataclass(frozen=True, slots=True)
class TimeoutEvent(Event):
    """A draw's deadline passed (R-TIMEOUT): the player loses the rest of the turn, which ends with
    no crisp window (a ``turn_end`` follows). Sent to everyone."""

    type: ClassVar[str] = "timeout"
    seat: Seat = field(metadata=_doc("the seat that ran out of time"))
    card: Card | None = field(
        metadata=_doc(
            "the card discarded for the player (the drawn card, or the deck's top card if "
            "nothing was drawn yet), now on top of the pile; null between a King's extra draws"
        )
    )
    lost: Count = field(metadata=_doc("the extra draws lost"))


@dataclass(frozen=True, slots=True)
class TurnEndEvent(Event):
    """A turn ended. With a crisp window (a turn that ended normally, before any call), its player
    may call until ``window_until`` and the next player may draw from ``next_at`` (R-WINDOW).
    Sent to everyone; the next ``turn`` follows, or the ``reveal`` after the last final turn."""

    type: ClassVar[str] = "turn_end"
    seat: Seat = field(metadata=_doc("whose turn ended"))
    window_until: Time | None = field(
        metadata=_doc(
            "the end of this seat's crisp window: 3 s after its turn ended plus its connection's "
            "allowance (R-WINDOW-LAG, at most 250 ms by default); null: no window (a timeout, or "
            "a final turn, R-WINDOW-NONE)"
        )
    )
    next: Seat | None = field(metadata=_doc("the next seat to play; null: the round is over"))
    next_at: Time | None = field(
        metadata=_doc("the game time from which the next seat may draw; null: the round is over")
    )


@dataclass(frozen=True, slots=True)
class WindowClosedEvent(Event):
    """A crisp window closed with no call (R-WINDOW): 3 s passed, or the next player's turn ended
    first (then it comes just before that turn's ``turn_end``). Sent to everyone."""

    type: ClassVar[str] = "window_closed"
    seat: Seat = field(metadata=_doc("the seat whose window closed"))


@dataclass(frozen=True, slots=True)
class CrispEvent(Event):
    """Crisp was called (R-CRISP): every other seat plays one final turn, in order, then the round
    ends (R-FINAL-TURNS). Sent to everyone."""

    type: ClassVar[str] = "crisp"
    seat: Seat = field(metadata=_doc("the caller"))
    final: list[Seat] = field(
        metadata=_doc(
            "the seats of the final turns, in playing order (the first may be playing already: "
            "a call after the next player's turn began)"
        )
    )


@dataclass(frozen=True, slots=True)
class RevealEvent(Event):
    """The round is over: every hand face up (R-SEE-REVEAL) and the round's scores (R-ROUND-SCORE).
    Sent to everyone, then a ``room`` with the phase ``between`` (or ``game_over``, then a ``room``
    with the phase ``over``)."""

    type: ClassVar[str] = "reveal"
    caller: Seat = field(metadata=_doc("the seat that called crisp"))
    hands: list[Hand] = field(metadata=_doc("every seat's hand, by seat: [left, middle, right]"))
    scores: list[int] = field(
        metadata=_doc(
            "this round's score of each seat, by seat (R-ROUND-SCORE; the caller's "
            "R-CALLER-BONUS may make it negative)"
        )
    )
    totals: list[int] = field(metadata=_doc("each seat's total so far, by seat"))


@dataclass(frozen=True, slots=True)
class RoundStoryEvent(Event):
    """The round told again (R-SEE-STORY): once its ``reveal`` is out the round is over
    and every face of it may be shown, so the phone can play its turns again face up. Sent to
    everyone right after the ``reveal`` (before any ``game_over``); made by
    ``crisp.engine.crisp.story``. It holds only the finished round's faces: its hands as dealt, the
    cards drawn in it and those that were face up on its pile; never a card nobody drew."""

    type: ClassVar[str] = "round_story"
    round: Ordinal = field(metadata=_doc("the finished round's number, from 1"))
    dealer: Seat = field(metadata=_doc("the round's dealer"))
    hands: list[Hand] = field(
        metadata=_doc("every seat's hand as dealt, by seat: [left, middle, right]")
    )
    moves: list[dict[str, Any]] = field(
        metadata=_doc(
            "the round's public moves in order, as everyone got them (`ready`, `draw`, `swap`, "
            "`discard`, `jack`, `queen`, `king`, `take`, `timeout`, `recycle`, `crisp`, each "
            "with its `t`), every `draw` now with its `card`"
        )
    )


@dataclass(frozen=True, slots=True)
class GameOverEvent(Event):
    """A total reached the host's limit: the game is over (R-GAME-END). Sent to everyone, right
    after the last ``reveal``."""

    type: ClassVar[str] = "game_over"
    totals: list[int] = field(metadata=_doc("the final totals, by seat"))
    winners: list[Seat] = field(metadata=_doc("the seats with the lowest total (ties share)"))
    server_seed: str | None = field(
        default=None,
        metadata={
            DOC: "the server seed, revealed (hex): with the game's client seeds it gives "
            "every deck (docs/fairness.md); left out without a verifiable shuffle",
            OMIT: True,
        },
    )


@dataclass(frozen=True, slots=True)
class ClockEvent(Event):
    """The deadline of the current draw changed: the host gave its absent seat a grace (its draws
    now time out at the grace's end), the seat came back (its deadline is removed), or the game
    clock started again after a pause (no seated player was connected, or the server restarted)
    and the per-draw time restarted in full. Sent to everyone."""

    type: ClassVar[str] = "clock"
    seat: Seat = field(metadata=_doc("whose draw it is"))
    deadline: Time | None = field(metadata=_doc("the draw's new deadline; null: none"))


#: Every message type, in the order of docs/engine.md.
EVENT_TYPES: tuple[type[Event], ...] = tuple(
    _with_wire(cls)
    for cls in (
        GameEvent,
        RoundEvent,
        LookEvent,
        ReadyEvent,
        TurnEvent,
        DrawEvent,
        RecycleEvent,
        SwapEvent,
        DiscardEvent,
        JackEvent,
        QueenEvent,
        KingEvent,
        TakeEvent,
        TimeoutEvent,
        TurnEndEvent,
        WindowClosedEvent,
        CrispEvent,
        RevealEvent,
        RoundStoryEvent,
        GameOverEvent,
        ClockEvent,
    )
)
#: The event class of each wire ``type``.
EVENTS: dict[str, type[Event]] = {cls.type: cls for cls in EVENT_TYPES}


def from_wire(msg: Message) -> Event:
    """The event of a wire message (``v`` and other fields a server added are ignored)."""
    cls = EVENTS[msg["type"]]
    return cls(**{f.name: msg[f.name] for f in fields(cls) if f.name in msg})
