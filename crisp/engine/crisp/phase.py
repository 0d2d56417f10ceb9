"""A round's phase: the look, play, and over (the reveal). The values are the wire's strings."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    #: R-LOOK-PHASE: the deal's look, until every seat is ready or the look's time is over.
    LOOK = "look"
    #: Turns, the crisp window, the final turns.
    PLAY = "play"
    #: The round ended (R-FINAL-TURNS): the reveal, the scores.
    OVER = "over"


#: The members as module constants: the engine tests phases in its hot paths, and a module
#: global is read several times faster than an Enum class attribute.
LOOK, PLAY, OVER = Phase.LOOK, Phase.PLAY, Phase.OVER
