"""The ``crisp`` command: ``serve``, ``replay``, ``verify``, ``simulate`` and ``bench``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from crisp.engine.options import LIMITS, Options


def _replay(args: argparse.Namespace) -> int:
    from crisp.engine.record import RecordError, ReplayError, dumps_stream, replay, stream

    try:
        if args.seat is not None or args.spectator:
            seat = None if args.spectator else args.seat
            messages = stream(args.file, seat)
            sys.stdout.write(dumps_stream(messages))
        else:
            print(json.dumps(replay(args.file).result, ensure_ascii=False))
    except ReplayError as err:
        print(f"crisp replay: {err}", file=sys.stderr)
        return 1
    except RecordError as err:
        print(f"crisp replay: malformed record: {err}", file=sys.stderr)
        return 2
    return 0


class _Progress:
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


def _simulate_bots(args: argparse.Namespace, options: Options) -> int:
    from crisp.bots import LEVELS
    from crisp.bots.lab import run_games

    levels = [level.strip() for level in args.bots.split(",")]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        print(
            f"crisp simulate: unknown bot level {unknown[0]!r} (levels: {', '.join(LEVELS)})",
            file=sys.stderr,
        )
        return 2
    if not 2 <= len(levels) <= 8:
        print("crisp simulate: --bots names one level per seat, 2 to 8 seats", file=sys.stderr)
        return 2
    if args.players is not None and args.players != len(levels):
        print(
            f"crisp simulate: --players {args.players} but --bots names {len(levels)} seats",
            file=sys.stderr,
        )
        return 2
    show = args.progress or (sys.stderr.isatty() and args.games >= 20)
    started = time.monotonic()
    report = run_games(
        levels,
        args.games,
        args.seed,
        options,
        progress=_Progress() if show else None,
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


def _simulate(args: argparse.Namespace) -> int:
    from crisp.engine.simulate import RANDOM_LEGAL, play_random

    options = Options(limit=args.limit, timer=args.timer, take_discard=args.take_discard)
    if args.bots:
        return _simulate_bots(args, options)
    if args.players is None:
        args.players = 4
    wins = [0.0] * args.players
    totals = [0] * args.players
    rounds = 0
    records = []
    for g in range(args.games):
        game = play_random(args.players, options, args.seed + g, fair=True)
        rounds += len(game.rounds)
        for seat in game.winners:
            wins[seat] += 1
        totals = [a + b for a, b in zip(totals, game.totals, strict=True)]
        if args.records:
            records.append(game.record())
    report = {
        "games": args.games,
        "policy": RANDOM_LEGAL.name,
        "options": options.to_record(),
        "rounds": rounds,
        "seats": [
            {"seat": s, "win_rate": wins[s] / args.games, "mean_score": totals[s] / args.games}
            for s in range(args.players)
        ],
    }
    if args.records:
        with open(args.records, "w", encoding="utf-8") as fh:
            json.dump(records if args.games > 1 else records[0], fh, ensure_ascii=False)
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{args.games} games of {args.players} players ({report['policy']}), "
            f"{rounds} rounds, options {report['options']}"
        )
        for seat in report["seats"]:
            print(
                f"  seat {seat['seat']}: wins {seat['win_rate']:.1%}, "
                f"mean score {seat['mean_score']:.1f}"
            )
        if args.records:
            print(f"records written to {args.records}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from crisp.bench import engine_bench

    players = [int(p) for p in args.players.split(",")]
    if any(not 2 <= p <= 8 for p in players):
        print("crisp bench: players are 2 to 8", file=sys.stderr)
        return 2
    return engine_bench.main(players, args.runs, args.seconds, args.seed, args.json)


def _bench_server(args: argparse.Namespace) -> int:
    from crisp.bench import server_bench

    return server_bench.main(args.actions, args.rooms, args.clock_speed, args.json)


def _bench_load(args: argparse.Namespace) -> int:
    from crisp.bench import load

    human = [int(r) for r in args.human.split(",") if r.strip()] if args.human else []
    return load.main(args.rooms, args.seconds, args.warmup, args.clock_speed, not args.no_baseline,
                     human, args.human_seconds, args.json)  # fmt: skip


def _timer(value: str) -> int | None:
    if value in ("none", "null", "0"):
        return None
    return int(value)


def _serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from crisp.server.serve import serve
    from crisp.server.settings import Settings

    given = {k: v for k in ("host", "port", "data_dir", "clock_speed")
             if (v := getattr(args, k)) is not None}  # fmt: skip
    try:
        settings = Settings(**given)
    except ValidationError as err:
        print(f"crisp serve: {err}", file=sys.stderr)
        return 2
    return serve(settings)


def _verify(args: argparse.Namespace) -> int:
    from crisp.verify import main as verify_main

    return verify_main([args.file])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crisp", description="Crisp, the card game, for phones.")
    sub = parser.add_subparsers(dest="command", required=True)

    rp = sub.add_parser("replay", help="replay a crisp-record/1 game record")
    rp.add_argument("file", help="the record (JSON)")
    who = rp.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, help="print every message this seat is sent, one a line")
    who.add_argument("--spectator", action="store_true", help="print a spectator's messages")
    rp.set_defaults(func=_replay)

    sp = sub.add_parser(
        "simulate", help="play games in-process: random legal play, or bots (--bots)"
    )
    sp.add_argument(
        "--players", type=int, default=None, choices=range(2, 9), metavar="N",
        help="players (default 4; implied by --bots)",
    )  # fmt: skip
    sp.add_argument(
        "--bots",
        metavar="LEVELS",
        help="one bot level a seat, comma-separated: random, easy, normal, hard "
        "(e.g. hard,random,random,random); prints win rates with 95%% intervals",
    )
    sp.add_argument("--progress", action="store_true", help="a progress bar on stderr")
    sp.add_argument("--games", type=int, default=100)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--limit", type=int, default=100, choices=LIMITS)
    sp.add_argument("--timer", type=_timer, default=None, choices=[None, 30, 45, 60])
    sp.add_argument("--take-discard", action="store_true")
    sp.add_argument("--records", help="write the games' records to this JSON file")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=_simulate)

    vp = sub.add_parser("verify", help="check a finished game's shuffle against its seeds")
    vp.add_argument("file", help="the record (JSON)")
    vp.set_defaults(func=_verify)

    sv = sub.add_parser(
        "serve", help="run the game server (SQLite in --data-dir, no other service)"
    )
    sv.add_argument("--host", help="address to listen on (default 0.0.0.0, env CRISP_HOST)")
    sv.add_argument("--port", type=int, help="TCP port (default 8000, env CRISP_PORT)")
    sv.add_argument("--data-dir", help="directory of the SQLite file (default ./crisp-data)")
    sv.add_argument("--clock-speed", type=float, help="game seconds per real second (tests only)")
    sv.set_defaults(func=_serve)

    bp = sub.add_parser("bench", help="benchmarks that print numbers")
    bsub = bp.add_subparsers(dest="bench", required=True)
    be = bsub.add_parser("engine", help="engine actions and rounds per second")
    be.add_argument("--players", default="2,4,8", help="comma-separated player counts")
    be.add_argument("--runs", type=int, default=5)
    be.add_argument("--seconds", type=float, default=2.0, help="seconds per run")
    be.add_argument("--seed", type=int, default=1)
    be.add_argument("--json", action="store_true")
    be.set_defaults(func=_bench)
    bs = bsub.add_parser("server", help="action-to-last-seat latency (8 players), memory per room")
    bs.add_argument("--actions", type=int, default=400)
    bs.add_argument("--rooms", type=int, default=200)
    bs.add_argument("--clock-speed", type=float, default=100.0)
    bs.add_argument("--json", action="store_true")
    bs.set_defaults(func=_bench_server)
    bl = bsub.add_parser("load", help="R rooms of 8 players over WebSockets, beside a baseline")
    bl.add_argument("--rooms", type=int, default=100, help="rooms of 8 players (0: skip)")
    bl.add_argument("--seconds", type=float, default=10.0, help="measured seconds per phase")
    bl.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring")
    bl.add_argument("--clock-speed", type=float, default=100.0, help="the game server's")
    bl.add_argument("--no-baseline", action="store_true", help="skip the bare broadcast server")
    bl.add_argument("--human", default="", help="human pace: comma-separated room counts, rising")
    bl.add_argument("--human-seconds", type=float, default=30.0)
    bl.add_argument("--json", action="store_true")
    bl.set_defaults(func=_bench_load)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result
