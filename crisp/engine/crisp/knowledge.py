"""Who has seen which card, and when (docs/rules.md §7): what leak tests check and what bots
learn."""

from __future__ import annotations

from typing import NamedTuple

from crisp.engine.crisp.timing import Ms


class Sighting(NamedTuple):
    round: int
    t: Ms
    card: str
    #: The seat that saw it, or None for everyone (a card face up on the pile, the reveal).
    seat: int | None
    #: ``deal`` (the start look), ``draw``, ``jack``, ``queen``, ``pile`` or ``reveal``.
    why: str


_tuple_new = tuple.__new__  # a NamedTuple's own __new__ is a Python call: the engine's hot path


class Knowledge:
    """An append-only log of sightings for a whole game."""

    __slots__ = ("sightings",)

    def __init__(self) -> None:
        self.sightings: list[Sighting] = []

    def saw(self, round_no: int, t: Ms, card: str, seat: int | None, why: str) -> None:
        self.sightings.append(_tuple_new(Sighting, (round_no, t, card, seat, why)))

    def seen(self, seat: int, round_no: int | None = None) -> set[str]:
        """Cards ``seat`` has seen (alone or with everyone) in one round (default: the last)."""
        if round_no is None:
            round_no = self.sightings[-1].round if self.sightings else 0
        return {
            s.card
            for s in self.sightings
            if s.round == round_no and (s.seat is None or s.seat == seat)
        }

    def seen_by(self, card: str, round_no: int) -> list[Sighting]:
        """Every sighting of ``card`` in a round, in order."""
        return [s for s in self.sightings if s.round == round_no and s.card == card]
