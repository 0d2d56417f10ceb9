"""``crisp simulate --bots`` for any game: run the lab, write the records, print the report.

``simulate_bots(args, run_games, levels, options)`` plays ``args.games`` games from ``args.seed``
with each game's ``run_games`` (``crisp.bots.<game>.lab``), writes the records to
``args.records`` (one record for one game, else a list), and prints the report as a table or,
with ``args.json``, as JSON. A progress bar (``ProgressBar``) goes to stderr with
``args.progress``, or from 20 games on a terminal. The exit status is 1 if a bot asked for an
illegal action (a bot bug), else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from crisp.bots.common.lab import Report

#: A game's ``run_games(levels, games, seed, options, *, progress, records)``.
RunGames = Callable[..., Report]


class ProgressBar:
    """A progress bar on stderr: ``simulate [#####.....] 523/1000 games 4.1 s``."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.shown = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.shown < 0.1:
            return
        self.shown = now
        width = 30
        filled = width * done // max(total, 1)
        bar = "#" * filled + "." * (width - filled)
        sys.stderr.write(f"\rsimulate [{bar}] {done}/{total} games {now - self.start:.1f} s")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def simulate_bots(
    args: argparse.Namespace, run_games: RunGames, levels: Sequence[str], options: Any
) -> int:
    """Run and report ``args.games`` games of ``levels`` with ``options`` (see the module)."""
    show = args.progress or (sys.stderr.isatty() and args.games >= 20)
    started = time.monotonic()
    report = run_games(
        levels,
        args.games,
        args.seed,
        options,
        progress=ProgressBar() if show else None,
        records=bool(args.records),
    )
    seconds = time.monotonic() - started
    if args.records:
        with open(args.records, "w", encoding="utf-8") as fh:
            records = report.records
            json.dump(records if args.games > 1 else records[0], fh, ensure_ascii=False)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        for line in report.lines():
            print(line)
        print(f"{seconds:.1f} s ({seconds / max(args.games, 1) * 1000:.1f} ms a game)")
        if args.records:
            print(f"records written to {args.records}")
    return 1 if report.illegal else 0
