"""A game in a room: the engine's ``Game``, the game clock, and the log of its inputs.

The log is what is stored: the game's seat names, options and secret seed, then each input in
order (a deal, an action at its game time, deadlines applied at a game time, a seat made absent or
present, a clock restart). Replaying it through the engine rebuilds the game exactly, and the
game's ``record()`` (RECORD.md) follows. Game time is seconds since the current deal; it runs
``clock_speed`` times as fast as real time while the server runs, and not at all while it is down.
"""

from __future__ import annotations

import secrets
from typing import Any

from crisp.engine import Game, Options, Out, actions
from crisp.engine.timing import to_seconds

LogEntry = dict[str, Any]


class Table:
    def __init__(self, players: list[str], options: Options, seed: int, number: int) -> None:
        self.game = Game(players, options, seed=seed)
        self.seed = seed
        self.number = number  # the room's game number (1-based)
        self.base = 0.0  # the loop time at which the current deal's game time was 0
        self.speed = 1.0

    @classmethod
    def new(
        cls, players: list[str], options: Options, number: int, seed: int | None = None
    ) -> tuple[Table, LogEntry]:
        seed = secrets.randbits(63) if seed is None else seed
        table = cls(players, options, seed, number)
        entry = {"e": "game", "no": number, "players": players, "options": options.to_record(),
                 "seed": seed}  # fmt: skip
        return table, entry

    # -- game time ----------------------------------------------------------------------------

    def now(self, loop_time: float) -> float:
        """The game time at ``loop_time``: never before the game's last change, in whole ms."""
        t = round((loop_time - self.base) * self.speed, 3)
        if self.game.rounds:
            t = max(t, to_seconds(self.game.round.now))
        return t

    def set_clock(self, loop_time: float, game_t: float, speed: float) -> None:
        """Game time ``game_t`` is now (at ``loop_time``)."""
        self.speed = speed
        self.base = loop_time - game_t / speed

    def loop_time_of(self, game_t: float) -> float:
        return self.base + game_t / self.speed

    # -- the inputs: each returns the engine's messages and the log entry to store ------------

    def deal(self) -> tuple[list[Out], LogEntry]:
        return self.game.start_round(), {"e": "deal"}

    def advance(self, t: float) -> tuple[list[Out], LogEntry | None]:
        outs = self.game.advance(t)
        return outs, ({"e": "advance", "t": t} if outs else None)

    def act(self, action: actions.Action, t: float) -> tuple[list[Out], LogEntry]:
        outs = self.game.apply(action, t)  # raises IllegalAction, changing nothing
        return outs, {"e": "act", "t": t, **action.to_record()}

    def set_absent(self, seat: int, until: float | None, t: float) -> tuple[list[Out], LogEntry]:
        outs = self.game.set_absent(seat, until, t)
        return outs, {"e": "absent", "t": t, "seat": seat, "until": until}

    def restart_clock(self, t: float) -> tuple[list[Out], LogEntry]:
        return self.game.restart_clock(t), {"e": "restart", "t": t}

    def last_time(self) -> float:
        """The game time of the last change of the current round (where the clock resumes)."""
        if not self.game.rounds:
            return 0.0
        return to_seconds(self.game.round.now)

    # -- rebuilding from the log --------------------------------------------------------------

    @classmethod
    def rebuild(cls, entries: list[LogEntry]) -> Table:
        """The game of ``entries`` (its ``game`` entry first), as it was after the last one."""
        head = entries[0]
        table = cls(list(head["players"]), Options.from_record(head["options"]), int(head["seed"]),
                    int(head["no"]))  # fmt: skip
        game = table.game
        for entry in entries[1:]:
            kind = entry["e"]
            if kind == "deal":
                game.start_round()
            elif kind == "act":
                game.apply(actions.from_record({k: v for k, v in entry.items() if k != "e"}),
                           entry["t"])  # fmt: skip
            elif kind == "advance":
                game.advance(entry["t"])
            elif kind == "absent":
                game.set_absent(entry["seat"], entry["until"], entry["t"])
            elif kind == "restart":
                game.restart_clock(entry["t"])
            else:
                raise ValueError(f"unknown log entry {kind!r}")
        return table
