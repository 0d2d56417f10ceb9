"""The Crisps! strategy lab: many games of two bots, win rates with 95% intervals.

``run_games`` plays ``games`` games (game ``g`` seeded ``seed + g``; the seed deals the cards and
draws the first starter) of one bot level per seat and returns a ``Report``
(``crisp.bots.common.lab``) with, per seat, the rounds won and how long the bots took to decide
(wall clock: the mean, the 99th percentile and the longest decision). ``crisp simulate --game
crisps`` prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from crisp.bots.common import lab
from crisp.bots.common.lab import ci_text
from crisp.bots.crisps.arena import MAX_ACTIONS, Played, play_levels
from crisp.engine.crisps import CrispsOptions

__all__ = ["Report", "run_games"]


def _timing(times: list[float]) -> dict[str, float]:
    if not times:
        return {"decisions": 0, "mean_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
    ordered = sorted(times)
    return {
        "decisions": len(ordered),
        "mean_ms": 1000 * sum(ordered) / len(ordered),
        "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        "max_ms": 1000 * ordered[-1],
    }


@dataclass(slots=True)
class Report(lab.Report):
    """What a run of games gave, with each seat's rounds won and decision times."""

    points: list[int] = field(default_factory=lambda: [0, 0])
    decisions: list[list[float]] = field(default_factory=lambda: [[], []])

    def add(self, played: Played) -> None:
        if played.winner is not None:
            self.wins[played.winner] += 1
        self.points = [a + b for a, b in zip(self.points, played.points, strict=True)]
        for s in (0, 1):
            self.decisions[s].extend(played.decisions[s])

    def head(self) -> dict[str, Any]:
        return {"game": "crisps"}

    def seat_extra(self, seat: int) -> dict[str, Any]:
        return {
            "rounds_won": self.points[seat],
            "round_rate": self.points[seat] / max(self.rounds, 1),
            "decide": _timing(self.decisions[seat]),
        }

    def title(self) -> list[str]:
        return [
            f"{self.games} games of Crisps! (bots {','.join(self.levels)}, "
            f"{self.seeds_text()}), {self.rounds} rounds, options {self.options.to_record()}",
            "seat  bot      wins  win rate  95% CI            rounds won  decide mean/p99/max ms",
        ]

    def table(self) -> list[str]:
        return [
            f"{row['seat']:>4}  {row['bot']:<7} {row['wins']:>5}  {row['win_rate']:>8.1%}"
            f"  {ci_text(row)}  {row['round_rate']:>10.1%}"
            f"  {row['decide']['mean_ms']:.1f}/{row['decide']['p99_ms']:.1f}"
            f"/{row['decide']['max_ms']:.1f}"
            for row in self.seat_rows()
        ]


def run_games(
    levels: Sequence[str],
    games: int,
    seed: int = 1,
    options: CrispsOptions | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    records: bool = False,
    max_actions: int = MAX_ACTIONS,
) -> Report:
    """Play ``games`` games of ``levels`` (two, one per seat), game ``g`` seeded ``seed + g``."""
    if len(levels) != 2:
        raise ValueError("Crisps! is for two players: name two bot levels")
    opts = options or CrispsOptions()
    play = partial(play_levels, levels, opts, max_actions=max_actions, keep_record=records)
    report = Report(list(levels), opts, seed)
    lab.run(report, games, play, progress=progress, records=records)
    return report
