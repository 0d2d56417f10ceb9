"""Shared helpers of the engine tests: stacked games and state snapshots."""

from __future__ import annotations

import copy
from typing import Any

from stacking import deal_deck

from crisp.engine.crisp import Game, Options, Out
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.messages import stream

SLOT = {"left": 0, "middle": 1, "right": 2}


def stacked_game(
    hands: list[list[str]],
    draws: list[str] | None = None,
    *,
    dealer: int | None = None,
    options: Options | None = None,
    ready: bool = True,
) -> tuple[Game, list[Out]]:
    """A game dealt so that seat s holds ``hands[s]`` and the deck then gives ``draws``.

    The dealer defaults to the last seat, so that seat 0 plays first (R-FIRST). With ``ready`` every
    seat says ready at t = 0, so the first draw is due at once.
    """
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    game = Game([f"P{i}" for i in range(n)], options or Options())
    outs = game.start_round(deal_deck(dealer, hands, draws or []), dealer)
    if ready:
        for seat in range(n):
            outs += game.apply(A.Ready(seat), 0)
    return game, outs


def snapshot(game: Game) -> dict[str, Any]:
    """Everything of a game's state that an action could change, for 'changes nothing' checks."""
    r = game.round
    state = {k: copy.deepcopy(v) for k, v in vars(r).items() if k not in ("knowledge", "out")}
    state["out"] = list(r.out)
    state["sightings"] = len(game.knowledge.sightings)
    state["totals"] = list(game.totals)
    state["log"] = copy.deepcopy(game.record())
    return state


def of_type(outs: list[Out], kind: str, seat: int | None = None) -> list[dict[str, Any]]:
    """The messages of one type that ``seat`` (None: a spectator) receives."""
    return [m for m in stream(outs, seat) if m["type"] == kind]


def play_turn(game: Game, seat: int, t: float, then: str = "discard", slot: str = "left") -> None:
    """Draw at ``t`` and discard (or swap into ``slot``) at the same time."""
    game.apply(A.Draw(seat), t)
    if then == "discard":
        game.apply(A.Discard(seat), t)
    else:
        game.apply(A.Swap(seat, SLOT[slot]), t)
