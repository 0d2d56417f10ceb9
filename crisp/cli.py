"""The ``crisp`` command: ``serve``, ``replay``, ``verify``, ``simulate``, ``bench``, and the
operator's ``backup``, ``restore`` and ``rooms``."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from crisp.engine.crisp.options import LIMITS, Options
from crisp.version import crisp_version


def _replay(args: argparse.Namespace) -> int:
    from crisp.games.records import replay_file

    return replay_file(args.file, args.seat, args.spectator)


def _simulate_bots(args: argparse.Namespace, options: Options) -> int:
    from crisp.bots.common.simulate import simulate_bots
    from crisp.bots.crisp import LEVELS
    from crisp.bots.crisp.lab import run_games

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
    return simulate_bots(args, run_games, levels, options)


def _records_problem(path: str) -> str | None:
    """Why the records cannot be written to ``path`` (checked before any game is played)."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        return f"--records {path} is a directory: name a file in it"
    if not folder.is_dir():
        return f"--records {path}: there is no directory {folder}"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"--records {path}: cannot write there"
    return None


def _simulate(args: argparse.Namespace) -> int:
    from crisp.engine.crisp.simulate import RANDOM_LEGAL, play_random

    if args.records and (problem := _records_problem(args.records)):
        print(f"crisp simulate: {problem}", file=sys.stderr)
        return 2
    if args.game == "crisps":
        from crisp.bots.crisps.simulate import simulate_crisps

        return simulate_crisps(args)
    if args.option:
        print(
            f"crisp simulate: --option {args.option[0]} is an option of Crisps! "
            "(--game crisps); Crisp's are --limit, --timer and --take-discard",
            file=sys.stderr,
        )
        return 2
    limit = 100 if args.limit is None else args.limit
    options = Options(limit=limit, timer=args.timer, take_discard=args.take_discard)
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

    return engine_bench.main(args.players, args.runs, args.seconds, args.seed, args.json)


def _bench_server(args: argparse.Namespace) -> int:
    from crisp.bench import server_bench

    return server_bench.main(args.actions, args.rooms, args.clock_speed, args.json)


def _bench_store(args: argparse.Namespace) -> int:
    from crisp.bench import store_bench

    url = args.database_url or os.environ.get("CRISP_DATABASE_URL")
    return store_bench.main(args.changes, args.rooms, url, args.json)


def _bench_load(args: argparse.Namespace) -> int:
    from crisp.bench import load

    return load.main(
        args.rooms,
        args.seconds,
        args.warmup,
        args.clock_speed,
        not args.no_baseline,
        args.human,
        args.human_seconds,
        args.json,
        args.relays,
        args.human_stagger,
    )


def _relays(value: str) -> tuple[str, ...]:
    from crisp.bench.load_relays import KINDS

    kinds = tuple(k.strip() for k in value.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"{value!r}: a comma-separated list of {', '.join(KINDS)}")
    return kinds


def _timer(value: str) -> int | None:
    if value in ("none", "null", "0"):
        return None
    return int(value)


def _serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from crisp.server.run.serve import StartError, serve
    from crisp.server.settings import Settings

    given = {k: v for k in SERVE_OPTIONS if (v := getattr(args, k)) is not None}
    try:
        settings = Settings(**given)
    except SettingsError as err:  # a list or a flag that is not JSON, in its variable
        field = re.search(r'field "(\w+)"', str(err))
        name = f"CRISP_{field.group(1).upper()}" if field else "a CRISP_ variable"
        print(
            f"crisp serve: {name}: not JSON (lists are JSON, e.g. "
            f"CRISP_ALLOWED_ORIGINS='[\"https://example.org\"]')",
            file=sys.stderr,
        )
        return 2
    except ValidationError as err:
        problems = "; ".join(
            f"{_setting_name(e['loc'], given)}: {e['msg']} (not {e.get('input')!r})"
            for e in err.errors()
        )
        print(f"crisp serve: {problems}", file=sys.stderr)
        return 2
    from crisp.server.store.migrations import SchemaTooNew

    try:
        return serve(settings)
    except (StartError, SchemaTooNew) as err:
        print(f"crisp serve: {err}", file=sys.stderr)
        return 2


def _setting_name(loc: tuple[Any, ...], given: dict[str, Any]) -> str:
    """``--port`` for a command-line option, ``CRISP_PORT`` for an environment variable."""
    name = str(loc[0]) if loc else "settings"
    return "--" + name.replace("_", "-") if name in given else f"CRISP_{name.upper()}"


