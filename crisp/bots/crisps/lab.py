"""The Crisps! strategy lab: many games of two bots, win rates with 95% intervals.

``run_games`` plays ``games`` games (game ``g`` seeded ``seed + g``; the seed deals the cards and
draws the first starter) of one bot level per seat and returns a ``Report``: per seat and per
level, the games won with the 95% Wilson interval, the rounds won, and how long the bots took to
decide (wall clock: the mean, the 99th percentile and the longest decision). ``crisp simulate
--game crisps`` prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from crisp.bots.crisp.lab import wilson
from crisp.bots.crisps.arena import MAX_ACTIONS, play_levels
from crisp.engine.crisps import CrispsOptions


@dataclass(slots=True)
class Report:
    """What a run of games gave."""

    levels: list[str]
    options: CrispsOptions
    seed: int
    games: int = 0
    rounds: int = 0
    actions: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    points: list[int] = field(default_factory=lambda: [0, 0])
    illegal: list[tuple[int, int, dict[str, Any], str]] = field(default_factory=list)
    unfinished: int = 0
    decisions: list[list[float]] = field(default_factory=lambda: [[], []])
    records: list[dict[str, Any]] = field(default_factory=list)

    def _timing(self, times: list[float]) -> dict[str, float]:
        if not times:
            return {"decisions": 0, "mean_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
        ordered = sorted(times)
        return {
            "decisions": len(ordered),
            "mean_ms": 1000 * sum(ordered) / len(ordered),
            "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max_ms": 1000 * ordered[-1],
        }

    def seat_rows(self) -> list[dict[str, Any]]:
        games = max(self.games, 1)
        return [
            {
                "seat": seat,
                "bot": level,
                "wins": self.wins[seat],
                "win_rate": self.wins[seat] / games,
                "win_rate_ci": list(wilson(self.wins[seat], self.games)),
                "rounds_won": self.points[seat],
                "round_rate": self.points[seat] / max(self.rounds, 1),
                "decide": self._timing(self.decisions[seat]),
            }
            for seat, level in enumerate(self.levels)
        ]

    def level_rows(self) -> list[dict[str, Any]]:
        """Each level over its seats (a level at both seats wins every game: 100%)."""
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
                }
            )
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "game": "crisps",
            "games": self.games,
            "players": 2,
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
            f"{self.games} games of Crisps! (bots {','.join(self.levels)}, seeds "
            f"{self.seed}..{self.seed + self.games - 1}), {self.rounds} rounds, "
            f"options {self.options.to_record()}",
            "seat  bot      wins  win rate  95% CI            rounds won  decide mean/p99/max ms",
        ]
        for row in self.seat_rows():
            d = row["decide"]
            out.append(
                f"{row['seat']:>4}  {row['bot']:<7} {row['wins']:>5}  {row['win_rate']:>8.1%}"
                f"  {ci(row)}  {row['round_rate']:>10.1%}"
                f"  {d['mean_ms']:.1f}/{d['p99_ms']:.1f}/{d['max_ms']:.1f}"
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
    report = Report(list(levels), opts, seed)
    for g in range(games):
        played = play_levels(levels, opts, seed + g, max_actions=max_actions, keep_record=records)
        report.games += 1
        report.rounds += played.rounds
        report.actions += played.actions
        report.illegal.extend((seed + g, s, a, rule) for s, a, rule in played.illegal)
        if not played.over:
            report.unfinished += 1
        if played.winner is not None:
            report.wins[played.winner] += 1
        report.points = [a + b for a, b in zip(report.points, played.points, strict=True)]
        for s in (0, 1):
            report.decisions[s].extend(played.decisions[s])
        if records and played.record is not None:
            report.records.append(played.record)
        if progress is not None:
            progress(g + 1, games)
    return report
