"""The ``hard`` level: counts the cards, models the opponent's hand, searches by Monte Carlo.

What it knows (all from its seat's messages): its hand; every card played this round; the
face-up card; the face-up cards the opponent took and has not played since (``opp_known``); the
opponent's passes. The cards it cannot place — the rest of the opponent's hand, the four set-aside
cards and the pile — are ``TableModel.unknown()``.

How it chooses (information-set Monte Carlo over determinizations): it samples ``samples`` deals
of the unknown cards consistent with what it knows — the opponent holds its known cards plus
random unknown ones, the rest are the set-aside cards and the pile in a random order — and weighs
each sample by the opponent's passes: a sampled opponent hand that could have followed a play it
passed on (an Ordinary follow breaking no three or four of a kind, checked on the hand it holds
now, for the passes followed by at most one draw) is kept only with probability
``PASS_LIKELIHOOD`` (``SAMPLE_TRIES`` tries, then the last sample is kept). For each candidate
move it plays every sample out to the end of the round (``crisp.bots.crisps.rollout``: both
players by ``normal``'s rules of thumb) and counts the rounds it wins; candidates are cut by
successive halving (all of them on the first samples, the better half on the next, …) and the
best mean wins, ``normal``'s own choice on a tie. A round's winner is all that counts: points
are won only by emptying the hand (CS-POINT), and each round is dealt afresh.

Its candidates: at a lead, the lowest and the highest play of each kind and size, and any play
that empties its hand; at a follow, the pass, the lowest and highest Ordinary play, the lowest
and highest Special, and a play that empties its hand; at a draw, the face-up and the blind card.
A decision with one candidate (a follow with nothing to play) is made at once.
"""

from __future__ import annotations

import random

from crisp.bots.crisps import policy
from crisp.bots.crisps.base import CrispsBot
from crisp.bots.crisps.combos import (
    N_RANKS,
    THREE,
    Combo,
    Counts,
    combo_counts,
    ordinary_over,
)
from crisp.bots.crisps.rollout import DRAW, FOLLOW, LEAD, World, play_out
from crisp.bots.crisps.table import Pass, TableModel

#: The chance a sampled opponent hand is kept when it could have followed a play it passed on.
PASS_LIKELIHOOD = 0.25
#: Tries to draw a sample the passes make likely, before the last one is kept anyway.
SAMPLE_TRIES = 6
#: Rollouts per decision at most (spread over the candidates by successive halving).
BUDGET = 120
#: Samples the search starts with (every candidate is played out on each).
FIRST = 8

Move = Combo | None | bool  # a play, a pass (None), or a draw (True: the face-up card)


