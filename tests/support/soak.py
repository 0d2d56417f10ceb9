"""A bounded soak of the engine against the independent leak checker, printing what it checked.

    python tests/support/soak.py --games 2000 --seed 1

For each random game (player counts 2 to 8 and every host option in turn, random-legal play):
the record is written to JSON and read back, replayed, and the replay must give the game's own
result; then every seat's stream and a spectator's go through ``leakcheck.check_stream``. It stops
by itself after ``--games`` games and exits non-zero on the first disagreement or leak.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import leakcheck

from crisp.engine.crisp import Options
from crisp.engine.crisp.messages import stream
from crisp.engine.crisp.record import replay
from crisp.engine.crisp.simulate import Policy, play_random

GRID = [
    (limit, timer, take)
    for limit in (50, 100, 150)
    for timer in (None, 30, 45, 60)
    for take in (False, True)
]
POLICIES = [Policy(), Policy(p_call=0.03)]


def soak(games: int, seed: int) -> dict[str, int]:
    counts = {"games": 0, "rounds": 0, "actions": 0, "streams": 0, "messages": 0}
    for i in range(games):
        players = 2 + i % 7
        limit, timer, take = GRID[i % len(GRID)]
        options = Options(limit=limit, timer=timer, take_discard=take)
        game = play_random(players, options, seed + i, policy=POLICIES[i % 2])
        record = json.loads(json.dumps(game.record()))
        rep = replay(record)
        if rep.result != game.result():
            raise SystemExit(f"game {i} (seed {seed + i}): replay disagrees with the game")
        for seat in [None, *range(players)]:
            messages = stream(rep.outs, seat)
            failures = leakcheck.check_stream(record, messages, seat)
            if failures:
                raise SystemExit(f"game {i} (seed {seed + i}) seat {seat}: {failures[0]}")
            counts["streams"] += 1
            counts["messages"] += len(messages)
        counts["games"] += 1
        counts["rounds"] += len(record["rounds"])
        counts["actions"] += sum(len(r["actions"]) for r in record["rounds"])
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    counts = soak(args.games, args.seed)
    took = time.perf_counter() - start
    print(
        f"soak: {counts['games']} games, {counts['rounds']} rounds, {counts['actions']} actions; "
        f"{counts['streams']} streams, {counts['messages']} messages checked; 0 leaks; "
        f"every replay agreed; {took:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
