"""Random legal play, for property tests, leak tests and the engine benchmark.

The policy, ``random-legal``: every seat readies at a random moment of the look (some never do,
so the look can run out); a player thinks 0.1 to 1.5 s before each action; a drawn A–T is swapped
into a random slot (60%) or discarded; a Jack or a Queen is used (80%, the Queen on a random slot
of a random opponent) or discarded; a King is used; with the host's option, a draw is a take from
the discard pile (25%); with a per-draw clock, a draw is left to time out (4%); a player whose
crisp window opens calls (20%), at a random moment of the window — sometimes after the next player
has started (a late call), sometimes too late to count, in which case the call is not made.
With ``p_absent`` (0 by default) a seat goes absent, or comes back, before an action (the server's
grace for an absent player: its draws then time out); with ``p_restart`` the draw clock restarts
as after a server restart; with ``lag_ms`` every action carries a latency allowance (R-WINDOW-LAG).
Everything comes from the game's own seeded generator: the same seed plays the same game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from crisp.engine.common.fairness import Fairness
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.cards import JACK, KING, QUEEN
from crisp.engine.crisp.game import Game
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.phase import LOOK
from crisp.engine.crisp.rng import Rng
from crisp.engine.crisp.timing import Ms, Timing, to_seconds

Sink = Callable[[list[Out]], None]


@dataclass(frozen=True, slots=True)
class Policy:
    name: str = "random-legal"
    p_ready: float = 0.85
    p_swap: float = 0.6
    p_special: float = 0.8
    p_take: float = 0.25
    p_timeout: float = 0.04
    p_call: float = 0.2
    think_ms: tuple[int, int] = (100, 1500)
    p_absent: float = 0.0
    p_restart: float = 0.0
    #: R-WINDOW-LAG: each action is made with an allowance drawn from this range of ms (0, 0: none).
    lag_ms: tuple[int, int] = (0, 0)


RANDOM_LEGAL = Policy()


def _ignore(_: list[Out]) -> None:
    return None


def play_random(
    players: int,
    options: Options | None = None,
    seed: int = 0,
    *,
    max_actions: int | None = None,
    max_rounds: int | None = None,
    policy: Policy = RANDOM_LEGAL,
    timing: Timing | None = None,
    sink: Sink | None = None,
    fair: bool = False,
    fairness: Fairness | None = None,
) -> Game:
    """Play a game by ``policy`` and return it (stopped early after ``max_actions`` actions or
    ``max_rounds`` deals, possibly mid-round). ``sink`` receives every batch of messages.
    ``fair``: deal by the commit-reveal shuffle from ``Fairness.from_int(seed, players)`` (the
    documented server seed of an integer seed) instead of the SplitMix64 seed; ``fairness``:
    by that one (``seed`` then drives the players' choices only)."""
    names = [f"P{i + 1}" for i in range(players)]
    if fair or fairness is not None:
        fairness = fairness or Fairness.from_int(seed, players)
        game = Game(names, options, fairness=fairness, timing=timing)
    else:
        game = Game(names, options, seed=seed, timing=timing)
    player = _Player(game, Rng(seed ^ 0x5EED5EED5EED5EED), policy, sink or _ignore)
    budget = max_actions if max_actions is not None else 1 << 62
    rounds = 0
    while not game.over and budget > 0:
        if max_rounds is not None and rounds >= max_rounds:
            break
        rounds += 1
        budget = player.play_round(budget)
    return game


class _Player:
    def __init__(self, game: Game, rng: Rng, policy: Policy, sink: Sink) -> None:
        self.game = game
        self.rng = rng
        self.p = policy
        self.sink = sink

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def think(self) -> int:
        lo, hi = self.p.think_ms
        return lo + self.rng.below(hi - lo + 1)

    def play_round(self, budget: int) -> int:
        """Play the current deal to its end (or for ``budget`` actions); return what is left."""
        game, sink, rng = self.game, self.sink, self.rng
        sink(game.start_round())
        r = game.round
        look = r.timing.look_ms
        readies = sorted(
            (rng.below(look), seat) for seat in range(r.n) if self.chance(self.p.p_ready)
        )
        for t, seat in readies:
            if budget <= 0:
                return 0
            sink(game.apply_ms(A.Ready(seat), t))
            budget -= 1
        if r.phase is LOOK:
            sink(game.advance_ms(look))
        pending: tuple[int, Ms, Ms] | None = None  # (seat, window_until, call time)
        timer = r.timer_ms is not None
        # The policy's knobs, read once a round (the same draws of the rng, in the same order).
        p_absent, p_restart, lag_ms = self.p.p_absent, self.p.p_restart, self.p.lag_ms
        while not r.over and budget > 0:
            seat = r.turn
            at: Ms = max(r.now, r.due) + self.think()
            window = r.window_seat
            if window is not None and r.caller is None:
                if pending is None or pending[:2] != (window, r.window_until):
                    call_at: Ms = -1
                    if self.chance(self.p.p_call):
                        span = int(r.window_until - r.now)
                        call_at = r.now + rng.below(span + 300)  # sometimes too late
                    pending = (window, r.window_until, call_at)
                call_at = pending[2]
                if 0 <= call_at <= at and call_at < r.window_until:
                    sink(game.apply_ms(A.Crisp(window), call_at))
                    budget -= 1
                    continue
            if p_absent and self.chance(p_absent):
                sink(self.toggle_absent(rng.below(r.n)))
                continue
            if p_restart and self.chance(p_restart):
                sink(game.restart_clock(to_seconds(r.now)))
                continue
            deadline = r.deadline
            timeout = timer and self.chance(self.p.p_timeout)
            if deadline is not None and (at >= deadline or timeout):
                sink(game.advance_ms(deadline))
                continue
            sink(game.advance_ms(at))
            if r.over or r.turn != seat:
                continue
            if lag_ms[1]:
                lo, hi = lag_ms
                lag = lo + rng.below(hi - lo + 1)
                sink(game.apply_ms(self.choose(seat), at, allowance_ms=lag))
            else:
                sink(game.apply_ms(self.choose(seat), at))
            budget -= 1
        return budget

    def toggle_absent(self, seat: int) -> list[Out]:
        game = self.game
        r = game.round
        if game.absent[seat]:
            return game.set_absent(seat, None, to_seconds(r.now))
        if all(game.absent[s] for s in range(r.n) if s != seat):
            return []
        now = r.now
        return game.set_absent(seat, to_seconds(now + self.rng.below(4000)), to_seconds(now))

    def choose(self, seat: int) -> A.Action:
        r = self.game.round
        card = r.held
        rng = self.rng
        if card is None:
            if r.options.take_discard and r.pile and self.chance(self.p.p_take):
                return A.TakeDiscard(seat, rng.below(3))
            return A.Draw(seat)
        rank = card[0]
        if rank == KING:
            return A.King(seat)
        if rank == QUEEN:
            if self.chance(self.p.p_special):
                target = (seat + 1 + rng.below(r.n - 1)) % r.n
                return A.Queen(seat, rng.below(3), target, rng.below(3))
            return A.Discard(seat)
        if rank == JACK:
            return A.Jack(seat) if self.chance(self.p.p_special) else A.Discard(seat)
        if self.chance(self.p.p_swap):
            return A.Swap(seat, rng.below(3))
        return A.Discard(seat)
