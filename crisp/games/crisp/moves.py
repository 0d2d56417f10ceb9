"""Crisp's moves and host options as they arrive from a phone: their shape, checked with pydantic
(the rules come later, in the engine)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from crisp.engine.crisp import actions
from crisp.server.seam import BadFields

Slot = Literal["left", "middle", "right"]
Seat = Annotated[int, Field(ge=0, le=7)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CrispMove(_Strict):
    """The fields of an ``act`` message in a Crisp room."""

    do: Literal[
        "ready", "draw", "swap", "discard", "jack", "queen", "king", "take_discard", "crisp"
    ] = Field(
        description=(
            "the action (docs/engine.md): `ready` (done looking), `draw` (from the deck), `swap` "
            "(the drawn card into `slot`), `discard` (the drawn card), `jack`, `queen`, `king` "
            "(use the drawn J, Q, K), `take_discard` (the pile's top card into `slot`), `crisp` "
            "(call)"
        )
    )
    slot: Slot | None = Field(None, description="swap, queen, take_discard: your slot")
    target: Seat | None = Field(None, description="queen: the other seat")
    target_slot: Slot | None = Field(None, description="queen: the other seat's slot")


class CrispOptions(_Strict):
    """The fields of an ``options`` message in a Crisp room: the three options of docs/rules.md
    §6."""

    limit: Literal[50, 100, 150] = Field(
        description="the game ends when a total reaches this (R-OPT-LIMIT)"
    )
    timer: Literal[30, 45, 60] | None = Field(
        description="seconds per draw, or null: no time (R-OPT-TIMER)"
    )
    take_discard: bool = Field(description="drawing from the discard pile allowed (R-OPT-DISCARD)")


def _checked(model: type[_Strict], fields: dict[str, Any], drop_none: bool) -> dict[str, Any]:
    try:
        return model.model_validate(fields).model_dump(exclude_none=drop_none)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise BadFields(where, first["msg"]) from err


def check_move(fields: dict[str, Any]) -> dict[str, Any]:
    move = _checked(CrispMove, fields, drop_none=True)
    try:
        actions.from_record({**move, "seat": 0})  # which fields each action takes
    except ValueError as err:
        raise BadFields("move", str(err)) from err
    return move


def check_options(fields: dict[str, Any]) -> dict[str, Any]:
    return _checked(CrispOptions, fields, drop_none=False)
