"""The strategy lab: many games of bots, win rates with confidence intervals, mean scores.

``run_games`` plays ``games`` games (game ``g`` seeded ``seed + g``) of one bot level per seat and
returns a ``Report``: per seat and per level, the win rate (a tie counts as a win for each tied
winner, R-GAME-END) with its 95% Wilson interval, and the mean final score. ``crisp simulate
--bots`` prints it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from crisp.bots.crisp.arena import MAX_ACTIONS, play_levels
from crisp.engine.crisp.options import Options

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


@dataclass(slots=True)
class Report:
    """What a run of games gave."""

    levels: list[str]
    options: Options
    seed: int
    games: int = 0
    rounds: int = 0
    actions: int = 0
    wins: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    illegal: list[tuple[int, int, dict[str, Any], str]] = field(default_factory=list)
    unfinished: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)

    def seat_rows(self) -> list[dict[str, Any]]:
        games = max(self.games, 1)
        return [
            {
                "seat": seat,
                "bot": level,
                "wins": self.wins[seat],
                "win_rate": self.wins[seat] / games,
                "win_rate_ci": list(wilson(self.wins[seat], self.games)),
                "mean_score": self.scores[seat] / games,
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
                    "mean_score": sum(self.scores[s] for s in seats) / max(n, 1),
                }
            )
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
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
        """The report as a table."""

        def ci(row: dict[str, Any]) -> str:
            lo, hi = row["win_rate_ci"]
            return f"[{lo:6.1%}, {hi:6.1%}]"

        out = [
            f"{self.games} games of {len(self.levels)} players "
            f"(bots {','.join(self.levels)}, seeds {self.seed}..{self.seed + self.games - 1}), "
            f"{self.rounds} rounds, options {self.options.to_record()}",
            "seat  bot      wins  win rate  95% CI            mean score",
        ]
        for row in self.seat_rows():
            out.append(
                f"{row['seat']:>4}  {row['bot']:<7} {row['wins']:>5}  {row['win_rate']:>8.1%}"
                f"  {ci(row)}  {row['mean_score']:>10.1f}"
            )
        out.append("level    seats  win rate  95% CI            mean score")
        for row in self.level_rows():
            out.append(
                f"{row['bot']:<7}  {row['seats']:>5}  {row['win_rate']:>8.1%}  {ci(row)}"
                f"  {row['mean_score']:>10.1f}"
            )
        if self.illegal:
            out.append(
                f"ILLEGAL ACTIONS: {len(self.illegal)} (a bot bug), first: {self.illegal[0]}"
            )
        if self.unfinished:
            out.append(f"unfinished games (action bound or stalled): {self.unfinished}")
        return out


def run_games(
    levels: Sequence[str],
    games: int,
    seed: int = 1,
    options: Options | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    records: bool = False,
    max_actions: int = MAX_ACTIONS,
) -> Report:
    """Play ``games`` games of ``levels`` (one per seat), game ``g`` seeded ``seed + g``."""
    opts = options or Options()
    n = len(levels)
    report = Report(list(levels), opts, seed, wins=[0] * n, scores=[0] * n)
    for g in range(games):
        played = play_levels(levels, opts, seed + g, max_actions=max_actions, keep_record=records)
        report.games += 1
        report.rounds += played.rounds
        report.actions += played.actions
        report.illegal.extend((seed + g, s, a, rule) for s, a, rule in played.illegal)
        if not played.over:
            report.unfinished += 1
        for seat in played.winners:
            report.wins[seat] += 1
        report.scores = [a + b for a, b in zip(report.scores, played.totals, strict=True)]
        if records and played.record is not None:
            report.records.append(played.record)
        if progress is not None:
            progress(g + 1, games)
    return report
