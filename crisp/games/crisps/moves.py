"""Crisps!'s moves and host options as they arrive from a phone: their shape, checked with
pydantic (the rules come later, in the engine: docs/rules-crisps.md §10)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from crisp.games.common.fields import StrictFields
from crisp.server.seam import BadFields


class CrispsMove(StrictFields):
    """The fields of an ``act`` message in a Crisps! room."""

    do: Literal["play", "pass", "draw"] = Field(
        description="the action (docs/rules-crisps.md): `play` (lead or follow with `cards`), "
        "`pass` (the follower ends the trick), `draw` (the trick's winner chooses with `take`)"
    )
    cards: str | None = Field(
        None,
        description="play: the combination, ranks 1-9 and X in any order (`3344`, `X`); a "
        "string that is not in this notation (empty, another character) is the rules' to "
        "refuse: `illegal`, CS-NOTATION",
    )
    take: str | None = Field(
        None,
        description="draw: `faceup` (the face-up card) or `blind` (the blind top card of the "
        "pile); any other string is the rules' to refuse: `illegal`, CS-NOTATION",
    )


class CrispsOptions(StrictFields):
    """The fields of an ``options`` message in a Crisps! room: the options of docs/rules-crisps.md
    §7."""

    no_faceup: bool = Field(
        False, description="no face-up card: draws are blind and automatic (CS-OPT-NO-FACEUP)"
    )
    crisp_runs: bool = Field(
        False,
        description="a Crisp may end a run or pair run, as the rank above 9 (CS-OPT-CRISP-RUNS)",
    )
    auto_skip: bool = Field(
        False,
        description="skip a follower who cannot possibly follow, by "
        "the cards played so far (CS-OPT-SKIP)",
    )
    timer: Literal[30, 45, 60] | None = Field(
        None, description="seconds per decision, or null: no time (CS-OPT-TIMER)"
    )


def check_move_fields(move: dict[str, Any]) -> dict[str, Any]:
    """A move of ``CrispsMove``'s shape with the fields its ``do`` takes."""
    do = move["do"]
    if do == "play" and "cards" not in move:
        raise BadFields("cards", "a play names its cards")
    if do == "draw" and "take" not in move:
        raise BadFields("take", "a draw takes faceup or blind")
    extra = {"play": "take", "draw": "cards", "pass": None}[do]
    for name in ("cards", "take"):
        if name in move and (do == "pass" or name == extra):
            raise BadFields(name, f"a {do} has no {name}")
    return move
