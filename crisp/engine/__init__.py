"""The pure rules engine of Crisp: every rule of RULES.md, deterministic, with time as an input."""

from crisp.engine import actions, events
from crisp.engine.actions import Action
from crisp.engine.errors import IllegalAction
from crisp.engine.events import Event
from crisp.engine.fairness import Committed, Fairness
from crisp.engine.game import MAX_PLAYERS, MIN_PLAYERS, Game
from crisp.engine.knowledge import Knowledge, Sighting
from crisp.engine.messages import Out, stream
from crisp.engine.options import Options
from crisp.engine.phase import Phase
from crisp.engine.timing import Timing

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Action",
    "Committed",
    "Event",
    "Fairness",
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
