"""The host's three options (docs/rules.md §6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LIMITS = (50, 100, 150)  # R-OPT-LIMIT
TIMERS = (None, 30, 45, 60)  # R-OPT-TIMER, seconds per draw


@dataclass(frozen=True, slots=True)
class Options:
    limit: int = 100
    timer: int | None = None
    take_discard: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.limit, bool) or self.limit not in LIMITS:
            raise ValueError(f"limit must be one of {LIMITS} (R-OPT-LIMIT), not {self.limit!r}")
        if isinstance(self.timer, bool) or self.timer not in TIMERS:
            raise ValueError(f"timer must be null, 30, 45 or 60 (R-OPT-TIMER), not {self.timer!r}")
        if not isinstance(self.take_discard, bool):
            raise ValueError("take_discard must be true or false (R-OPT-DISCARD)")

    def to_record(self) -> dict[str, Any]:
        return {"limit": self.limit, "timer": self.timer, "take_discard": self.take_discard}

    @classmethod
    def from_record(cls, data: Any) -> Options:
        if not isinstance(data, dict):
            raise ValueError("options must be an object")
        unknown = set(data) - {"limit", "timer", "take_discard"}
        if unknown:
            raise ValueError(f"unknown option {sorted(unknown)[0]!r}")
        return cls(
            limit=data.get("limit", 100),
            timer=data.get("timer"),
            take_discard=data.get("take_discard", False),
        )
