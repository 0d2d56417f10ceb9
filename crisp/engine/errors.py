"""Refusals. Every refused action names the rule it breaks and leaves the game as it was."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules refuse; ``rule`` is its id in RULES.md (``R-SPECIAL``, …)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