def _settings_help() -> str:
    """Every setting of ``crisp.server.settings.Settings``, its variable and its default."""
    from pydantic_core import PydanticUndefined

    from crisp.server.settings import Settings

    lines = [
        "settings: each is read from its CRISP_ environment variable (an option above wins);",
        "lists are JSON, e.g. CRISP_ALLOWED_ORIGINS='[\"https://example.org\"]'",
        "",
    ]
    for name, field in Settings.model_fields.items():
        if field.default_factory is not None:
            default: Any = field.default_factory()  # type: ignore[call-arg]
        else:
            default = None if field.default is PydanticUndefined else field.default
        shown = json.dumps(default) if isinstance(default, (list, bool)) else default
        shown = "none" if shown is None else shown
        option = f", --{name.replace('_', '-')}" if name in SERVE_OPTIONS else ""
        lines.append(f"  CRISP_{name.upper()}{option} (default: {shown})")
        lines += textwrap.wrap(
            field.description or "", 96, initial_indent="      ", subsequent_indent="      "
        )
    return "\n".join(lines)


SERVE_OPTIONS = ("host", "port", "data_dir", "clock_speed", "workers")


def _at_least(low: float, kind: Callable[[str], Any] = int) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` that is ``low`` or more."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            word = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"must be {word}, not {text!r}") from None
        if not value >= low:
            raise argparse.ArgumentTypeError(f"must be {low:g} or more, not {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _above_zero(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _room_counts(text: str) -> list[int]:
    """``10,50,100``: room counts, rising (empty: none)."""
    counts = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if not part.isdigit() or int(part) < 1:
            raise argparse.ArgumentTypeError(
                f"comma-separated room counts from 1, rising (e.g. 10,50,100), not {text!r}"
            )
        counts.append(int(part))
    return counts


def _player_counts(text: str) -> list[int]:
    """``2,4,8``: player counts from 2 to 8."""
    counts = []
    for part in text.split(","):
        try:
            count = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"comma-separated player counts from 2 to 8 (e.g. 2,4,8), not {text!r}"
            ) from None
        if not 2 <= count <= 8:
            raise argparse.ArgumentTypeError(f"player counts are 2 to 8, not {count}")
        counts.append(count)
    return counts


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line on stderr (exit 2), not the usage and then the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _missing(parser: argparse.ArgumentParser, what: str, names: str) -> Callable[..., int]:
    def complain(_args: argparse.Namespace) -> int:
        print(f"{parser.prog}: name {what}: {names} (see {parser.prog} --help)", file=sys.stderr)
        return 2

    return complain


def _verify(args: argparse.Namespace) -> int:
    from crisp.games.records import verify_main

    return verify_main([args.file])


def _data_dir(args: argparse.Namespace) -> Path:
    return Path(args.data_dir or os.environ.get("CRISP_DATA_DIR") or "crisp-data")


def _admin(name: str, run: Callable[[argparse.Namespace], str]) -> Callable[..., int]:
    """An operator's command: its one line on stdout (exit 0), or its problem on stderr (2)."""

    def command(args: argparse.Namespace) -> int:
        from crisp.server.store.backup import AdminError

        try:
            print(run(args))
        except AdminError as err:
            print(f"crisp {name}: {err}", file=sys.stderr)
            return 2
        return 0

    return command


def _backup(args: argparse.Namespace) -> str:
    from crisp.server.store.backup import backup

    return backup(Path(args.file), _data_dir(args), args.force)


def _restore(args: argparse.Namespace) -> str:
    from crisp.server.store.backup import restore

    return restore(Path(args.file), _data_dir(args))


def _rooms_list(args: argparse.Namespace) -> str:
    from crisp.admin.rooms import list_rooms, table

    rows = list_rooms(_data_dir(args), args.url)
    return json.dumps(rows) if args.json else table(rows)


def _rooms_close(args: argparse.Namespace) -> str:
    from crisp.admin.rooms import close_room

    return close_room(args.code, _data_dir(args), args.url)


def _add_admin(sub: Any) -> None:
    """``backup``, ``restore`` and ``rooms``: the operator's commands (crisp/admin/)."""
    data_help = "the server's data directory (default $CRISP_DATA_DIR, else ./crisp-data)"
    bk = sub.add_parser("backup", help="copy a (running) server's SQLite database to FILE")
    bk.add_argument("file", help="the copy to write (0600)")
    bk.add_argument("--data-dir", help=data_help)
    bk.add_argument("--force", action="store_true", help="replace FILE if it exists")
    bk.set_defaults(func=_admin("backup", _backup))
    rs = sub.add_parser("restore", help="put a backup back (the server stopped)")
    rs.add_argument("file", help="a file written by crisp backup")
    rs.add_argument("--data-dir", help=data_help)
    rs.set_defaults(func=_admin("restore", _restore))
    ro = sub.add_parser("rooms", help="list or close a server's rooms (an operator's)")
    rsub = ro.add_subparsers(dest="rooms", metavar="ACTION")
    ro.set_defaults(func=_missing(ro, "an action", "list or close"))
    url_help = "the running server (default http://127.0.0.1:$CRISP_PORT, port 8000)"
    rl = rsub.add_parser("list", help="code, game, phase, seats, members, age of every room")
    rl.add_argument("--data-dir", help=data_help + "; its admin.token is sent")
    rl.add_argument("--url", help=url_help)
    rl.add_argument("--json", action="store_true")
    rl.set_defaults(func=_admin("rooms list", _rooms_list))
    rc = rsub.add_parser("close", help="close a room: its phones are told, it is gone")
    rc.add_argument("code", help="the room's code")
    rc.add_argument("--data-dir", help=data_help + "; its admin.token is sent")
    rc.add_argument("--url", help=url_help)
    rc.set_defaults(func=_admin("rooms close", _rooms_close))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="crisp", description="Crisp, the card game, for phones.")
    parser.add_argument("--version", action="version", version=f"crisp {crisp_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    rp = sub.add_parser("replay", help="replay a game record (crisp-record/1 or crisps-record/1)")
    rp.add_argument("file", help="the record (JSON)")
    who = rp.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, help="print every message this seat is sent, one a line")
    who.add_argument("--spectator", action="store_true", help="print a spectator's messages")
    rp.set_defaults(func=_replay)

    sp = sub.add_parser(
        "simulate", help="play games in-process: random legal play, or bots (--bots)"
    )
    sp.add_argument(
        "--players",
        type=int,
        default=None,
        choices=range(2, 9),
        metavar="N",
        help="players, 2 to 8 (default 4; implied by --bots)",
    )
    sp.add_argument(
        "--bots",
        metavar="LEVELS",
        help="one bot level a seat, comma-separated: random, easy, normal, hard "
        "(e.g. hard,random,random,random; Crisps!: random, normal, hard, two seats); prints "
        "win rates with 95%% intervals",
    )
    sp.add_argument("--progress", action="store_true", help="a progress bar on stderr")
    sp.add_argument("--games", type=_at_least(1), default=100, help="games (default 100)")
    sp.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")
    sp.add_argument(
        "--game",
        choices=("crisp", "crisps"),
        default="crisp",
        help="the game: crisp (default) or crisps (Crisps!, two players: --bots hard,normal)",
    )
    sp.add_argument("--limit", type=int, default=None, choices=LIMITS, help="default 100 (Crisp)")
    sp.add_argument(
        "--timer",
        type=_timer,
        default=None,
        choices=[None, 30, 45, 60],
        help="seconds per draw (Crisp) or per decision (Crisps!): 30, 45, 60 or "
        "none (default none)",
    )
    sp.add_argument("--take-discard", action="store_true", help="allow taking the discard (Crisp)")
    sp.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME",
        help="a Crisps! host option, repeatable: no_faceup, crisp_runs, auto_skip (NAME=false "
        "to say off; the timer is --timer)",
    )
    sp.add_argument("--records", help="write the games' records to this JSON file")
    sp.add_argument("--json", action="store_true", help="a machine-readable report")
    sp.set_defaults(func=_simulate)

    vp = sub.add_parser("verify", help="check a finished game's shuffle against its seeds")
    vp.add_argument("file", help="the record (JSON)")
    vp.set_defaults(func=_verify)

    sv = sub.add_parser(
        "serve",
        help="run the game server (SQLite in --data-dir, no other service)",
        description="Run the game server. Ctrl-C (or SIGTERM) stops it; the rooms are kept in\n"
        "the data directory and come back at the next start.",
        epilog=_settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sv.add_argument(
        "--host",
        help="address to listen on (default 0.0.0.0: every network "
        "interface; 127.0.0.1: this machine only)",
    )
    sv.add_argument("--port", type=int, help="TCP port (default 8000; 0: any free port)")
    sv.add_argument("--data-dir", help="directory of the SQLite file (default ./crisp-data)")
    sv.add_argument("--clock-speed", type=float, help="game seconds per real second (tests only)")
    sv.add_argument(
        "--workers",
        type=int,
        help="server processes (default 1; more need "
        "CRISP_DATABASE_URL and HAProxy: docs/operating.md, Scale out)",
    )
    sv.set_defaults(func=_serve)

    bp = sub.add_parser("bench", help="benchmarks that print numbers")
    bsub = bp.add_subparsers(dest="bench", metavar="BENCHMARK")
    bp.set_defaults(func=_missing(bp, "a benchmark", "engine, server, store or load"))
    be = bsub.add_parser("engine", help="engine actions and rounds per second")
    be.add_argument(
        "--players",
        type=_player_counts,
        default=[2, 4, 8],
        help="comma-separated player counts (default 2,4,8)",
    )
    be.add_argument("--runs", type=_at_least(1), default=5, help="default 5 (the median is shown)")
    be.add_argument("--seconds", type=_above_zero, default=2.0, help="seconds per run (default 2)")
    be.add_argument("--seed", type=int, default=1)
    be.add_argument("--json", action="store_true")
    be.set_defaults(func=_bench)
    bs = bsub.add_parser("server", help="action-to-last-seat latency (8 players), memory per room")
    bs.add_argument("--actions", type=_at_least(1), default=400, help="default 400")
    bs.add_argument("--rooms", type=_at_least(1), default=200, help="default 200")
    bs.add_argument("--clock-speed", type=_above_zero, default=100.0, help="default 100")
    bs.add_argument("--json", action="store_true")
    bs.set_defaults(func=_bench_server)
    bt = bsub.add_parser("store", help="the cost of one change in SQLite (and PostgreSQL)")
    bt.add_argument("--changes", type=_at_least(1), default=5000, help="default 5000")
    bt.add_argument("--rooms", type=_at_least(1), default=100, help="default 100")
    bt.add_argument("--database-url", help="PostgreSQL too (default: $CRISP_DATABASE_URL)")
    bt.add_argument("--json", action="store_true")
    bt.set_defaults(func=_bench_store)
    bl = bsub.add_parser("load", help="R rooms of 8 players over WebSockets, beside a baseline")
    bl.add_argument(
        "--rooms", type=_at_least(0), default=100, help="rooms of 8 players (default 100; 0: skip)"
    )
    bl.add_argument(
        "--seconds", type=_above_zero, default=10.0, help="measured seconds per phase (default 10)"
    )
    bl.add_argument(
        "--warmup",
        type=_at_least(0, float),
        default=2.0,
        help="seconds before measuring (default 2)",
    )
    bl.add_argument(
        "--clock-speed", type=_above_zero, default=100.0, help="the game server's (default 100)"
    )
    bl.add_argument("--no-baseline", action="store_true", help="skip the bare broadcast server")
    bl.add_argument(
        "--human",
        type=_room_counts,
        default=[],
        help="human pace: comma-separated room counts, rising",
    )
    bl.add_argument("--human-seconds", type=_above_zero, default=30.0, help="default 30")
    bl.add_argument(
        "--human-stagger",
        type=_at_least(0, float),
        default=10.0,
        help="human pace: each host starts its game at a random moment within this many seconds "
        "(default 10; 0: every room in the same instant)",
    )
    bl.add_argument(
        "--relays",
        type=_relays,
        default=(),
        metavar="KINDS",
        help="after each human-pace run, the same traffic through bare relays: comma-separated, "
        "of fastapi (Crisp's stack, no game), colyseus (Colyseus 0.16, tools/colyseus_relay: "
        "needs Node.js and npm ci there) and colyseus-durable (the same, storing each message "
        "before it broadcasts it as Crisp stores a change: SQLite through better-sqlite3)",
    )
    bl.add_argument("--json", action="store_true")
    bl.set_defaults(func=_bench_load)
    _add_admin(sub)
    parser.set_defaults(func=_missing(parser, "a command", ", ".join(sub.choices)))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result