class HardBot(CrispsBot):
    """Card counting and determinized Monte Carlo search (see the module's docstring)."""

    budget = BUDGET
    first = FIRST

    def choose_lead(self, legal: list[Combo]) -> Combo:
        tb = self.table
        n = sum(tb.hand)
        default = policy.choose_lead(tb.hand, n, legal)
        out = policy.whole_hand(tb.hand, n, legal)
        if out is not None:
            return out
        candidates: list[Move] = [default, *_spread(legal)]
        best = self._search(candidates, LEAD)
        return best if isinstance(best, tuple) else default

    def choose_follow(self, legal: list[Combo]) -> Combo | None:
        tb = self.table
        prev = tb.prev
        n = sum(tb.hand)
        if prev is None or not legal:
            return None
        out = policy.whole_hand(tb.hand, n, legal)
        if out is not None:
            return out
        default = policy.choose_follow(tb.hand, n, tb.hands[tb.opp], prev, legal)
        candidates: list[Move] = [default, None, *_spread(legal)]
        best = self._search(candidates, FOLLOW)
        return best if isinstance(best, tuple) else None

    def choose_take(self) -> bool:
        tb = self.table
        default = policy.choose_take(tb.hand, tb.faceup)
        if tb.faceup is None:
            return default
        best = self._search([default, not default], DRAW)
        return bool(best)

    # -- the search -------------------------------------------------------------------------------

    def _search(self, candidates: list[Move], need: int) -> Move:
        unique: list[Move] = []
        for move in candidates:
            if move not in unique:
                unique.append(move)
        if len(unique) == 1:
            return unique[0]
        rng = self.rng
        wins = [0] * len(unique)
        alive = list(range(len(unique)))
        used = 0
        spent = 0
        step = max(2, min(self.first, self.budget // (2 * len(unique))))
        while True:
            worlds = [self._sample(need, rng) for _ in range(step)]
            for i in alive:
                for world in worlds:
                    w = world.copy()
                    winner = _apply(w, unique[i])
                    if winner is None:
                        winner = play_out(w)
                    wins[i] += winner == self.seat
            used += step
            spent += step * len(alive)
            if len(alive) <= 1:
                break
            alive.sort(key=lambda i: (-wins[i], i))
            keep = max(1, len(alive) // 2)
            alive = alive[:keep]
            step = min(step * 2, max(1, (self.budget - spent) // max(1, len(alive))))
            if spent + step * len(alive) > self.budget:
                break
        best = max(alive, key=lambda i: (wins[i], -i))
        return unique[best]

    def _sample(self, need: int, rng: random.Random) -> World:
        """One deal of the unknown cards consistent with what this seat knows."""
        tb = self.table
        me, opp = self.seat, tb.opp
        pool: list[int] = []
        for i, k in enumerate(tb.unknown()):
            pool.extend([i] * k)
        known = sum(tb.opp_known)
        opp_n = tb.hands[opp]
        hidden = max(0, min(opp_n - known, len(pool)))
        opp_hand: Counts = list(tb.opp_known)
        for _ in range(SAMPLE_TRIES):
            rng.shuffle(pool)
            opp_hand = list(tb.opp_known)
            for card in pool[:hidden]:
                opp_hand[card] += 1
            if _plausible(opp_hand, tb, rng):
                break
        rest = pool[hidden:]
        pile = rest[: tb.pile]  # the rest of ``rest`` is set aside
        return World(
            [list(tb.hand), opp_hand] if me == 0 else [opp_hand, list(tb.hand)],
            [sum(tb.hand), opp_n] if me == 0 else [opp_n, sum(tb.hand)],
            tb.faceup if tb.faceup is not None else -1,
            pile,
            list(tb.played),
            tb.prev,
            me,
            need,
            tb.no_faceup,
            tb.crisp_runs,
            tb.auto_skip,
        )


def _plausible(opp_hand: Counts, tb: TableModel, rng: random.Random) -> bool:
    """Keep a sampled opponent hand, given its passes (see the module's docstring)."""
    for p in tb.opp_passes:
        if (
            p.draws_since <= 1
            and _could_follow(opp_hand, p, tb.crisp_runs)
            and rng.random() >= PASS_LIKELIHOOD
        ):
            return False
    return True


def _could_follow(hand: Counts, p: Pass, crisp_runs: bool) -> bool:
    for combo in ordinary_over(hand, p.prev, crisp_runs):
        c = combo_counts(combo)
        if all(hand[i] < 3 for i in range(N_RANKS) if c[i]):
            return True
    return False


def _spread(legal: list[Combo]) -> list[Combo]:
    """The lowest and the highest play of each kind and size."""
    low: dict[tuple[int, int], Combo] = {}
    high: dict[tuple[int, int], Combo] = {}
    for combo in legal:
        key = (combo[0], combo[2])
        if key not in low or combo[1] < low[key][1]:
            low[key] = combo
        if key not in high or combo[1] > high[key][1]:
            high[key] = combo
    out = list(low.values())
    out.extend(c for c in high.values() if c not in out)
    out.sort(key=lambda c: (c[0] >= THREE, c[1], -c[2]))
    return out


def _apply(w: World, move: Move) -> int | None:
    if isinstance(move, bool):
        w.draw(move)
        return None
    if move is None:
        w.pass_()
        return None
    return w.play(move)
