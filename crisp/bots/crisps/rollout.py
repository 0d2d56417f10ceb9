"""An imagined round: a bot's fast copy of the rules, on one guess at the hidden cards.

``World`` is a full deal as ``hard`` imagines it (its own hand, a sampled opponent hand, a sampled
pile order, the face-up card, the trick, the cards played), and ``play_out`` finishes the round
with both players following ``normal``'s rules of thumb (``crisp.bots.crisps.policy``), returning
the seat that empties its hand first. The rules are CS-LEAD … CS-DRAW-EMPTY and CS-OPT-SKIP; the
timer plays no part (the players act in time). The tests check a ``World`` step by step against
the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from crisp.bots.crisps import policy
from crisp.bots.crisps.combos import (
    PAIR_RUN,
    RUN,
    Combo,
    Counts,
    follows,
    leads,
    pool_can_follow,
    remove,
)

LEAD, FOLLOW, DRAW = 0, 1, 2


@dataclass(slots=True)
class World:
    hands: list[Counts]
    n: list[int]
    faceup: int  # -1: none
    pile: list[int]  # the top card last
    played: Counts
    prev: Combo | None
    turn: int  # whose decision is due
    need: int  # LEAD, FOLLOW or DRAW
    no_faceup: bool = False
    crisp_runs: bool = False
    auto_skip: bool = False

    def copy(self) -> World:
        return World(
            [list(self.hands[0]), list(self.hands[1])],
            list(self.n),
            self.faceup,
            list(self.pile),
            list(self.played),
            self.prev,
            self.turn,
            self.need,
            self.no_faceup,
            self.crisp_runs,
            self.auto_skip,
        )

    # -- the rules --------------------------------------------------------------------------------

    def play(self, combo: Combo) -> int | None:
        """The due seat plays ``combo`` (lead or follow); the round's winner if it went out."""
        seat = self.turn
        remove(self.hands[seat], combo)
        self.n[seat] -= combo[2]
        _add(self.played, combo)
        if self.n[seat] == 0:
            return seat
        self.prev = combo
        self.turn = 1 - seat
        self.need = FOLLOW
        if self.auto_skip:
            pool = [4 - p for p in self.played]
            if not pool_can_follow(pool, combo, self.crisp_runs):
                self.pass_()
        return None

    def pass_(self) -> None:
        """The due seat passes (or is skipped): the trick ends, the draw (CS-DRAW)."""
        winner = 1 - self.turn
        self.prev = None
        self.turn = winner
        if not self.pile:
            self.need = LEAD
        elif self.no_faceup:
            self._give(winner, self.pile.pop())
            self._give(1 - winner, self.pile.pop())
            self.need = LEAD
        else:
            self.need = DRAW

    def draw(self, take_faceup: bool) -> None:
        """The trick's winner takes the face-up card or the blind one (CS-DRAW, CS-REFILL)."""
        winner = self.turn
        blind = self.pile.pop()
        mine, theirs = (self.faceup, blind) if take_faceup else (blind, self.faceup)
        self._give(winner, mine)
        self._give(1 - winner, theirs)
        self.faceup = self.pile.pop() if self.pile else -1
        self.need = LEAD

    def _give(self, seat: int, card: int) -> None:
        self.hands[seat][card] += 1
        self.n[seat] += 1

    # -- the players ------------------------------------------------------------------------------

    def step(self) -> int | None:
        """The due seat acts by ``normal``'s rules; the round's winner if it ended."""
        seat = self.turn
        h = self.hands[seat]
        if self.need == DRAW:
            self.draw(policy.choose_take(h, self.faceup if self.faceup >= 0 else None))
            return None
        if self.need == LEAD:
            return self.play(policy.choose_lead(h, self.n[seat], leads(h, self.crisp_runs)))
        prev = self.prev
        assert prev is not None
        options = follows(h, prev, self.crisp_runs)
        choice = policy.choose_follow(h, self.n[seat], self.n[1 - seat], prev, options)
        if choice is None:
            self.pass_()
            return None
        return self.play(choice)


def play_out(world: World, limit: int = 400) -> int:
    """Finish the round (in place); the winner. ``limit`` steps bound a broken world (then the
    seat with fewer cards is taken as the winner)."""
    for _ in range(limit):
        winner = world.step()
        if winner is not None:
            return winner
    return 0 if world.n[0] <= world.n[1] else 1


def _add(c: Counts, combo: Combo) -> None:
    kind, rank, size = combo
    if kind == RUN:
        for i in range(rank, rank + size):
            c[i] += 1
    elif kind == PAIR_RUN:
        for i in range(rank, rank + size // 2):
            c[i] += 2
    else:
        c[rank] += size
