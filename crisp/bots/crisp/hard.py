"""The ``hard`` level: remembers everything its seat was shown and counts cards.

What it knows: every look and every public move; where each card it has seen is, following
cards through Queen swaps (a card it knew keeps its identity wherever the swap takes it); the deck
order after a recycle (the discard order, R-RECYCLE), so it knows what it and everyone else will
draw; every unseen card estimated from what is left (the mean of the cards whose place it does not
know; a card an opponent kept from a draw is an A–T). It reads its opponents: how well each one
plays (does it discard or replace low cards?), what a good player kept (lower than the card it
replaced; a good player who discards a drawn 4 holds little above 4), how far its estimates of
their totals were from the reveals, and how often their own calls fail.

How it plays: a drawn card replaces its worst estimated card when lower; a Jack looks at an
unknown middle; a Queen trades its worst card for the lowest estimated card at the table (a card
it saw taken from the pile, a card a good player kept), when that gains at least 1.2 points,
weighing harm to the leader and to a caller; with the host's option it takes the pile's top when
that beats the expected gain of a draw (known exactly after a recycle). It calls crisp by expected
score: from the distribution of its own total and an estimate of each opponent's total after its
final turn it computes the chance of being strictly lowest (-5 rather than +5), and calls when that
chance beats what waiting is worth: more when another draw would still help it more than its
opponents, and more when the opponents are reckless callers who lose points by their own calls.
"""

from __future__ import annotations

import math
from typing import Any

from crisp.bots.common.base import Action
from crisp.bots.crisp.base import Bot
from crisp.bots.crisp.estimate import Pool, normal_above
from crisp.engine.crisp.cards import JACK, KING, QUEEN, SLOT_INDEX, SLOTS, SPECIAL_RANKS, VALUE

#: P(a discarded or replaced card's value band) for a random player and for a good one: the
#: evidence that updates the odds that an opponent plays well.
_BANDS = ((3, 0.30, 0.04), (6, 0.30, 0.16), (10, 0.40, 0.80))


def _band_ratio(value: int) -> float:
    for top, random_p, good_p in _BANDS:
        if value <= top:
            return math.log(good_p / random_p)
    return 0.0


