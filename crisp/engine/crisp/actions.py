"""The actions a seat can take, as frozen dataclasses, and their record form (docs/record.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from crisp.engine.crisp.cards import SLOT_INDEX, SLOTS


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    do: ClassVar[str] = ""

    def to_record(self) -> dict[str, Any]:
        return {"seat": self.seat, "do": self.do}


@dataclass(frozen=True, slots=True)
class Ready(Action):
    """Done looking at the start of the round (R-LOOK-START, R-LOOK-PHASE)."""

    do: ClassVar[str] = "ready"


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw the top card of the deck (R-DRAW)."""

    do: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class Swap(Action):
    """Put the drawn card into ``slot`` (R-SWAP)."""

    slot: int
    do: ClassVar[str] = "swap"

    def to_record(self) -> dict[str, Any]:
        return {"seat": self.seat, "do": self.do, "slot": SLOTS[self.slot]}


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard the drawn card unused (R-DISCARD)."""

    do: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class Jack(Action):
    """Use the drawn Jack: look at your own middle card (R-JACK)."""

    do: ClassVar[str] = "jack"


@dataclass(frozen=True, slots=True)
class Queen(Action):
    """Use the drawn Queen: your ``slot`` with ``target``'s ``target_slot`` (R-QUEEN)."""

    slot: int
    target: int
    target_slot: int
    do: ClassVar[str] = "queen"

    def to_record(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "do": self.do,
            "slot": SLOTS[self.slot],
            "target": self.target,
            "target_slot": SLOTS[self.target_slot],
        }


@dataclass(frozen=True, slots=True)
class King(Action):
    """Use the drawn King: two extra draws (R-KING)."""

    do: ClassVar[str] = "king"


@dataclass(frozen=True, slots=True)
class TakeDiscard(Action):
    """Take the top of the discard pile into ``slot`` (R-TAKE-DISCARD)."""

    slot: int
    do: ClassVar[str] = "take_discard"

    def to_record(self) -> dict[str, Any]:
        return {"seat": self.seat, "do": self.do, "slot": SLOTS[self.slot]}


@dataclass(frozen=True, slots=True)
class Crisp(Action):
    """Call crisp (R-CRISP, R-WINDOW)."""

    do: ClassVar[str] = "crisp"


KINDS: dict[str, type[Action]] = {
    cls.do: cls for cls in (Ready, Draw, Swap, Discard, Jack, Queen, King, TakeDiscard, Crisp)
}
_FIELDS: dict[str, tuple[str, ...]] = {
    "swap": ("slot",),
    "take_discard": ("slot",),
    "queen": ("slot", "target", "target_slot"),
}


def _seat(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a seat number, not {value!r}")
    return value


def _slot(value: Any, name: str) -> int:
    if not isinstance(value, str) or value not in SLOT_INDEX:
        raise ValueError(f'{name} must be "left", "middle" or "right", not {value!r}')
    return SLOT_INDEX[value]


def from_record(data: Any) -> Action:
    """Build an action from its record form; raise ValueError, saying what is wrong, if malformed.

    ``t`` is allowed (and ignored) so that a record's action objects can be passed as they are.
    """
    if not isinstance(data, dict):
        raise ValueError("an action must be an object")
    do = data.get("do")
    if not isinstance(do, str) or do not in KINDS:
        raise ValueError(f"unknown action {do!r}; expected one of {', '.join(KINDS)}")
    seat = _seat(data.get("seat"), "seat")
    allowed = {"t", "seat", "do", *_FIELDS.get(do, ())}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ValueError(f"unexpected field {extra[0]!r} for {do!r}")
    for name in _FIELDS.get(do, ()):
        if name not in data:
            raise ValueError(f"{do!r} needs {name!r}")
    if do in ("swap", "take_discard"):
        return KINDS[do](seat, _slot(data["slot"], "slot"))  # type: ignore[call-arg]
    if do == "queen":
        return Queen(
            seat,
            _slot(data["slot"], "slot"),
            _seat(data["target"], "target"),
            _slot(data["target_slot"], "target_slot"),
        )
    return KINDS[do](seat)
