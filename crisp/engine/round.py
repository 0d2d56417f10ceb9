"""One round of Crisp: the deal, the look, turns, specials, the crisp window, the clock, the reveal.

Times are milliseconds since the deal (``Ms``). ``advance(t)`` applies every deadline up to ``t``;
``apply(action, t)`` advances, verifies (``legality.verify``) and only then changes anything.
Every change appends ``Out`` messages to ``self.out``; the caller takes them with ``take_out()``.
"""

from __future__ import annotations

from crisp.engine import actions as A
from crisp.engine.cards import SLOTS
from crisp.engine.knowledge import Knowledge
from crisp.engine.legality import LOOK, OVER, PLAY, legal_actions, verify
from crisp.engine.messages import Message, Out
from crisp.engine.options import Options
from crisp.engine.scoring import round_scores
from crisp.engine.timing import Ms, Timing, to_seconds

PHASE_NAMES = ("look", "play", "over")


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
        self.deck_order: tuple[str, ...] = tuple(deck)
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
        self.window_seat: int | None = None  # R-WINDOW
        self.window_until: Ms = 0
        self.ended: dict[int, str] = {}  # how each seat's last turn ended: "turn" or "timeout"
        self.last_ender: int | None = None
        self.caller: int | None = None
        self.final_left = 0
        self.final_seats: list[int] = []
        self.open_looks: list[tuple[int, int, str, str]] = []  # (seat, slot, card, why)
        self.scores: list[int] | None = None
        self.out: list[Out] = []

    # -- the deal ---------------------------------------------------------------------------------

    def deal_messages(self) -> None:
        """The deal's messages: the round for everyone, then each seat's start look."""
        self.out.append(
            Out(
                None,
                {
                    "type": "round",
                    "t": 0.0,
                    "round": self.number,
                    "dealer": self.dealer,
                    "first": self.first,
                    "deck": len(self.deck),
                    "look_until": to_seconds(self.look_until),
                },
            )
        )
        saw = self.knowledge.saw
        for seat, hand in enumerate(self.hands):
            for slot in (0, 2):  # R-LOOK-START
                card = hand[slot]
                saw(self.number, 0, card, seat, "deal")
                self.out.append(Out(seat, self._look(seat, slot, card, "deal", 0.0)))

    # -- queries ----------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def next_deadline(self) -> Ms | None:
        """The next time at which ``advance`` changes the round, or None."""
        if self.phase == LOOK:
            return self.look_until
        if self.phase != PLAY:
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
            phase = self.phase
            if phase == PLAY:
                nxt: Ms | None = self.window_until if self.window_seat is not None else None
                deadline = self.deadline
                if deadline is not None and (nxt is None or deadline < nxt):
                    if deadline > t:
                        break
                    self.now = deadline
                    self._timeout()
                    continue
                if nxt is None or nxt > t:
                    break
                self.now = nxt
                self._close_window()
            elif phase == LOOK and self.look_until <= t:
                self.now = self.look_until
                self._end_look()
            else:
                break
        self.now = t

    def _end_look(self) -> None:
        """R-LOOK-PHASE: the look is over; the first turn is due now."""
        self.open_looks = []
        self.phase = PLAY
        self._begin_turn(self.first, self.now)

    def _close_window(self) -> None:
        self.open_looks = []
        seat = self.window_seat
        self.window_seat = None
        self.out.append(
            Out(None, {"type": "window_closed", "t": to_seconds(self.now), "seat": seat})
        )

    def _timeout(self) -> None:
        """R-TIMEOUT: the player loses the rest of the turn, with no crisp window."""
        self.open_looks = []
        seat = self.turn
        card = self.held
        lost = self.left - 1
        if card is not None:
            self.held = None
        elif not self.started:
            card = self._pop_deck()
            # The deck's top is drawn and discarded for the player: it lands face up.
        else:
            lost = self.left
        self.deadline = None
        if card is not None:
            self._to_pile(card)
        self.out.append(
            Out(
                None,
                {
                    "type": "timeout",
                    "t": to_seconds(self.now),
                    "seat": seat,
                    "card": card,
                    "lost": lost,
                },
            )
        )
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
        elif kind is A.Swap:
            self._swap(action.slot)  # type: ignore[attr-defined]
        elif kind is A.Discard:
            self._discard()
        elif kind is A.Ready:
            self._ready(action.seat)
        elif kind is A.Crisp:
            self._crisp(action.seat)
        elif kind is A.Jack:
            self._jack()
        elif kind is A.Queen:
            assert isinstance(action, A.Queen)
            self._queen(action.slot, action.target, action.target_slot)
        elif kind is A.King:
            self._king()
        elif kind is A.TakeDiscard:
            self._take(action.slot)  # type: ignore[attr-defined]

    def _ready(self, seat: int) -> None:
        self.ready[seat] = True
        self.unready -= 1
        self.out.append(Out(None, {"type": "ready", "t": to_seconds(self.now), "seat": seat}))
        if self.unready == 0:
            self.phase = PLAY
            self._begin_turn(self.first, self.now)

    def _draw(self) -> None:
        seat = self.turn
        card = self._pop_deck()
        self.held = card
        self.started = True
        self.knowledge.saw(self.number, self.now, card, seat, "draw")  # R-SEE-DRAWN
        ts = to_seconds(self.now)
        count = len(self.deck)
        self.out.append(
            Out(seat, {"type": "draw", "t": ts, "seat": seat, "deck": count, "card": card})
        )
        self.out.append(Out(~seat, {"type": "draw", "t": ts, "seat": seat, "deck": count}))

    def _swap(self, slot: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        old = hand[slot]
        card = self.held
        assert card is not None
        hand[slot] = card
        self.held = None
        self._to_pile(old)
        self.out.append(
            Out(
                None,
                {
                    "type": "swap",
                    "t": to_seconds(self.now),
                    "seat": seat,
                    "slot": SLOTS[slot],
                    "card": old,
                },
            )
        )
        self._resolved()

    def _discard(self) -> None:
        card = self.held
        assert card is not None
        self.held = None
        self._to_pile(card)
        self.out.append(
            Out(
                None,
                {"type": "discard", "t": to_seconds(self.now), "seat": self.turn, "card": card},
            )
        )
        self._resolved()

    def _jack(self) -> None:
        seat = self.turn
        card = self.held
        assert card is not None
        self.held = None
        self._to_pile(card)
        ts = to_seconds(self.now)
        self.out.append(Out(None, {"type": "jack", "t": ts, "seat": seat, "card": card}))
        self._look_now(seat, 1, "jack", ts)  # R-JACK
        self._resolved()

    def _queen(self, slot: int, target: int, target_slot: int) -> None:
        seat = self.turn
        card = self.held
        assert card is not None
        self.held = None
        mine, theirs = self.hands[seat], self.hands[target]
        mine[slot], theirs[target_slot] = theirs[target_slot], mine[slot]
        self._to_pile(card)
        ts = to_seconds(self.now)
        self.out.append(
            Out(
                None,
                {
                    "type": "queen",
                    "t": ts,
                    "seat": seat,
                    "slot": SLOTS[slot],
                    "target": target,
                    "target_slot": SLOTS[target_slot],
                    "card": card,
                },
            )
        )
        # R-QUEEN-LOOK: a card arriving in a left or right slot is looked at, by either player.
        if slot != 1:
            self._look_now(seat, slot, "queen", ts)
        if target_slot != 1:
            self._look_now(target, target_slot, "queen", ts)
        self._resolved()

    def _king(self) -> None:
        seat = self.turn
        card = self.held
        assert card is not None
        self.held = None
        self._to_pile(card)
        self.left += 2  # R-KING
        self.out.append(
            Out(
                None,
                {
                    "type": "king",
                    "t": to_seconds(self.now),
                    "seat": seat,
                    "card": card,
                    "left": self.left - 1,
                },
            )
        )
        self._resolved()

    def _take(self, slot: int) -> None:
        """R-TAKE-DISCARD: the top of the pile into ``slot``; the replaced card onto the pile."""
        seat = self.turn
        taken = self.pile.pop()
        hand = self.hands[seat]
        old = hand[slot]
        hand[slot] = taken
        self.started = True
        self._to_pile(old)
        self.out.append(
            Out(
                None,
                {
                    "type": "take",
                    "t": to_seconds(self.now),
                    "seat": seat,
                    "slot": SLOTS[slot],
                    "card": old,
                },
            )
        )
        self._resolved()

    def _crisp(self, seat: int) -> None:
        """R-CRISP, R-FINAL-TURNS: every other seat plays one final turn, after the caller."""
        self.caller = seat
        self.window_seat = None
        self.final_left = self.n - 1
        self.final_seats = [(seat + k) % self.n for k in range(1, self.n)]
        self.out.append(
            Out(
                None,
                {
                    "type": "crisp",
                    "t": to_seconds(self.now),
                    "seat": seat,
                    "final": list(self.final_seats),
                },
            )
        )

    # -- transitions ------------------------------------------------------------------------------

    def _pop_deck(self) -> str:
        if not self.deck:
            # R-RECYCLE: the pile turned over, unshuffled: the first card discarded is on top.
            self.pile.reverse()
            self.deck, self.pile = self.pile, []
            self.out.append(
                Out(None, {"type": "recycle", "t": to_seconds(self.now), "deck": len(self.deck)})
            )
        return self.deck.pop()

    def _to_pile(self, card: str) -> None:
        self.pile.append(card)
        self.knowledge.saw(self.number, self.now, card, None, "pile")  # R-SEE-PUBLIC

    def _look(self, seat: int, slot: int, card: str, why: str, ts: float) -> Message:
        return {
            "type": "look",
            "t": ts,
            "seat": seat,
            "slot": SLOTS[slot],
            "card": card,
            "why": why,
        }

    def _look_now(self, seat: int, slot: int, why: str, ts: float) -> None:
        """R-SEE-LOOK: ``seat`` looks once at its own ``slot``, now."""
        card = self.hands[seat][slot]
        self.knowledge.saw(self.number, self.now, card, seat, why)
        self.open_looks.append((seat, slot, card, why))
        self.out.append(Out(seat, self._look(seat, slot, card, why, ts)))

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

    def _due(self, at: Ms) -> None:
        """A draw becomes due at ``at`` (R-TIMER counts from then)."""
        self.due = at
        timer = self.timer_ms
        self.deadline = None if timer is None else at + timer
        self.out.append(
            Out(
                None,
                {
                    "type": "turn",
                    "t": to_seconds(self.now),
                    "seat": self.turn,
                    "draw": self.draw_no,
                    "left": self.left,
                    "at": to_seconds(at),
                    "deadline": None if self.deadline is None else to_seconds(self.deadline),
                    "final": self.caller is not None,
                },
            )
        )

    def _end_turn(self, timed_out: bool) -> None:
        seat = self.turn
        now = self.now
        self.deadline = None
        self.window_seat = None  # the previous player's window closes as this turn ends
        self.ended[seat] = "timeout" if timed_out else "turn"
        self.last_ender = seat
        window: Ms | None = None
        if self.caller is not None:
            self.final_left -= 1
            start = now  # R-WINDOW-NONE
        elif timed_out:
            start = now  # R-WINDOW-NONE
        else:
            window = now + self.timing.window_ms
            self.window_seat = seat
            self.window_until = window
            start = now + self.timing.start_ms
        done = self.caller is not None and self.final_left == 0
        nxt = (seat + 1) % self.n
        self.out.append(
            Out(
                None,
                {
                    "type": "turn_end",
                    "t": to_seconds(now),
                    "seat": seat,
                    "window_until": None if window is None else to_seconds(window),
                    "next": None if done else nxt,
                    "next_at": None if done else to_seconds(start),
                },
            )
        )
        if done:
            self._reveal()
        else:
            self._begin_turn(nxt, start)

    def _reveal(self) -> None:
        """R-FINAL-TURNS, R-SEE-REVEAL, R-ROUND-SCORE: every hand face up, the round scored."""
        self.phase = OVER
        self.held = None
        self.deadline = None
        self.window_seat = None
        self.scores = round_scores(self.hands, self.caller)
        for hand in self.hands:
            for card in hand:
                self.knowledge.saw(self.number, self.now, card, None, "reveal")

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]
