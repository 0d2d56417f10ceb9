"""A game of Crisp: rounds in sequence, cumulative scores, the end of the game, the record."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from crisp.engine.common.fairness import SCHEME, Committed, Fairness
from crisp.engine.crisp import events as E
from crisp.engine.crisp.actions import Action
from crisp.engine.crisp.cards import check_deck
from crisp.engine.crisp.errors import IllegalAction
from crisp.engine.crisp.knowledge import Knowledge
from crisp.engine.crisp.lag import check_allowance
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.phase import OVER
from crisp.engine.crisp.round import Round
from crisp.engine.crisp.scoring import game_winners
from crisp.engine.crisp.shuffle import FairShuffle, LegacySeed
from crisp.engine.crisp.story import STORY_MOVES, Story
from crisp.engine.crisp.timing import Ms, Seconds, Timing, to_ms, to_seconds
from crisp.engine.crisp.views import round_view

RECORD_FORMAT = "crisp-record/1"
# The public moves a reconnecting phone's feed is rebuilt from (Game.feed), without their faces:
# a face is public only at the moment it lands on the pile (R-SEE-PUBLIC), never in a later view.
FEED = STORY_MOVES | {"round"}  # the round's own moves, and its start


def faceless(msg: Mapping[str, Any]) -> dict[str, Any]:
    """A public message without the card it names (R-SEE-PUBLIC: at the moment only)."""
    return {k: v for k, v in msg.items() if k != "card"}


Shuffle = FairShuffle | LegacySeed
#: R-PLAYERS: a table seats 2 to 8 players (the one number a server imports for its seats).
MIN_PLAYERS, MAX_PLAYERS = 2, 8


class Game:
    """A whole game. Every method that changes it returns the messages it produced (``Out``)."""

    def __init__(
        self,
        players: Sequence[str],
        options: Options | None = None,
        *,
        seed: int | None = None,
        fairness: Fairness | Committed | None = None,
        timing: Timing | None = None,
    ) -> None:
        names = list(players)
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise ValueError(f"Crisp is for 2 to 8 players (R-PLAYERS), not {len(names)}")
        if not all(isinstance(name, str) for name in names):
            raise ValueError("player names must be strings")
        self.players = names
        self.n = len(names)
        self.options = options or Options()
        self.seed = seed
        # The commit-reveal shuffle (fairness.py); a Committed one derives nothing (a replay).
        self.fairness = fairness
        self._shuffle = _shuffle(seed, fairness, self.n)
        self.timing = timing or Timing()
        self.knowledge = Knowledge()
        self.rounds: list[Round] = []
        self.totals = [0] * self.n
        self.over = False
        self.winners: list[int] = []
        self._log: list[dict[str, Any]] = []  # the record's rounds
        self._settled = 0  # rounds whose scores are in the totals
        self.history: list[dict[str, Any]] = []  # each settled round: its scores and the totals
        # The current round's messages, every audience, in order (read-only, shared with the
        # batches handed out): the feed is made from them when a view asks (``feed``), so a
        # change costs one list extend, not a copy of each public message.
        self._said: list[Out] = []
        self._story: Story | None = None  # the current round's, told at its reveal (story.py)
        self.absent: list[bool] = [False] * self.n  # seats whose draws time out (set_absent)
        self._pending_clock: list[dict[str, Any]] = []  # set between rounds, for the next deal

    # -- queries ----------------------------------------------------------------------------------

    @property
    def round(self) -> Round:
        if not self.rounds:
            raise IllegalAction("R-DEAL", "no round has been dealt yet")
        return self.rounds[-1]

    def next_deadline(self) -> float | None:
        """Seconds since the current deal at which ``advance`` will change the game, or None."""
        if not self.rounds or self.over:
            return None
        nxt = self.round.next_deadline()
        return None if nxt is None else to_seconds(nxt)

    def legal_actions(self, seat: int) -> list[Action]:
        if self.over or not self.rounds:
            return []
        return self.round.legal_actions(seat)

    def verify(self, action: Action, t: Seconds | None = None) -> None:
        """Raise ``IllegalAction`` if ``action`` is refused at ``t`` (None: now); change nothing."""
        if self.over:
            raise IllegalAction("R-GAME-END", "the game is over")
        r = self.round
        if t is not None:
            ms = to_ms(t)
            if ms < r.now:
                raise ValueError("time cannot go back")
            nxt = r.next_deadline()
            if nxt is not None and nxt <= ms:
                raise ValueError("a deadline falls before that time: advance() first")
            saved = r.now
            r.now = ms
            try:
                r.verify(action)
            finally:
                r.now = saved
            return
        r.verify(action)

    def can(self, action: Action, t: Seconds | None = None) -> bool:
        try:
            self.verify(action, t)
        except IllegalAction:
            return False
        return True

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees on reconnecting: nothing it may not see now."""
        view: dict[str, Any] = {
            "players": list(self.players),
            "options": self.options.to_record(),
            "totals": list(self.totals),
            "history": copy.deepcopy(self.history),
            "feed": copy.deepcopy(self.feed),  # faceless copies; their lists copied too
            "over": self.over,
            "winners": list(self.winners),
        }
        fair = self.fairness_record()
        if fair is not None:
            view["fairness"] = fair
        if self.rounds:
            view["round"] = round_view(self.round, seat)
        return view

    # -- changes ----------------------------------------------------------------------------------

    def start_round(
        self, deck: Sequence[str] | None = None, dealer: int | None = None
    ) -> list[Out]:
        """Deal the next round: from ``deck`` (top first) and ``dealer``, or from the seed."""
        if self.over:
            raise IllegalAction("R-GAME-END", "the game is over")
        if self.rounds and not self.round.over:
            raise IllegalAction("R-NO-CALL", "the current round has not ended")
        number = len(self.rounds) + 1
        expected: int | None = None
        if self.rounds:
            expected = (self.round.dealer + 1) % self.n
        elif self._shuffle is not None and dealer is None:
            expected = self._shuffle.first_dealer(self.n)
        if dealer is None:
            if expected is None:
                raise ValueError("the first round needs a dealer, or the game a seed")
            dealer = expected
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < self.n:
            raise ValueError(f"dealer must be a seat from 0 to {self.n - 1}, not {dealer!r}")
        if expected is not None and dealer != expected:
            raise IllegalAction(
                "R-DEALER", f"round {number}'s dealer is seat {expected}, not seat {dealer}"
            )
        if deck is None:
            if self._shuffle is None:
                raise ValueError("a round needs a deck order, or the game a seed")
            cards = self._shuffle.deck(number)
        else:
            cards = check_deck(deck)
        r = Round(number, self.n, dealer, cards, self.options, self.timing, self.knowledge)
        self._story = Story(number, dealer, r.hands)
        self.rounds.append(r)
        self._said = []
        self._log.append({"dealer": dealer, "deck": list(cards), "actions": []})
        if number == 1:
            game = E.GameEvent(
                t=0.0,
                players=list(self.players),
                options=self.options.to_record(),
                **self._fair_fields(),
            )
            r.out.append(Out.of(None, game))
        r.deal_messages()
        # Seats still absent from an earlier round time out from the start of this one.
        r.cutoff = [0 if away else None for away in self.absent]
        if self._pending_clock:
            self._log[-1]["clock"] = self._pending_clock
            self._pending_clock = []
        return self._take_out()

    def apply(self, action: Action, t: Seconds, *, allowance_ms: int = 0) -> list[Out]:
        """Apply ``action`` at ``t`` seconds since the deal. Raises ``IllegalAction`` if refused.
        ``allowance_ms`` (R-WINDOW-LAG): if the action ends its seat's turn, the crisp window it
        opens closes that much after the 3 s (the server's estimate of the seat's delay)."""
        return self.apply_ms(action, to_ms(t), allowance_ms=allowance_ms)

    def apply_ms(self, action: Action, ms: Ms, *, allowance_ms: int = 0) -> list[Out]:
        if self.over:
            raise IllegalAction("R-GAME-END", "the game is over")
        r = self.rounds[-1] if self.rounds else self.round  # the property says why not
        if r.phase is OVER:
            raise IllegalAction("R-FINAL-TURNS", "the round is over; the next deal comes first")
        try:
            if allowance_ms:  # R-WINDOW-LAG, for the window this action may open
                r.lag, r.lag_used = check_allowance(allowance_ms), 0
            r.apply(action, ms)
        except IllegalAction as err:
            r.lag = 0
            self._note_end(r)
            err.outs = self._take_out()
            raise
        entry = action.to_record()
        if allowance_ms:
            r.lag = 0
            if r.lag_used:
                entry["allowance_ms"] = r.lag_used
        self._log[-1]["actions"].append({"t": to_seconds(ms), **entry})
        return self._take_out()

    def advance(self, t: Seconds) -> list[Out]:
        """Apply every deadline up to ``t`` seconds since the deal."""
        return self.advance_ms(to_ms(t))

    def advance_ms(self, ms: Ms) -> list[Out]:
        if self.over or not self.rounds:
            return []
        r = self.rounds[-1]
        if r.phase is OVER:
            return []
        r.advance(ms)
        self._note_end(r)
        return self._take_out()

    # -- server hooks: absent seats and restarts (recorded in the round's "clock" list) ----------

    def set_absent(self, seat: int, until: Seconds | None, t: Seconds) -> list[Out]:
        """At ``t``, make ``seat`` absent: its draws time out from ``until`` (seconds since the
        deal, not before ``t``) even with no per-draw time; in later rounds, from their start.
        ``until=None``: the seat is back. For a host's grace for an absent player."""
        if self.over:
            raise IllegalAction("R-GAME-END", "the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise ValueError(f"seat must be from 0 to {self.n - 1}, not {seat!r}")
        ms = to_ms(t)
        cut = None if until is None else to_ms(until)
        if cut is not None and cut < ms:
            raise ValueError("an absence cannot start before now")
        if cut is not None and all(self.absent[s] for s in range(self.n) if s != seat):
            raise ValueError("at least one seat must stay present")
        outs = self.advance_ms(ms) if self.rounds else []
        self.absent[seat] = cut is not None
        entry: dict[str, Any] = {"do": "absent", "seat": seat}
        if not self.rounds or self.round.over:  # for the next deal, from its start
            until_next = None if cut is None else 0.0
            self._pending_clock.append({"after": 0, "t": 0.0, **entry, "until": until_next})
            return outs
        self.round.set_absent(seat, cut)
        self._clock_entry(ms, {**entry, "until": None if cut is None else to_seconds(cut)})
        return outs + self._take_out()

    def restart_clock(self, t: Seconds) -> list[Out]:
        """At ``t``, after the server restarted: the current draw's time restarts in full."""
        if self.over or not self.rounds or self.round.over:
            return []
        ms = to_ms(t)
        outs = self.advance_ms(ms)
        r = self.round
        if r.over or r.deadline is None or r.timer_ms is None:
            return outs
        r.restart_clock()
        self._clock_entry(ms, {"do": "restart"})
        return outs + self._take_out()

    def _clock_entry(self, ms: Ms, entry: dict[str, Any]) -> None:
        log = self._log[-1]
        log.setdefault("clock", []).append(
            {"after": len(log["actions"]), "t": to_seconds(ms), **entry}
        )

    def _note_end(self, r: Round) -> None:
        """A round that a deadline ended after its last action keeps that time in the record."""
        if r.ended_at is not None:
            self._log[-1]["end"] = to_seconds(r.ended_at)

    @property
    def feed(self) -> list[dict[str, Any]]:
        """The current round's public moves (``FEED``) in order, without their faces: what a
        reconnecting phone's move feed is rebuilt from. New dicts each time (faces stripped now,
        when a view is built, not as each message is made)."""
        return [faceless(o.msg) for o in self._said if o.for_seat(None) and o.msg["type"] in FEED]

    def _settle(self, r: Round) -> None:
        """Score ``r``, the round that just ended, and end the game if a total reached the
        limit."""
        if self._story is not None:  # R-SEE-STORY: the round's moves, read once it is over
            self._story.note(self._said)
            self._story.note(r.out)  # this change's, before the reveal
        self._settled = len(self.rounds)
        scores = r.scores or []
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        self.history.append(
            {"round": r.number, "scores": list(scores), "totals": list(self.totals)}
        )
        ts = to_seconds(r.ended_at if r.ended_at is not None else r.now)
        assert r.caller is not None  # R-NO-CALL: only a call ends a round
        hands = [list(h) for h in r.hands]
        reveal = E.RevealEvent(
            t=ts, caller=r.caller, hands=hands, scores=list(scores), totals=list(self.totals)
        )
        r.out.append(Out.of(None, reveal))
        if self._story is not None:  # R-SEE-STORY: the round told again, now face up
            r.out.append(Out.of(None, self._story.event(ts)))
        winners = game_winners(self.totals, self.options.limit)
        if winners is not None:
            self.over = True
            self.winners = winners
            over = E.GameOverEvent(
                t=ts, totals=list(self.totals), winners=list(winners), **self._fair_fields()
            )
            r.out.append(Out.of(None, over))

    def _take_out(self) -> list[Out]:
        """The messages of the change just made (a new list each time); the round's log keeps
        them for the feed."""
        r = self.rounds[-1]
        if r.phase is OVER and self._settled != len(self.rounds):
            self._settle(r)
        out = r.out
        r.out = []
        self._said += out
        return out

    # -- the record -------------------------------------------------------------------------------

    def _fair_fields(self) -> dict[str, Any]:
        """The fairness fields of the ``game`` message (the commitment and the client seeds) and,
        once the game is over, of ``game_over`` (the server seed); none without a Fairness."""
        fair = self.fairness_record()
        if fair is None:
            return {}
        if not self.over:
            return fair  # {"commitment", "client_seeds"}
        return {"server_seed": fair["server_seed"]} if "server_seed" in fair else {}

    def fairness_record(self) -> dict[str, Any] | None:
        """The record's ``fairness`` object: the server seed only once the game is over."""
        fair = self.fairness
        if fair is None:
            return None
        if isinstance(fair, Fairness) and not self.over:
            fair = fair.public()
        return fair.to_record()

    def record(self) -> dict[str, Any]:
        """The game so far as a ``crisp-record/1`` record (docs/record.md): it replays to this
        game."""
        fair = self.fairness_record()
        return {
            "format": RECORD_FORMAT,
            "players": list(self.players),
            "options": self.options.to_record(),
            **({} if fair is None else {"shuffle": SCHEME, "fairness": fair}),
            "rounds": [
                {
                    **entry,
                    "deck": list(entry["deck"]),
                    "actions": list(entry["actions"]),
                    **({"clock": [dict(c) for c in entry["clock"]]} if "clock" in entry else {}),
                }
                for entry in self._log
            ],
        }

    def result(self) -> dict[str, Any]:
        """The result object of ``crisp replay`` (docs/record.md): the ended rounds, the totals."""
        rounds = [
            {
                "dealer": r.dealer,
                "caller": r.caller,
                "hands": [list(h) for h in r.hands],
                "scores": list(r.scores or []),
            }
            for r in self.rounds
            if r.over
        ]
        return {
            "rounds": rounds,
            "totals": list(self.totals),
            "over": self.over,
            "winners": list(self.winners),
        }


def _shuffle(seed: int | None, fairness: Fairness | Committed | None, n: int) -> Shuffle | None:
    """What derives the dealers and decks: the SplitMix64 seed of old records, a Fairness, or
    nothing (every round's deck and the first dealer given)."""
    if fairness is not None:
        if seed is not None:
            raise ValueError("a game has a seed or a fairness, not both")
        if len(fairness.client_seeds) != n:
            raise ValueError(f"{len(fairness.client_seeds)} client seeds for {n} seats")
        return FairShuffle(fairness) if isinstance(fairness, Fairness) else None
    return None if seed is None else LegacySeed(seed)
