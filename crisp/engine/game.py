"""A game of Crisp: rounds in sequence, cumulative scores, the end of the game, the record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crisp.engine.actions import Action
from crisp.engine.cards import check_deck
from crisp.engine.errors import IllegalAction
from crisp.engine.knowledge import Knowledge
from crisp.engine.messages import Out
from crisp.engine.options import Options
from crisp.engine.rng import first_dealer, round_deck
from crisp.engine.round import Round
from crisp.engine.scoring import game_winners
from crisp.engine.timing import Ms, Seconds, Timing, to_ms, to_seconds
from crisp.engine.views import round_view

RECORD_FORMAT = "crisp-record/1"
MIN_PLAYERS, MAX_PLAYERS = 2, 8


class Game:
    """A whole game. Every method that changes it returns the messages it produced (``Out``)."""

    def __init__(
        self,
        players: Sequence[str],
        options: Options | None = None,
        *,
        seed: int | None = None,
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
        self.timing = timing or Timing()
        self.knowledge = Knowledge()
        self.rounds: list[Round] = []
        self.totals = [0] * self.n
        self.over = False
        self.winners: list[int] = []
        self._log: list[dict[str, Any]] = []  # the record's rounds
        self._settled = 0  # rounds whose scores are in the totals

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
            "over": self.over,
            "winners": list(self.winners),
        }
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
        elif self.seed is not None and dealer is None:
            expected = first_dealer(self.seed, self.n)
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
            if self.seed is None:
                raise ValueError("a round needs a deck order, or the game a seed")
            cards = round_deck(self.seed, number)
        else:
            cards = check_deck(deck)
        r = Round(number, self.n, dealer, cards, self.options, self.timing, self.knowledge)
        self.rounds.append(r)
        self._log.append({"dealer": dealer, "deck": list(cards), "actions": []})
        if number == 1:
            r.out.append(
                Out(
                    None,
                    {
                        "type": "game",
                        "t": 0.0,
                        "players": list(self.players),
                        "options": self.options.to_record(),
                    },
                )
            )
        r.deal_messages()
        return self._take_out()

    def apply(self, action: Action, t: Seconds) -> list[Out]:
        """Apply ``action`` at ``t`` seconds since the deal. Raises ``IllegalAction`` if refused."""
        return self.apply_ms(action, to_ms(t))

    def apply_ms(self, action: Action, ms: Ms) -> list[Out]:
        if self.over:
            raise IllegalAction("R-GAME-END", "the game is over")
        r = self.round
        if r.over:
            raise IllegalAction("R-FINAL-TURNS", "the round is over; the next deal comes first")
        try:
            r.apply(action, ms)
        except IllegalAction as err:
            self._note_end(r)
            err.outs = self._take_out()
            raise
        entry = action.to_record()
        self._log[-1]["actions"].append({"t": to_seconds(ms), **entry})
        return self._take_out()

    def advance(self, t: Seconds) -> list[Out]:
        """Apply every deadline up to ``t`` seconds since the deal."""
        return self.advance_ms(to_ms(t))

    def advance_ms(self, ms: Ms) -> list[Out]:
        if self.over or not self.rounds:
            return []
        r = self.round
        if r.over:
            return []
        r.advance(ms)
        self._note_end(r)
        return self._take_out()

    def _note_end(self, r: Round) -> None:
        """A round that a deadline ended after its last action keeps that time in the record."""
        if r.ended_at is not None:
            self._log[-1]["end"] = to_seconds(r.ended_at)

    def _settle(self) -> None:
        """Score a round that just ended, and end the game if a total reached the limit."""
        if self._settled == len(self.rounds) or not self.round.over:
            return
        r = self.round
        self._settled = len(self.rounds)
        scores = r.scores or []
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        ts = to_seconds(r.ended_at if r.ended_at is not None else r.now)
        r.out.append(
            Out(
                None,
                {
                    "type": "reveal",
                    "t": ts,
                    "caller": r.caller,
                    "hands": [list(h) for h in r.hands],
                    "scores": list(scores),
                    "totals": list(self.totals),
                },
            )
        )
        winners = game_winners(self.totals, self.options.limit)
        if winners is not None:
            self.over = True
            self.winners = winners
            r.out.append(
                Out(
                    None,
                    {
                        "type": "game_over",
                        "t": ts,
                        "totals": list(self.totals),
                        "winners": list(winners),
                    },
                )
            )

    def _take_out(self) -> list[Out]:
        self._settle()
        r = self.round
        out = r.out
        r.out = []
        return out

    # -- the record -------------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game so far as a ``crisp-record/1`` record (RECORD.md): it replays to this game."""
        return {
            "format": RECORD_FORMAT,
            "players": list(self.players),
            "options": self.options.to_record(),
            "rounds": [
                {**entry, "deck": list(entry["deck"]), "actions": list(entry["actions"])}
                for entry in self._log
            ],
        }

    def result(self) -> dict[str, Any]:
        """The result object of ``crisp replay`` (RECORD.md): the ended rounds and the totals."""
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
