"""``crisp simulate --game crisps``: games of two Crisps! bots, win rates with 95% intervals.

The host's options (docs/rules-crisps.md §7) are chosen as ``--option NAME`` (repeatable:
``no_faceup``, ``crisp_runs``, ``auto_skip``; ``NAME=false`` says off, ``NAME=true`` on) and
``--timer 30|45|60`` (the time per decision). ``--players`` may only say 2; ``--bots`` names two
levels (default ``random,random``); ``--games``, ``--seed``, ``--json``, ``--progress`` and
``--records`` are as for Crisp. Crisp's ``--limit`` and ``--take-discard`` are refused.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from crisp.bots.common.simulate import simulate_bots
from crisp.engine.crisps import CrispsOptions
from crisp.engine.crisps.options import FIELDS

#: The ``--option`` names (the timer has its own ``--timer``).
SWITCHES = tuple(name for name in FIELDS if name != "timer")
_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


class OptionError(ValueError):
    """A ``--option`` that names no Crisps! option or gives it no yes/no value."""


def parse_options(given: list[str], timer: int | None) -> CrispsOptions:
    """``["no_faceup", "auto_skip=false"]`` and the timer as ``CrispsOptions``."""
    fields: dict[str, Any] = {}
    for item in given:
        name, _, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if name == "timer":
            raise OptionError("the timer is --timer 30|45|60, not --option timer")
        if name not in SWITCHES:
            raise OptionError(f"unknown option {item!r} (Crisps!'s are {', '.join(SWITCHES)})")
        word = value.strip().lower() if value else "true"
        if word not in _TRUE | _FALSE:
            raise OptionError(f"--option {item}: say {name}=true or {name}=false")
        fields[name] = word in _TRUE
    return CrispsOptions(timer=timer, **fields)


def _fail(message: str) -> int:
    print(f"crisp simulate: {message}", file=sys.stderr)
    return 2


def simulate_crisps(args: argparse.Namespace) -> int:
    """Run ``crisp simulate --game crisps``."""
    from crisp.bots.crisps import LEVELS
    from crisp.bots.crisps.lab import run_games

    if args.limit is not None or args.take_discard:
        return _fail(
            "--limit and --take-discard are Crisp's options; Crisps!'s are --option "
            f"{'|'.join(SWITCHES)} and --timer"
        )
    if args.players is not None and args.players != 2:
        return _fail(f"Crisps! is for two players, not --players {args.players}")
    levels = [level.strip() for level in (args.bots or "random,random").split(",")]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        return _fail(f"unknown Crisps! bot level {unknown[0]!r} (levels: {', '.join(LEVELS)})")
    if len(levels) != 2:
        return _fail(f"Crisps! is for two players: --bots names two levels, not {len(levels)}")
    try:
        options = parse_options(args.option, args.timer)
    except (OptionError, ValueError) as err:
        return _fail(str(err))
    return simulate_bots(args, run_games, levels, options)
