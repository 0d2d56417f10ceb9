"""The pure rules engine of Crisp: every rule of docs/rules.md, deterministic, with time as an
input."""

from crisp.engine.crisp import actions, events
from crisp.engine.crisp.actions import Action
from crisp.engine.crisp.errors import IllegalAction
from crisp.engine.crisp.events import Event
from crisp.engine.crisp.game import MAX_PLAYERS, MIN_PLAYERS, Game
from crisp.engine.crisp.knowledge import Knowledge, Sighting
from crisp.engine.crisp.messages import Out, stream
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.phase import Phase
from crisp.engine.crisp.timing import Timing

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Action",
    "Event",
    "Game",
    "IllegalAction",
    "Knowledge",
    "Options",
    "Out",
    "Phase",
    "Sighting",
    "Timing",
    "actions",
    "events",
    "stream",
]
