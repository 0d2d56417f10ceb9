"""Refusals: every refused action names the first rule it breaks (docs/rules-crisps.md §10) and
changes nothing."""

from __future__ import annotations


class CrispsRefusal(Exception):
    """An action the rules refuse; ``rule`` is its id in docs/rules-crisps.md (``CS-FOLLOW``, …)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
