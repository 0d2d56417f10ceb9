"""One round of Crisp: the deal, the look, turns, specials, the crisp window, the clock, the reveal.

Times are milliseconds since the deal (``Ms``). ``advance(t)`` applies every deadline up to ``t``;
``apply(action, t)`` advances, verifies (``legality.verify``) and only then changes anything.
Every change appends ``Out`` messages to ``self.out``, which the game hands on and empties.
"""

from __future__ import annotations

from crisp.engine.crisp import actions as A
from crisp.engine.crisp import events as E
from crisp.engine.crisp.cards import LOOKABLE, MIDDLE, SLOTS
from crisp.engine.crisp.knowledge import Knowledge
from crisp.engine.crisp.legality import legal_actions, verify
from crisp.engine.crisp.messages import Out
from crisp.engine.crisp.options import Options
from crisp.engine.crisp.phase import LOOK, OVER, PLAY
from crisp.engine.crisp.scoring import round_scores
from crisp.engine.crisp.timing import Ms, Timing, to_seconds

_new_out = tuple.__new__


class Round:
    """The state of one round and the transitions between its states."""

    def __init__(
        self,
        number: int,
        players: int,
        dealer: int,
        deck: list[str],
        options: Options,
        timing: Timing,
        knowledge: Knowledge,
    ) -> None:
        n = players
        self.number = number
        self.n = n
        self.dealer = dealer
        self.first = (dealer + 1) % n  # R-FIRST
        self.options = options
        self.timing = timing
        self.timer_ms: int | None = (
            None if options.timer is None else options.timer * timing.timer_ms_per_s
        )
        self.knowledge = knowledge
        # R-DEAL: one card at a time, three passes, starting after the dealer: left, middle, right.
        hands: list[list[str]] = [["", "", ""] for _ in range(n)]
        i = 0
        for slot in range(3):
            for k in range(n):
                hands[(self.first + k) % n][slot] = deck[i]
                i += 1
        self.hands = hands
        self.deck: list[str] = deck[i:][::-1]  # the top of the deck is the end of the list
        self.pile: list[str] = []  # the top of the pile is the end of the list
        self.phase = LOOK
        self.now: Ms = 0
        self.ready = [False] * n
        self.unready = n
        self.look_until: Ms = timing.look_ms
        self.turn = self.first
        self.held: str | None = None  # the card drawn and not yet played
        self.draw_no = 0  # 1-based index of the current draw in the turn
        self.left = 0  # draws left in the turn, the current one included
        self.started = False  # something was drawn or taken this turn
        self.due: Ms = timing.look_ms  # when the current draw became (or becomes) due
        self.deadline: Ms | None = None  # R-TIMER
        # Seats absent with a host's grace: their draws time out at this time (or when due, if
        # later) even with no per-draw time. None: present. Set by the server (set_absent).
        self.cutoff: list[Ms | None] = [None] * n
        self.window_seat: int | None = None  # R-WINDOW
        self.window_until: Ms = 0
        # R-WINDOW-LAG: the allowance (ms) of the action being applied, set by the game around
        # ``apply``, and the one the last turn end added to its crisp window (for the record).
        self.lag: int = 0
        self.lag_used: int = 0
        self.ended: dict[int, str] = {}  # how each seat's last turn ended: "turn" or "timeout"
        self.last_ender: int | None = None
        # The seat whose crisp window the latest turn's end closed early (R-WINDOW), or None.
        self.closed_early: int | None = None
        self.caller: int | None = None
        self.final_left = 0
        self.final_seats: list[int] = []
        self.open_looks: list[tuple[int, int, str, str]] = []  # (seat, slot, card, why)
        self.scores: list[int] | None = None
        self.ended_at: Ms | None = None  # when the round ended (the reveal)
        self.out: list[Out] = []

    # -- the deal ---------------------------------------------------------------------------------

    def deal_messages(self) -> None:
        """The deal's messages: the round for everyone, then each seat's start look."""
        self._say(
            E.RoundEvent(
                t=to_seconds(self.now),
                round=self.number,
                dealer=self.dealer,
                first=self.first,
                deck=len(self.deck),
                look_until=to_seconds(self.look_until),
            )
        )
        for seat in range(self.n):
            for slot in LOOKABLE:  # R-LOOK-START; open while the look phase lasts (views.py)
                self._look_now(seat, slot, "deal", keep=False)

    # -- queries ----------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase is OVER

    def next_deadline(self) -> Ms | None:
        """The next time at which ``advance`` changes the round, or None."""
        if self.phase is LOOK:
            return self.look_until
        if self.phase is not PLAY:
            return None
        nxt = self.window_until if self.window_seat is not None else None
        if self.deadline is not None and (nxt is None or self.deadline < nxt):
            nxt = self.deadline
        return nxt

    def legal_actions(self, seat: int) -> list[A.Action]:
        return legal_actions(self, seat)

    def cards(self) -> list[str]:
        """Every card of the round, wherever it lies (always the 52: R-DECK)."""
        held = [self.held] if self.held is not None else []
        return [c for h in self.hands for c in h] + self.deck + self.pile + held

    # -- time -------------------------------------------------------------------------------------

    def advance(self, t: Ms) -> None:
        """Apply every deadline at or before ``t`` in time order, then stand at ``t``."""
        if t < self.now:
            raise ValueError(f"time cannot go back: {to_seconds(t)} s < {to_seconds(self.now)} s")
        while True:
            nxt = self.next_deadline()
            if nxt is None or nxt > t:
                break
            self.now = nxt
            if self.phase is LOOK:
                self._end_look()
            elif self.window_seat is not None and self.window_until == nxt:
                self._close_window()  # on a tie with a timeout, the window closes first
            else:
                self._timeout()
        self.now = t

    def _end_look(self) -> None:
        """R-LOOK-PHASE: the look is over; the first turn is due now."""
        self.open_looks = []
        self.phase = PLAY
        self._begin_turn(self.first, self.now)

    def _close_window(self) -> None:
        """R-WINDOW: the open crisp window closes with no call (its 3 s passed, or the next
        player's turn ended first)."""
        self.open_looks = []
        seat = self.window_seat
        assert seat is not None
        self.window_seat = None
        self._say(E.WindowClosedEvent(to_seconds(self.now), seat))

    def _timeout(self) -> None:
        """R-TIMEOUT: the player loses the rest of the turn, with no crisp window."""
        self.open_looks = []
        lost = self.left - 1
        if self.held is not None:
            card: str | None = self._play_off()
        elif not self.started:
            # Nothing drawn yet: the top card is drawn and discarded for the player.
            card = self._pop_deck()
            self._to_pile(card)
        else:
            card = None
            lost = self.left  # between extra draws: every remaining one is lost
        self.deadline = None
        self._say(E.TimeoutEvent(to_seconds(self.now), self.turn, card, lost))
        self._end_turn(timed_out=True)

    # -- actions ----------------------------------------------------------------------------------

    def verify(self, action: A.Action) -> None:
        verify(self, action)

    def apply(self, action: A.Action, t: Ms) -> None:
        """Advance to ``t``, verify ``action`` and apply it. A refused action changes nothing."""
        self.advance(t)
        verify(self, action)
        if self.open_looks:
            self.open_looks = []
        kind = type(action)
        if kind is A.Draw:
            self._draw()
        elif kind is A.Swap or kind is A.TakeDiscard:
            self._swap(action.slot, kind is A.TakeDiscard)  # type: ignore[attr-defined]
        elif kind is A.Discard:
            self._say(E.DiscardEvent(to_seconds(self.now), self.turn, self._play_off()))
            self._resolved()
        elif kind is A.Ready:
            self._ready(action.seat)
        elif kind is A.Crisp:
            self._crisp(action.seat)
        elif kind is A.Jack:
            self._say(E.JackEvent(to_seconds(self.now), self.turn, self._play_off()))
            self._look_now(self.turn, MIDDLE, "jack")  # R-JACK
            self._resolved()
        elif kind is A.Queen:
            assert isinstance(action, A.Queen)
            self._queen(action.slot, action.target, action.target_slot)
        elif kind is A.King:
            card = self._play_off()
            self.left += 2  # R-KING
            self._say(E.KingEvent(to_seconds(self.now), self.turn, card, self.left - 1))
            self._resolved()

    def _ready(self, seat: int) -> None:
        self.ready[seat] = True
        self.unready -= 1
        self._say(E.ReadyEvent(to_seconds(self.now), seat))
        if self.unready == 0:
            self.phase = PLAY
            self._begin_turn(self.first, self.now)

    def _draw(self) -> None:
        """R-DRAW: the top card, seen by the drawer only (R-SEE-DRAWN)."""
        seat = self.turn
        card = self._pop_deck()
        self.held = card
        self.started = True
        self.knowledge.saw(self.number, self.now, card, seat, "draw")
        ts = to_seconds(self.now)
        count = len(self.deck)
        mine, theirs = E.DrawEvent(ts, seat, count, card), E.DrawEvent(ts, seat, count)
        self.out += (Out.of(seat, mine), Out.of(~seat, theirs))

    def _swap(self, slot: int, take: bool) -> None:
        """R-SWAP (the drawn card) or R-TAKE-DISCARD (the pile's top) into ``slot``; the
        replaced card lands face up on the pile."""
        seat = self.turn
        hand = self.hands[seat]
        old = hand[slot]
        if take:
            hand[slot] = self.pile.pop()
            self.started = True
        else:
            card = self.held
            assert card is not None
            hand[slot] = card
            self.held = None
        self._to_pile(old)
        kind = E.TakeEvent if take else E.SwapEvent
        self._say(kind(to_seconds(self.now), seat, SLOTS[slot], old))
        self._resolved()

    def _queen(self, slot: int, target: int, target_slot: int) -> None:
        """R-QUEEN: a blind swap; which two slots is public."""
        seat = self.turn
        card = self._play_off()
        mine, theirs = self.hands[seat], self.hands[target]
        mine[slot], theirs[target_slot] = theirs[target_slot], mine[slot]
        self._say(
            E.QueenEvent(
                t=to_seconds(self.now),
                seat=seat,
                slot=SLOTS[slot],
                target=target,
                target_slot=SLOTS[target_slot],
                card=card,
            )
        )
        # R-QUEEN-LOOK: a card arriving in a left or right slot is looked at, by either player.
        if slot in LOOKABLE:
            self._look_now(seat, slot, "queen")
        if target_slot in LOOKABLE:
            self._look_now(target, target_slot, "queen")
        self._resolved()

    def _crisp(self, seat: int) -> None:
        """R-CRISP, R-FINAL-TURNS: every other seat plays one final turn, after the caller."""
        self.caller = seat
        self.window_seat = None
        self.final_left = self.n - 1
        self.final_seats = [(seat + k) % self.n for k in range(1, self.n)]
        self._say(E.CrispEvent(to_seconds(self.now), seat, list(self.final_seats)))

    # -- transitions ------------------------------------------------------------------------------

    def _say(self, event: E.Event) -> None:
        """A message to everyone (``Out.of(None, event)``, inlined: the engine's hottest path)."""
        self.out.append(_new_out(Out, (None, event._wire, event)))

    def _pop_deck(self) -> str:
        if not self.deck:
            # R-RECYCLE: the pile turned over, unshuffled: the first card discarded is on top.
            self.pile.reverse()
            self.deck, self.pile = self.pile, []
            self._say(E.RecycleEvent(to_seconds(self.now), len(self.deck)))
        return self.deck.pop()

    def _play_off(self) -> str:
        """The drawn card leaves the player's hands, face up onto the pile."""
        card = self.held
        assert card is not None
        self.held = None
        self._to_pile(card)
        return card

    def _to_pile(self, card: str) -> None:
        self.pile.append(card)
        self.knowledge.saw(self.number, self.now, card, None, "pile")  # R-SEE-PUBLIC

    def _look_now(self, seat: int, slot: int, why: E.LookWhy, keep: bool = True) -> None:
        """R-SEE-LOOK: ``seat`` looks once at its own ``slot``, now, privately; the look stays
        open (for a reconnect) until the next change of the game if ``keep``."""
        card = self.hands[seat][slot]
        self.knowledge.saw(self.number, self.now, card, seat, why)
        if keep:
            self.open_looks.append((seat, slot, card, why))
        look = E.LookEvent(to_seconds(self.now), seat, SLOTS[slot], card, why)
        self.out.append(Out.of(seat, look))

    def _resolved(self) -> None:
        """A draw is resolved: the next extra draw is due now, or the turn is over."""
        self.left -= 1
        if self.left > 0:
            self.draw_no += 1
            self._due(self.now)
        else:
            self._end_turn(timed_out=False)

    def _begin_turn(self, seat: int, at: Ms) -> None:
        self.turn = seat
        self.held = None
        self.started = False
        self.draw_no = 1
        self.left = 1
        self._due(at)

    def _deadline_from(self, at: Ms) -> Ms | None:
        """The deadline of a draw due at ``at``: the per-draw time (R-TIMER), or sooner the end
        of an absent seat's grace (never before the draw is due)."""
        timer = self.timer_ms
        deadline = None if timer is None else at + timer
        cutoff = self.cutoff[self.turn]
        if cutoff is not None:
            # Never before the draw is due, nor before the previous player's crisp window ends.
            end = max(at, cutoff, self.window_until if self.window_seat is not None else 0)
            deadline = end if deadline is None else min(deadline, end)
        return deadline

    def set_absent(self, seat: int, until: Ms | None) -> None:
        """A server hook: ``seat`` is absent and its draws time out from ``until`` (None: it is
        back). The current draw's deadline follows at once; a ``clock`` message says so."""
        self.cutoff[seat] = until
        if self.phase is PLAY and self.turn == seat:
            self._reset_deadline(self._deadline_from(self.due))

    def restart_clock(self) -> None:
        """A server hook, after a restart of the server: the current draw's time restarts in
        full from now (no one is timed out by the downtime)."""
        if self.phase is PLAY and self.deadline is not None:
            self._reset_deadline(self._deadline_from(max(self.due, self.now)))

    def _reset_deadline(self, deadline: Ms | None) -> None:
        if deadline == self.deadline:
            return
        self.open_looks = []  # a change of the game: a Jack's or Queen's look is over
        self.deadline = deadline
        when = None if deadline is None else to_seconds(deadline)
        self._say(E.ClockEvent(to_seconds(self.now), self.turn, when))

    def _due(self, at: Ms) -> None:
        """A draw becomes due at ``at`` (R-TIMER counts from then)."""
        self.due = at
        self.deadline = self._deadline_from(at)
        self._say(
            E.TurnEvent(  # positional, as every event of a hot path: t, seat, draw, left, …
                to_seconds(self.now),
                self.turn,
                self.draw_no,
                self.left,
                to_seconds(at),
                None if self.deadline is None else to_seconds(self.deadline),
                self.caller is not None,  # final
            )
        )

    def _end_turn(self, timed_out: bool) -> None:
        seat = self.turn
        now = self.now
        self.deadline = None
        self.closed_early = early = self.window_seat
        if early is not None:  # R-WINDOW: the previous player's window closes as this turn ends
            self.window_seat = None
            self._say(E.WindowClosedEvent(to_seconds(self.now), early))
        self.ended[seat] = "timeout" if timed_out else "turn"
        self.last_ender = seat
        window: Ms | None = None
        if self.caller is not None:
            self.final_left -= 1
            start = now  # R-WINDOW-NONE
        elif timed_out:
            start = now  # R-WINDOW-NONE
        else:
            window = now + self.timing.window_ms + self.lag  # R-WINDOW-LAG
            if self.lag:
                self.lag_used = self.lag
            self.window_seat = seat
            self.window_until = window
            start = now + self.timing.start_ms
        done = self.caller is not None and self.final_left == 0
        nxt = (seat + 1) % self.n
        self._say(
            E.TurnEndEvent(
                to_seconds(self.now),
                seat,
                None if window is None else to_seconds(window),  # window_until
                None if done else nxt,  # next
                None if done else to_seconds(start),  # next_at
            )
        )
        if done:
            self._reveal()
        else:
            self._begin_turn(nxt, start)

    def _reveal(self) -> None:
        """R-FINAL-TURNS, R-SEE-REVEAL, R-ROUND-SCORE: every hand face up, the round scored."""
        self.phase = OVER
        self.ended_at = self.now
        self.held = None
        self.deadline = None
        self.window_seat = None
        self.scores = round_scores(self.hands, self.caller)
        for hand in self.hands:
            for card in hand:
                self.knowledge.saw(self.number, self.now, card, None, "reveal")

    @property
    def phase_name(self) -> str:
        return self.phase.value
