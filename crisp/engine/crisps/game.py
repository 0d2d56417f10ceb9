"""A game of Crisps! (docs/rules-crisps.md): rounds of tricks between two seats, to 3 points.

``start()`` deals round 1; ``apply(seat, action, t)`` applies one action at game time ``t`` (or
raises ``CrispsRefusal`` with §10's first broken rule, changing nothing); ``advance(t)`` applies
the timeouts due by ``t`` (CS-TIMER: at exactly the deadline the timeout comes first). Each
returns the messages it produced (``Out``). A round that ends deals the next one in the same
step (CS-GAME-END), so from ``start()`` to the end the game is always being played.

``apply`` does not compare ``t`` with the deadline: the caller applies ``advance(t)`` first (the
server's adapter does), and a record's ``timeout`` action says by itself that the time ran out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crisp.engine.common.fairness import Committed, Fairness
from crisp.engine.common.messages import WATCHERS, Out
from crisp.engine.crisps.cards import RANKS, Counts, contains, counts_of, is_deck, parse, text
from crisp.engine.crisps.combos import Combo, can_follow, classify, combos_within, followable
from crisp.engine.crisps.errors import CrispsRefusal
from crisp.engine.crisps.options import CrispsOptions
from crisp.engine.crisps.shuffle import Dealing

SEATS = 2
HAND = 12
SET_ASIDE = 4
WIN_POINTS = 3  # CS-GAME-END
DOS = ("play", "pass", "draw", "timeout")
TAKES = ("faceup", "blind")
_KEYS = {"play": {"do", "cards"}, "pass": {"do"}, "draw": {"do", "take"}, "timeout": {"do"}}


def _at(outs: list[Out], t: float) -> list[Out]:
    """Each message stamped with ``t``, the game time of the step that made it, right after its
    ``type`` (a timeout's messages: the deadline's time), as the protocol's countdowns anchor on
    it ("Time and countdowns")."""
    return [Out(o.to, {"type": o.msg["type"], "t": t, **o.msg}) for o in outs]


@dataclass
class Round:
    """One deal (CS-DEAL) and how far it got."""

    no: int
    starter: int
    deck: str
    hands: list[Counts]
    set_aside: str
    faceup: str | None
    pile: list[str]  # top first
    played: Counts = field(default_factory=lambda: [0] * len(RANKS))
    # CS-SEE-PUBLIC: the face-up cards each seat took and has not played since (known to both)
    known: list[Counts] = field(default_factory=lambda: [[0] * len(RANKS), [0] * len(RANKS)])
    trick: list[tuple[int, Combo]] = field(default_factory=list)
    winner: int | None = None
    loser_hand: str | None = None

    @classmethod
    def deal(cls, no: int, starter: int, deck: str, no_faceup: bool) -> Round:
        hands = [counts_of(deck[:HAND]), counts_of(deck[HAND : 2 * HAND])]
        rest = 2 * HAND + SET_ASIDE
        aside = text(counts_of(deck[2 * HAND : rest]))
        faceup = None if no_faceup else deck[rest]
        pile = list(deck[rest:] if no_faceup else deck[rest + 1 :])
        return cls(no, starter, deck, hands, aside, faceup, pile)

    def counts(self) -> list[int]:
        return [sum(h) for h in self.hands]

    def supply(self) -> int:
        return len(self.pile) + (self.faceup is not None)


@dataclass(frozen=True, slots=True)
class _Move:
    """A checked action: what it does once a timeout is made concrete (CS-TIMEOUT)."""

    do: str  # play, pass or draw
    combo: Combo | None = None
    take: str | None = None
    timeout: bool = False


class CrispsGame:
    def __init__(
        self,
        players: list[str],
        options: CrispsOptions | None = None,
        seed: int | None = None,
        fairness: Fairness | Committed | None = None,
        first_starter: int | None = None,
        decks: list[str] | None = None,
    ) -> None:
        if len(players) != SEATS or not all(isinstance(p, str) for p in players):
            raise ValueError("Crisps! is for exactly two players (CS-PLAYERS)")
        for i, deck in enumerate(decks or []):
            if not is_deck(deck):
                raise ValueError(f"decks[{i}] is not 40 cards holding each rank four times")
        if first_starter is not None and first_starter not in (0, 1):
            raise ValueError("first_starter is 0 or 1")
        self.players = list(players)
        self.options = options or CrispsOptions()
        self.seed = seed
        self.fairness = fairness
        self.dealing = Dealing(seed, fairness, decks, first_starter)
        self.points = [0, 0]
        self.rounds: list[Round] = []
        self.history: list[dict[str, Any]] = []
        self.actions: list[dict[str, Any]] = []
        self.over = False
        self.winner: int | None = None
        self.due: tuple[int, str] | None = None
        self.deadline: float | None = None
        self.now = 0.0

    # -- the public state ---------------------------------------------------------------------

    @property
    def round_no(self) -> int:
        return len(self.rounds)

    @property
    def round(self) -> Round:
        return self.rounds[-1]

    @property
    def started(self) -> bool:
        return bool(self.rounds)

    def next_deadline(self) -> float | None:
        return None if self.over else self.deadline

    # -- driving it ---------------------------------------------------------------------------

    def start(self) -> list[Out]:
        """Deal round 1 at game time 0 (CS-START, CS-DEAL)."""
        if self.rounds:
            raise ValueError("the game has started already")
        game: dict[str, Any] = {
            "type": "game",
            "game": "crisps",
            "players": list(self.players),
            "options": self.options.to_record(),
        }
        if self.fairness is not None:
            fair = self.fairness
            game["fairness"] = (fair.public() if isinstance(fair, Fairness) else fair).to_record()
        outs = [Out(None, game)]
        self._deal(0.0, outs)
        return _at(outs, 0.0)

    def apply(self, seat: int, action: dict[str, Any], t: float) -> list[Out]:
        """``seat``'s action at game time ``t``; raises ``CrispsRefusal``, changing nothing."""
        move = self._check(seat, action)
        t = max(t, self.now)
        if move.do == "play" and move.combo is not None:
            self._check_next_deck(seat, move.combo)
        record: dict[str, Any] = {"seat": seat, "do": action["do"]}
        if action["do"] == "play" and move.combo is not None:
            record["cards"] = move.combo.cards
        elif action["do"] == "draw":
            record["take"] = move.take
        record["t"] = t
        self.actions.append(record)
        self.now = t
        outs: list[Out] = []
        self._do(seat, move, t, outs)
        return _at(outs, t)

    def advance(self, t: float) -> list[Out]:
        """Every timeout due by ``t`` (CS-TIMER, CS-TIMEOUT), each at its own deadline."""
        outs: list[Out] = []
        while not self.over and self.due is not None and self.deadline is not None:
            if self.deadline > t:
                break
            outs += self.apply(self.due[0], {"do": "timeout"}, self.deadline)
        return outs

    def restart_clock(self, t: float) -> list[Out]:
        """After a pause: the due decision's time restarts in full at ``t``."""
        if self.over or self.due is None or self.options.timer is None:
            return []
        self.now = max(t, self.now)
        self.deadline = self.now + self.options.timer
        seat, need = self.due
        clock = {"type": "clock", "seat": seat, "need": need, "deadline": self.deadline}
        return _at([Out(None, clock)], self.now)

    # -- checking (docs/rules-crisps.md §10, in its order) -----------------------------------------

    def _check(self, seat: Any, action: Any) -> _Move:
        do = self._well_formed(seat, action)
        if self.over:
            raise CrispsRefusal("CS-GAME-END", "the game is over")
        if self.due is None or self.due[0] != seat:
            raise CrispsRefusal("CS-TURN", f"seat {seat} has no decision due")
        need = self.due[1]
        if do == "timeout":
            if self.options.timer is None:
                raise CrispsRefusal("CS-OPT-TIMER", "this game has no timer")
            return self._timeout_move(seat, need)
        if do == "draw" and self.options.no_faceup:
            why = "without a face-up card the draws are automatic"
            raise CrispsRefusal("CS-OPT-NO-FACEUP", why)
        if (do == "draw") != (need == "draw"):
            why = "no draw is due" if do == "draw" else "the trick's winner must choose a draw"
            raise CrispsRefusal("CS-DRAW", why)
        if do == "draw":
            return _Move("draw", take=action["take"])
        if do == "pass":
            if need == "lead":
                raise CrispsRefusal("CS-LEAD", "the leader may not pass")
            return _Move("pass")
        return _Move("play", combo=self._check_play(seat, need, parse(action["cards"])))

    def _well_formed(self, seat: Any, action: Any) -> str:
        if isinstance(seat, bool) or seat not in (0, 1):
            raise CrispsRefusal("CS-NOTATION", f"there is no seat {seat!r}: seats are 0 and 1")
        if not isinstance(action, dict) or action.get("do") not in DOS:
            raise CrispsRefusal("CS-NOTATION", "an action's do is play, pass, draw or timeout")
        do: str = action["do"]
        extra = set(action) - _KEYS[do]
        if extra:
            raise CrispsRefusal("CS-NOTATION", f"a {do} has no field {sorted(extra)[0]!r}")
        if do == "play":
            parse(action.get("cards"))  # CS-NOTATION
        if do == "draw" and action.get("take") not in TAKES:
            raise CrispsRefusal("CS-NOTATION", "a draw takes faceup or blind")
        return do

    def _check_play(self, seat: int, need: str, counts: Counts) -> Combo:
        if not contains(self.round.hands[seat], counts):
            raise CrispsRefusal("CS-HAND", f"seat {seat} does not hold {text(counts)}")
        combo = classify(counts, self.options.crisp_runs)
        if isinstance(combo, str):
            why = (
                "a Crisp may not be part of a run"
                if combo == "CS-CRISP-RUN"
                else f"{text(counts)} is no combination"
            )
            raise CrispsRefusal(combo, why)
        if need == "follow":
            broken = can_follow(self.round.trick[-1][1], combo)
            if broken is not None:
                prev = self.round.trick[-1][1].cards
                raise CrispsRefusal(broken, f"{combo.cards} may not follow {prev}")
        return combo

    def _timeout_move(self, seat: int, need: str) -> _Move:
        """CS-TIMEOUT: a leader plays their lowest card, a follower passes, a drawer takes the
        face-up card."""
        if need == "lead":
            hand = self.round.hands[seat]
            low = next(i for i, n in enumerate(hand) if n)
            single = [0] * len(RANKS)
            single[low] = 1
            combo = classify(single, self.options.crisp_runs)
            assert isinstance(combo, Combo)
            return _Move("play", combo=combo, timeout=True)
        if need == "follow":
            return _Move("pass", timeout=True)
        return _Move("draw", take="faceup", timeout=True)

    def _check_next_deck(self, seat: int, combo: Combo) -> None:
        """A play that ends a round, not the game, needs the next deck: find it before changing
        anything (a record with too few decks is refused as a whole, not half applied)."""
        if sum(self.round.hands[seat]) == combo.size and self.points[seat] + 1 < WIN_POINTS:
            self.dealing.deck(self.round_no + 1)

    # -- applying -----------------------------------------------------------------------------

    def _do(self, seat: int, move: _Move, t: float, outs: list[Out]) -> None:
        if move.do == "play" and move.combo is not None:
            self._play(seat, move.combo, t, move.timeout, outs)
        elif move.do == "pass":
            self._pass(seat, t, False, move.timeout, outs)
        else:
            self._draw(seat, move.take or "faceup", t, move.timeout, outs)

    def _play(self, seat: int, combo: Combo, t: float, timeout: bool, outs: list[Out]) -> None:
        rnd = self.round
        hand, need = rnd.hands[seat], combo_need(combo)
        for i, n in enumerate(need):
            hand[i] -= n
            rnd.played[i] += n
            rnd.known[seat][i] = max(0, rnd.known[seat][i] - n)
        rnd.trick.append((seat, combo))
        outs.append(
            Out(
                None,
                {
                    "type": "play",
                    "seat": seat,
                    **combo.wire(),
                    "hands": rnd.counts(),
                    "timeout": timeout,
                },
            )
        )
        if not any(hand):  # CS-OUT
            self._round_end(seat, t, outs)
            return
        other = 1 - seat
        pool = [4 - n for n in rnd.played]  # CS-OPT-SKIP: only played cards are gone
        if self.options.auto_skip and not followable(combo, pool, self.options.crisp_runs):
            self._pass(other, t, True, False, outs)
        else:
            self._set_due(other, "follow", t, outs)

    def _pass(self, seat: int, t: float, skipped: bool, timeout: bool, outs: list[Out]) -> None:
        rnd = self.round
        winner = 1 - seat  # CS-TRICK-WIN: the last play was the other seat's
        rnd.trick = []
        outs.append(
            Out(None, {"type": "pass", "seat": seat, "skipped": skipped, "timeout": timeout})
        )
        if rnd.supply() == 0:  # CS-DRAW-EMPTY
            self._set_due(winner, "lead", t, outs)
        elif self.options.no_faceup:  # CS-OPT-NO-FACEUP: both draw blind, by themselves
            mine, theirs = rnd.pile.pop(0), rnd.pile.pop(0)
            rnd.hands[winner][RANKS.index(mine)] += 1
            rnd.hands[seat][RANKS.index(theirs)] += 1
            public = {
                "type": "draw",
                "seat": winner,
                "take": None,
                "faceup": None,
                "new_faceup": None,
                "pile": len(rnd.pile),
                "hands": rnd.counts(),
                "timeout": False,
            }
            outs.append(Out(winner, {**public, "blind": mine}))
            outs.append(Out(seat, {**public, "blind": theirs}))
            outs.append(Out(WATCHERS, public))
            self._set_due(winner, "lead", t, outs)
        else:
            self._set_due(winner, "draw", t, outs)

    def _draw(self, winner: int, take: str, t: float, timeout: bool, outs: list[Out]) -> None:
        """CS-DRAW, CS-REFILL."""
        rnd = self.round
        passer = 1 - winner
        faceup, blind = rnd.faceup, rnd.pile.pop(0)
        assert faceup is not None
        gets_blind = winner if take == "blind" else passer
        rnd.hands[gets_blind][RANKS.index(blind)] += 1
        rnd.hands[1 - gets_blind][RANKS.index(faceup)] += 1
        rnd.known[1 - gets_blind][RANKS.index(faceup)] += 1
        rnd.faceup = rnd.pile.pop(0) if rnd.pile else None
        public = {
            "type": "draw",
            "seat": winner,
            "take": take,
            "faceup": faceup,
            "new_faceup": rnd.faceup,
            "pile": len(rnd.pile),
            "hands": rnd.counts(),
            "timeout": timeout,
        }
        outs.append(Out(gets_blind, {**public, "blind": blind}))
        outs.append(Out(~gets_blind, public))
        self._set_due(winner, "lead", t, outs)

    def _set_due(self, seat: int, need: str, t: float, outs: list[Out]) -> None:
        self.due = (seat, need)
        self.deadline = None if self.options.timer is None else t + self.options.timer
        turn = {"type": "turn", "seat": seat, "need": need, "deadline": self.deadline}
        outs.append(Out(seat, {**turn, **self.choices(seat)}))
        outs.append(Out(~seat, turn))

    def _round_end(self, seat: int, t: float, outs: list[Out]) -> None:
        """CS-OUT, CS-POINT, CS-SEE-END, CS-GAME-END."""
        rnd = self.round
        rnd.winner = seat
        rnd.loser_hand = text(rnd.hands[1 - seat])
        self.points[seat] += 1
        self.due, self.deadline = None, None
        self.history.append(
            {"round": rnd.no, "starter": rnd.starter, "winner": seat, "points": list(self.points)}
        )
        outs.append(
            Out(
                None,
                {
                    "type": "round_end",
                    "round": rnd.no,
                    "winner": seat,
                    "points": list(self.points),
                    "set_aside": rnd.set_aside,
                    "loser_hand": rnd.loser_hand,
                },
            )
        )
        if self.points[seat] >= WIN_POINTS:
            self.over, self.winner = True, seat
            over: dict[str, Any] = {
                "type": "game_over",
                "winner": seat,
                "points": list(self.points),
            }
            if self.fairness is not None:
                over["fairness"] = self.fairness_record()
            outs.append(Out(None, over))
        else:
            self._deal(t, outs)

    def _deal(self, t: float, outs: list[Out]) -> None:
        no = self.round_no + 1
        starter = self._starter(no)
        rnd = Round.deal(no, starter, self.dealing.deck(no), self.options.no_faceup)
        self.rounds.append(rnd)
        public = {
            "type": "round",
            "round": no,
            "starter": starter,
            "points": list(self.points),
            "hands": rnd.counts(),
            "set_aside": SET_ASIDE,
            "faceup": rnd.faceup,
            "pile": len(rnd.pile),
        }
        for seat in range(SEATS):
            outs.append(Out(seat, {**public, "hand": text(rnd.hands[seat])}))
        outs.append(Out(WATCHERS, public))
        self._set_due(starter, "lead", t, outs)

    def _starter(self, no: int) -> int:
        """CS-START: round 1's from the source; later, fewer points, else the other seat than
        the previous round's starter."""
        if no == 1:
            return self.dealing.first_starter()
        a, b = self.points
        if a != b:
            return 0 if a < b else 1
        return 1 - self.round.starter

    # -- what a seat may do and see -----------------------------------------------------------

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        """Every action ``seat`` may take now (a timeout is the clock's, not listed)."""
        choices = self.choices(seat)
        moves: list[dict[str, Any]] = [
            {"do": "play", "cards": c["cards"]} for c in choices["legal"]
        ]
        if choices["can_pass"]:
            moves.append({"do": "pass"})
        moves += [{"do": "draw", "take": take} for take in choices["take"]]
        return moves

    def legal_combos(self, seat: int) -> list[Combo]:
        if self.over or self.due is None or self.due[0] != seat or self.due[1] == "draw":
            return []
        hand = self.round.hands[seat]
        mine = combos_within(hand, self.options.crisp_runs)
        if self.due[1] == "lead":
            return list(mine)
        prev = self.round.trick[-1][1]
        return [c for c in mine if can_follow(prev, c) is None]

    def choices(self, seat: int) -> dict[str, Any]:
        due = not self.over and self.due is not None and self.due[0] == seat
        need = self.due[1] if due and self.due is not None else None
        return {
            "legal": [c.wire() for c in self.legal_combos(seat)],
            "can_pass": need == "follow",
            "take": list(TAKES) if need == "draw" else [],
        }

    def fairness_record(self) -> dict[str, Any] | None:
        """The record's ``fairness``: the commitment and client seeds, and the server seed once
        the game is over (docs/fairness.md)."""
        fair = self.fairness
        if fair is None:
            return None
        if isinstance(fair, Fairness) and not self.over:
            return fair.public().to_record()
        return fair.to_record()

    def view(self, seat: int | None) -> dict[str, Any]:
        from crisp.engine.crisps.views import view

        return view(self, seat)

    def record(self) -> dict[str, Any]:
        from crisp.engine.crisps.record import record_of

        return record_of(self)


def combo_need(combo: Combo) -> Counts:
    return counts_of(combo.cards)
