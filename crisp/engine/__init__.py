"""The pure rules engine of Crisp: every rule of RULES.md, deterministic, with time as an input."""

from crisp.engine import actions
from crisp.engine.actions import Action
from crisp.engine.errors import IllegalAction
from crisp.engine.fairness import Committed, Fairness
from crisp.engine.game import Game
from crisp.engine.knowledge import Knowledge, Sighting
from crisp.engine.messages import Out, stream
from crisp.engine.options import Options
from crisp.engine.timing import Timing

__all__ = [
    "Action",
    "Committed",
    "Fairness",
    "Game",
    "IllegalAction",
    "Knowledge",
    "Options",
    "Out",
    "Sighting",
    "Timing",
    "actions",
    "stream",
]
