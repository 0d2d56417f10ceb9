"""Crisp's moves and host options as they arrive from a phone: their shape, checked with pydantic
(the rules come later, in the engine)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from crisp.engine.crisp import actions
from crisp.engine.crisp.game import MAX_PLAYERS
from crisp.games.common.fields import StrictFields
from crisp.server.seam import BadFields

Slot = Literal["left", "middle", "right"]
Seat = Annotated[int, Field(ge=0, le=MAX_PLAYERS - 1)]
Card = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$", description="a card code, e.g. 7H")]


class CrispMove(StrictFields):
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


class CrispOptions(StrictFields):
    """The fields of an ``options`` message in a Crisp room: the three options of docs/rules.md
    §6."""

    limit: Literal[50, 100, 150] = Field(
        description="the game ends when a total reaches this (R-OPT-LIMIT)"
    )
    timer: Literal[30, 45, 60] | None = Field(
        description="seconds per draw, or null: no time (R-OPT-TIMER)"
    )
    take_discard: bool = Field(description="drawing from the discard pile allowed (R-OPT-DISCARD)")


def check_move_fields(move: dict[str, Any]) -> dict[str, Any]:
    """A move of ``CrispMove``'s shape with the fields its action takes."""
    try:
        actions.from_record({**move, "seat": 0})  # which fields each action takes
    except ValueError as err:
        raise BadFields("move", str(err)) from err
    return move
