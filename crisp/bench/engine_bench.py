"""``crisp bench engine``: actions and rounds per second of the pure engine, messages included.

What it measures: complete games of ``random-legal`` play (crisp.engine.crisp.simulate) for 2, 4
and 8
players, host options at their defaults, on one core of this process. Every action counts (ready,
draw, swap, discard, specials, takes, calls; deadlines applied by ``advance`` are not counted as
actions), and every message the engine produces is routed to the list of each seat and of one
spectator that receives it — the work a server does before it serialises. The policy's own choices
are inside the timing too, so the figure is a floor for the engine alone. Each run plays games for
a fixed time; the figure printed is the median of the runs.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from dataclasses import dataclass
from typing import Any

from crisp.engine.crisp.messages import Message, Out, deliver
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.simulate import RANDOM_LEGAL, play_random


@dataclass
class RunFigures:
    actions_per_s: float
    rounds_per_s: float
    messages_per_s: float


def run_once(players: int, seconds: float, seed: int, options: Options) -> RunFigures:
    boxes: list[list[Message]] = [[] for _ in range(players + 1)]  # each seat, one spectator

    def sink(outs: list[Out]) -> None:
        deliver(outs, boxes)

    actions = rounds = messages = 0
    start = time.perf_counter()
    game_seed = seed
    while True:
        game = play_random(players, options, game_seed, sink=sink)
        actions += sum(len(r["actions"]) for r in game.record()["rounds"])
        rounds += len(game.rounds)
        for box in boxes:
            messages += len(box)
            box.clear()
        game_seed += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return RunFigures(actions / elapsed, rounds / elapsed, messages / elapsed)


def bench(players_list: list[int], runs: int, seconds: float, seed: int) -> dict[str, Any]:
    options = Options()
    results = []
    for players in players_list:
        figures = [run_once(players, seconds, seed + 1000 * i, options) for i in range(runs)]
        results.append(
            {
                "players": players,
                "actions_per_s": round(statistics.median(f.actions_per_s for f in figures)),
                "rounds_per_s": round(statistics.median(f.rounds_per_s for f in figures), 1),
                "messages_per_s": round(statistics.median(f.messages_per_s for f in figures)),
                "runs": runs,
                "seconds_per_run": seconds,
            }
        )
    return {
        "benchmark": "engine",
        "policy": RANDOM_LEGAL.name,
        "options": options.to_record(),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "results": results,
    }


def pin_to_one_core() -> str:
    """Run on one core only (the last one), as the figures claim; say which."""
    if not hasattr(os, "sched_setaffinity"):
        return "one thread (no CPU pinning on this system)"
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def main(players: list[int], runs: int, seconds: float, seed: int, as_json: bool) -> int:
    pinned = pin_to_one_core()
    report = bench(players, runs, seconds, seed)
    report["machine"] += f", {pinned}"
    if as_json:
        print(json.dumps(report))
        return 0
    print(
        f"crisp engine benchmark — policy {report['policy']}, options {report['options']}, "
        f"Python {report['python']}, {report['machine']}"
    )
    print(f"median of {runs} runs of {seconds:g} s; every seat's and a spectator's messages routed")
    print(f"{'players':>8} {'actions/s':>12} {'rounds/s':>10} {'messages/s':>12}")
    for row in report["results"]:
        print(
            f"{row['players']:>8} {row['actions_per_s']:>12,} {row['rounds_per_s']:>10,} "
            f"{row['messages_per_s']:>12,}"
        )
    return 0
