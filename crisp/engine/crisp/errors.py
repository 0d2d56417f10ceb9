"""Refusals. Every refused action names the rule it breaks and leaves the game as it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crisp.engine.crisp.messages import Out


class IllegalAction(Exception):
    """An action the rules refuse; ``rule`` is its id in docs/rules.md (``R-SPECIAL``, …).

    ``outs`` holds the messages of deadlines that passed before the refused action's time (time
    moves on even when an action is refused): deliver them as usual.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.outs: list[Out] = []
