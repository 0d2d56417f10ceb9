"""The strategy lab of any game: many games of bots, win rates with 95% confidence intervals.

``run`` plays ``games`` games (game ``g`` seeded ``seed + g``) and tallies them in a ``Report``:
per seat and per level, the games won with their 95% Wilson interval, the rounds, the actions,
the refused actions (a bot bug) and the unfinished games. Each game's report adds its own
columns (``seat_extra``, ``level_extra``) and its own table (``title``, ``table``); ``crisp
simulate --bots`` prints it (``crisp.bots.common.simulate``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)
    hi = 1.0 if wins >= n else min(1.0, centre + half)
    return (lo, hi)


def ci_text(row: dict[str, Any]) -> str:
    """A row's ``win_rate_ci`` as the tables print it: ``[ 12.3%,  45.6%]``."""
    lo, hi = row["win_rate_ci"]
    return f"[{lo:6.1%}, {hi:6.1%}]"


class Recordable(Protocol):
    """A game's options: what a record and a report say of them."""

    def to_record(self) -> dict[str, Any]: ...


class Outcome(Protocol):
    """What the lab reads of one game played (each game's arena's ``Played``)."""

    rounds: int
    actions: int
    illegal: list[tuple[int, dict[str, Any], str]]
    over: bool
    record: dict[str, Any] | None


@dataclass(slots=True)
class Report:
    """What a run of games gave: each game's report adds its own tallies (``add``)."""

    levels: list[str]
    options: Recordable
    seed: int
    games: int = 0
    rounds: int = 0
    actions: int = 0
    wins: list[int] = field(default_factory=list)
    illegal: list[tuple[int, int, dict[str, Any], str]] = field(default_factory=list)
    unfinished: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.wins:
            self.wins = [0] * len(self.levels)

    # -- what each game's report says -------------------------------------------------------------

    def add(self, played: Any) -> None:
        """The game's own tallies of one game (its winners among them)."""
        raise NotImplementedError

    def head(self) -> dict[str, Any]:
        """The first keys of the JSON report (e.g. the game's name)."""
        return {}

    def seat_extra(self, seat: int) -> dict[str, Any]:
        return {}

    def level_extra(self, seats: list[int], n: int) -> dict[str, Any]:
        return {}

    def title(self) -> list[str]:
        """The table's heading lines."""
        raise NotImplementedError

    def table(self) -> list[str]:
        """The table's rows."""
        raise NotImplementedError

    # -- what every report says -------------------------------------------------------------------

    def tally(self, seed: int, played: Outcome, records: bool) -> None:
        """Count one game, seeded ``seed``."""
        self.games += 1
        self.rounds += played.rounds
        self.actions += played.actions
        self.illegal.extend((seed, s, a, rule) for s, a, rule in played.illegal)
        if not played.over:
            self.unfinished += 1
        self.add(played)
        if records and played.record is not None:
            self.records.append(played.record)

    def seat_rows(self) -> list[dict[str, Any]]:
        games = max(self.games, 1)
        return [
            {
                "seat": seat,
                "bot": level,
                "wins": self.wins[seat],
                "win_rate": self.wins[seat] / games,
                "win_rate_ci": list(wilson(self.wins[seat], self.games)),
                **self.seat_extra(seat),
            }
            for seat, level in enumerate(self.levels)
        ]

    def level_rows(self) -> list[dict[str, Any]]:
        """Each level over all its seats: ``seats × games`` seat-games (those of one game are not
        independent, so with several seats of a level its interval is a little narrow)."""
        rows = []
        for level in dict.fromkeys(self.levels):
            seats = [s for s, lv in enumerate(self.levels) if lv == level]
            n = len(seats) * self.games
            wins = sum(self.wins[s] for s in seats)
            rows.append(
                {
                    "bot": level,
                    "seats": len(seats),
                    "wins": wins,
                    "win_rate": wins / max(n, 1),
                    "win_rate_ci": list(wilson(wins, n)),
                    **self.level_extra(seats, n),
                }
            )
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            **self.head(),
            "games": self.games,
            "players": len(self.levels),
            "bots": list(self.levels),
            "options": self.options.to_record(),
            "seed": self.seed,
            "rounds": self.rounds,
            "actions": self.actions,
            "illegal": len(self.illegal),
            "unfinished": self.unfinished,
            "seats": self.seat_rows(),
            "levels": self.level_rows(),
        }

    def lines(self) -> list[str]:
        """The report as a table, then what went wrong (refused actions, unfinished games)."""
        out = self.title() + self.table()
        if self.illegal:
            out.append(
                f"ILLEGAL ACTIONS: {len(self.illegal)} (a bot bug), first: {self.illegal[0]}"
            )
        if self.unfinished:
            out.append(f"unfinished games (action bound or stalled): {self.unfinished}")
        return out

    def seeds_text(self) -> str:
        return f"seeds {self.seed}..{self.seed + self.games - 1}"


def run(
    report: Report,
    games: int,
    play: Callable[[int], Outcome],
    *,
    progress: Callable[[int, int], None] | None = None,
    records: bool = False,
) -> Report:
    """Play ``games`` games, game ``g`` with ``play(report.seed + g)``, into ``report``."""
    for g in range(games):
        seed = report.seed + g
        report.tally(seed, play(seed), records)
        if progress is not None:
            progress(g + 1, games)
    return report