class HardBot(Bot):
    """Full memory, card counting, opponent reading, calls by expected score (see the module)."""

    queen_min = 1.2  # a Queen is used when it gains at least this
    leader_weight = 0.3
    look_bonus = 0.3
    call_base = 0.66  # the chance of being strictly lowest needed to call, at least...
    wait_weight = 0.2  # ... plus this much per point that waiting gains against the opponents
    risk_weight = 1.5  # ... plus this much per point the opponents lose by their own calls
    call_floor, call_cap = 0.5, 0.95
    patience, impatience = 8, 0.04  # from its 9th turn in a round, 0.04 less a turn

    def __init__(
        self, seat: int, players: list[str], options: dict[str, Any], *, level: str, seed: int
    ) -> None:
        super().__init__(seat, players, options, level=level, seed=seed)
        n = self.table.n
        self.skill = [0.0] * n  # log-odds that each seat plays well
        # How far each seat's revealed totals were from this bot's estimates just before.
        self.miss = [0.0] * n
        self.miss2 = [0.0] * n
        self.reveals = 0
        # Each seat's crisp windows, calls, and calls that failed (+5): how risky its calls are.
        self.windows = [0] * n
        self.calls = [0] * n
        self.failed = [0] * n
        self.bound: list[list[int | None]] = [[None] * 3 for _ in range(n)]

    # -- reading the table ------------------------------------------------------------------------

    def observe(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        tb = self.table
        seat = msg.get("seat")
        if kind == "round":
            self.bound = [[None] * 3 for _ in range(tb.n)]
        elif kind == "reveal" and tb.phase == "play":
            self._read_reveal(msg["hands"])
            caller = msg.get("caller")
            if caller is not None:
                totals = [sum(VALUE[c] for c in hand) for hand in msg["hands"]]
                lowest = all(totals[caller] < t for s, t in enumerate(totals) if s != caller)
                self.failed[caller] += not lowest
        elif kind == "turn_end" and msg.get("window_until") is not None:
            self.windows[msg["seat"]] += 1
        elif kind == "crisp":
            self.calls[msg["seat"]] += 1
        elif isinstance(seat, int) and seat != self.seat and 0 <= seat < tb.n:
            if kind == "discard":
                self._read_discard(seat, msg["card"])
            elif kind == "swap":
                slot = SLOT_INDEX[msg["slot"]]
                if tb.owner_knows[seat][slot]:
                    self._learn(seat, _band_ratio(VALUE[msg["card"]]))
                self.bound[seat][slot] = None
            elif kind == "take":
                self.bound[seat][SLOT_INDEX[msg["slot"]]] = None
        if kind == "queen":
            a, sa = msg["seat"], SLOT_INDEX[msg["slot"]]
            b, sb = msg["target"], SLOT_INDEX[msg["target_slot"]]
            self.bound[a][sa], self.bound[b][sb] = self.bound[b][sb], self.bound[a][sa]
        super().observe(msg)

    def restarted(self) -> None:
        self.bound = [[None] * 3 for _ in range(self.table.n)]

    def _learn(self, seat: int, evidence: float) -> None:
        self.skill[seat] = min(6.0, max(-6.0, self.skill[seat] + evidence))

    def _read_discard(self, seat: int, card: str) -> None:
        if card[0] in SPECIAL_RANKS:
            return
        value = VALUE[card]
        self._learn(seat, _band_ratio(value))
        # A good player discards a drawn card only when every card it knows is about as low.
        knows = self.table.owner_knows[seat]
        for slot in range(3):
            if knows[slot]:
                old = self.bound[seat][slot]
                self.bound[seat][slot] = value + 2 if old is None else min(old, value + 2)

    def _read_reveal(self, hands: list[list[str]]) -> None:
        """Compare each opponent's revealed total with this bot's estimate of it."""
        pool = Pool(self.table.unseen())
        for seat, hand in enumerate(hands):
            if seat == self.seat:
                continue
            guess = sum(self.slot_estimate(pool, seat, s)[0] for s in range(3))
            miss = sum(VALUE[c] for c in hand) - guess
            self.miss[seat] += miss
            self.miss2[seat] += miss * miss
        self.reveals += 1

    def bias(self, seat: int) -> tuple[float, float]:
        """The mean miss of this bot's estimates of ``seat``'s total (shrunk towards 0 while
        there are few reveals) and its variance."""
        k = self.reveals
        if k == 0:
            return 0.0, 0.0
        mean = self.miss[seat] / (k + 2)
        var = self.miss2[seat] / k - (self.miss[seat] / k) ** 2
        return mean, max(var, 0.0)

    def good(self, seat: int) -> float:
        """The chance that ``seat`` plays well (learned from its discards and swaps)."""
        return 1.0 / (1.0 + math.exp(-self.skill[seat]))

    def slot_estimate(self, pool: Pool, seat: int, slot: int) -> tuple[float, float]:
        """Mean and variance of the card at ``seat``'s ``slot``, as far as this seat knows."""
        tb = self.table
        card = tb.cards[seat][slot]
        if card is not None:
            return float(VALUE[card]), 0.0
        if seat == self.seat:
            return pool.mean, pool.var
        kept = tb.kept[seat][slot]
        bounds = [b for b in (kept, self.bound[seat][slot]) if b is not None]
        if not bounds:
            return pool.mean, pool.var
        # A card its owner put in from a draw is an A–T (R-SPECIAL); lower if the owner plays well.
        base = pool.number_mean() if kept is not None else pool.mean
        w = self.good(seat)
        low = pool.mean_below(min(bounds))
        mean = w * low + (1 - w) * base
        return mean, pool.var * (1 - 0.5 * w) + w * (1 - w) * (base - low) ** 2

    # -- choices ----------------------------------------------------------------------------------

    def _mine(self, pool: Pool) -> list[float]:
        return [self.slot_estimate(pool, self.seat, s)[0] for s in range(3)]

    def _worst(self, est: list[float]) -> int:
        hand = self.table.hand
        return max(range(3), key=lambda s: (est[s], hand[s] is not None))

    def choose_draw(self) -> Action | None:
        tb = self.table
        top = tb.pile[-1] if tb.pile else None
        if not tb.options.get("take_discard") or top is None:
            return {"do": "draw"}
        pool = Pool(tb.unseen())
        est = self._mine(pool)
        slot = self._worst(est)
        take = est[slot] - VALUE[top]
        if take <= 0:
            return {"do": "draw"}
        nxt = tb.next_deck_card()
        if nxt is not None:
            draw = self._card_gain(nxt, est[slot], pool)
        else:
            draw = pool.draw_gain(est[slot])
            draw += pool.kings / max(pool.size, 1) * 2 * draw
            draw += pool.queens / max(pool.size, 1) * 1.5
        if take > draw + 0.25:
            return {"do": "take_discard", "slot": SLOTS[slot]}
        return {"do": "draw"}

    def _card_gain(self, card: str, worst: float, pool: Pool) -> float:
        rank = card[0]
        if rank == KING:
            return 2 * pool.draw_gain(worst)
        if rank == QUEEN:
            return 1.5
        if rank == JACK:
            return 0.5 if self.table.hand[1] is None else 0.0
        return max(0.0, worst - VALUE[card])

    def choose_play(self, card: str) -> Action | None:
        rank = card[0]
        tb = self.table
        if rank == KING:
            return {"do": "king"}
        if rank == JACK:
            return {"do": "jack"} if tb.hand[1] is None else {"do": "discard"}
        pool = Pool(tb.unseen())
        est = self._mine(pool)
        if rank == QUEEN:
            return self._queen(pool, est) or {"do": "discard"}
        slot = self._worst(est)
        if est[slot] > VALUE[card]:
            return {"do": "swap", "slot": SLOTS[slot]}
        return {"do": "discard"}

    def _threat(self, seat: int) -> float:
        """How much harming ``seat`` is worth beyond the points: the leader and a caller."""
        tb = self.table
        weight = 1.0
        others = [tb.totals[s] for s in range(tb.n) if s != self.seat]
        if tb.totals[seat] == min(others):
            weight += self.leader_weight
        if tb.caller == seat:
            weight += 0.7
        return weight

    def _queen(self, pool: Pool, est: list[float]) -> Action | None:
        tb = self.table
        best: tuple[float, int, int, int] | None = None
        for target in range(tb.n):
            if target == self.seat:
                continue
            weight = self._threat(target)
            for their in range(3):
                theirs, _ = self.slot_estimate(pool, target, their)
                for mine in range(3):
                    gain = est[mine] - theirs
                    if gain <= 0:
                        continue
                    value = gain * weight
                    if mine != 1 and tb.cards[target][their] is None:
                        value += self.look_bonus  # the card arriving left or right is looked at
                    if best is None or value > best[0]:
                        best = (value, mine, target, their)
        if best is None or best[0] < self.queen_min:
            return None
        _, mine, target, their = best
        return {
            "do": "queen",
            "slot": SLOTS[mine],
            "target": target,
            "target_slot": SLOTS[their],
        }

    # -- calling crisp ----------------------------------------------------------------------------

    def outlook(self) -> tuple[dict[int, float], list[tuple[int, float, float]]]:
        """If the round ended after the final turns: the distribution of this seat's total
        (``{total: p}``) and, for each opponent, ``(seat, mean, variance)`` of its total."""
        tb = self.table
        pool = Pool(tb.unseen())
        known = 0
        dist: dict[int, float] = {0: 1.0}
        for slot in range(3):
            card = tb.hand[slot]
            if card is not None:
                known += VALUE[card]
                continue
            step: dict[int, float] = {}
            for total, p in dist.items():
                for v, q in pool.dist():
                    step[total + v] = step.get(total + v, 0.0) + p * q
            dist = step
        upcoming = self._final_draws()
        others: list[tuple[int, float, float]] = []
        for k in range(1, tb.n):
            seat = (self.seat + k) % tb.n
            means = [self.slot_estimate(pool, seat, s) for s in range(3)]
            mean = sum(m for m, _ in means)
            var = sum(v for _, v in means) + 1.0
            worst = max(m for m, _ in means)
            nxt = upcoming[k - 1] if k - 1 < len(upcoming) else None
            if nxt is not None:
                gain = max(0.0, worst - VALUE[nxt]) if nxt[0] not in SPECIAL_RANKS else 0.0
            else:
                gain = pool.draw_gain(worst)
            shift, spread = self.bias(seat)
            if self.reveals >= 3:
                var = max(var, spread)
            others.append((seat, mean + shift - self.good(seat) * gain, var))
        return {known + t: p for t, p in dist.items()}, others

    def p_lowest(self) -> tuple[float, float]:
        """The chance of being strictly lowest at the reveal if this seat calls now, and the
        expected total of its hand."""
        dist, others = self.outlook()
        p_low = expected = 0.0
        for mine, p in dist.items():
            expected += p * mine
            q = p
            for _, mean, var in others:
                q *= normal_above(mine + 0.5, mean, var)
            p_low += q
        return p_low, expected

    def _final_draws(self) -> list[str]:
        """The next cards of the deck, when known: what the final turns would draw."""
        tb = self.table
        known: list[str] = []
        for card in reversed(tb.deck):
            if card is None:
                return known
            known.append(card)
        return known

    def wait_gain(self) -> float:
        """What waiting a round of turns is worth to this seat, against its opponents: its own
        expected gain from a draw minus theirs (weighted by how well they play)."""
        tb = self.table
        pool = Pool(tb.unseen())
        mine = self._mine(pool)
        gain = pool.draw_gain(max(mine))
        theirs = 0.0
        for seat in range(tb.n):
            if seat == self.seat:
                continue
            worst = max(self.slot_estimate(pool, seat, s)[0] for s in range(3))
            theirs += self.good(seat) * pool.draw_gain(worst)
        return gain - theirs / (tb.n - 1)

    def call_risk(self) -> float:
        """How much the opponents lose by their own calls, per window: their call rate times how
        much likelier their calls fail than succeed (priors: 1 call in 10 windows, half failing)."""
        tb = self.table
        risk = 0.0
        for seat in range(tb.n):
            if seat == self.seat:
                continue
            rate = (self.calls[seat] + 1) / (self.windows[seat] + 10)
            fail = (self.failed[seat] + 1) / (self.calls[seat] + 2)
            risk += rate * (2 * fail - 1)
        return risk / (tb.n - 1)

    def wants_call(self) -> bool:
        """Call when the chance of being strictly lowest beats what waiting is worth: the
        threshold rises with this seat's expected gain from another draw (over its opponents')
        and with how much the opponents lose by their own calls (a table of reckless callers is
        best left to call), and falls in a long round."""
        p_low, _ = self.p_lowest()
        need = self.call_base + self.wait_weight * self.wait_gain()
        need += self.risk_weight * self.call_risk()
        need = min(self.call_cap, max(self.call_floor, need))
        # A round ends only with a call: past a while, less and less is needed (at worst, when
        # no one else calls, nothing: every hand is low by then and the round must end).
        need -= self.impatience * max(0, self.table.my_turns - self.patience)
        return p_low >= need
