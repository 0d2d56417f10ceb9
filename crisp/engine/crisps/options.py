"""The host's options (docs/rules-crisps.md §7), all off by default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TIMERS = (30, 45, 60)
FIELDS = ("no_faceup", "crisp_runs", "auto_skip", "timer")


@dataclass(frozen=True, slots=True)
class CrispsOptions:
    no_faceup: bool = False  # CS-OPT-NO-FACEUP
    crisp_runs: bool = False  # CS-OPT-CRISP-RUNS
    auto_skip: bool = False  # CS-OPT-SKIP
    timer: int | None = None  # CS-OPT-TIMER: 30, 45, 60 or None

    def __post_init__(self) -> None:
        for name in ("no_faceup", "crisp_runs", "auto_skip"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} is true or false")
        if self.timer is not None and (isinstance(self.timer, bool) or self.timer not in TIMERS):
            raise ValueError("timer is 30, 45, 60 or null")

    def to_record(self) -> dict[str, Any]:
        return {
            "no_faceup": self.no_faceup,
            "crisp_runs": self.crisp_runs,
            "auto_skip": self.auto_skip,
            "timer": self.timer,
        }

    @classmethod
    def from_record(cls, data: Any) -> CrispsOptions:
        """Options from a record or a host's message (missing fields take their default);
        raises ValueError naming an unknown or wrong field."""
        if not isinstance(data, dict):
            raise ValueError("options must be an object")
        unknown = set(data) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown option {sorted(unknown)[0]!r}")
        return cls(**data)
