"""Crisp's strategy lab: many games of bots, win rates with confidence intervals, mean scores.

``run_games`` plays ``games`` games (game ``g`` seeded ``seed + g``) of one bot level per seat and
returns a ``Report`` (``crisp.bots.common.lab``) with, per seat and per level, the mean final
score; a tie counts as a win for each tied winner (R-GAME-END). ``crisp simulate --bots`` prints
it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from crisp.bots.common import lab
from crisp.bots.common.lab import ci_text, wilson
from crisp.bots.crisp.arena import MAX_ACTIONS, Played, play_levels
from crisp.engine.crisp.options import Options

__all__ = ["Report", "run_games", "wilson"]


@dataclass(slots=True)
class Report(lab.Report):
    """What a run of games gave, with each seat's total score."""

    scores: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        super(Report, self).__post_init__()
        if not self.scores:
            self.scores = [0] * len(self.levels)

    def add(self, played: Played) -> None:
        for seat in played.winners:
            self.wins[seat] += 1
        self.scores = [a + b for a, b in zip(self.scores, played.totals, strict=True)]

    def seat_extra(self, seat: int) -> dict[str, Any]:
        return {"mean_score": self.scores[seat] / max(self.games, 1)}

    def level_extra(self, seats: list[int], n: int) -> dict[str, Any]:
        return {"mean_score": sum(self.scores[s] for s in seats) / max(n, 1)}

    def title(self) -> list[str]:
        return [
            f"{self.games} games of {len(self.levels)} players "
            f"(bots {','.join(self.levels)}, {self.seeds_text()}), "
            f"{self.rounds} rounds, options {self.options.to_record()}",
            "seat  bot      wins  win rate  95% CI            mean score",
        ]

    def table(self) -> list[str]:
        out = [
            f"{row['seat']:>4}  {row['bot']:<7} {row['wins']:>5}  {row['win_rate']:>8.1%}"
            f"  {ci_text(row)}  {row['mean_score']:>10.1f}"
            for row in self.seat_rows()
        ]
        out.append("level    seats  win rate  95% CI            mean score")
        out.extend(
            f"{row['bot']:<7}  {row['seats']:>5}  {row['win_rate']:>8.1%}  {ci_text(row)}"
            f"  {row['mean_score']:>10.1f}"
            for row in self.level_rows()
        )
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
    play = partial(play_levels, levels, opts, max_actions=max_actions, keep_record=records)
    report = Report(list(levels), opts, seed)
    lab.run(report, games, play, progress=progress, records=records)
    return report
