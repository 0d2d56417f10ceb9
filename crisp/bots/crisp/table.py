"""A seat's own model of the table, built only from the messages that seat is sent.

``TableModel`` is what a bot knows: the public state (whose turn, the clocks, the discard pile,
every public move) and what its seat saw (its looks, its draws). It never reads the engine. It
follows cards as far as the messages allow: a card's location is known when this seat saw it land
there (a look, its own swap, a take from the pile, a Queen moving a card it knew), and the deck
order is known after a recycle (the pile turned over, unshuffled: R-RECYCLE). Levels use as much of
it as their strategy allows (``easy`` even forgets some of it).
"""

from __future__ import annotations

from typing import Any

from crisp.engine.crisp.cards import SLOT_INDEX, SORTED_DECK, VALUE
from crisp.engine.crisp.phase import Phase

Msg = dict[str, Any]
LOOK, PLAY, OVER = Phase.LOOK, Phase.PLAY, Phase.OVER  # the wire's "look", "play", "over"


class TableModel:
    """Everything one seat knows, from its messages (``observe``) or a snapshot (``load_view``)."""

    def __init__(self, seat: int, players: list[str], options: dict[str, Any]) -> None:
        self.seat = seat
        self.players = list(players)
        self.n = len(players)
        self.options = dict(options)
        self.totals = [0] * self.n
        self.over = False
        self.winners: list[int] = []
        self.t = 0.0  # the time of the last message (seconds since the deal)
        self.round = 0
        self.new_round(0, 0, 0, 52 - 3 * self.n, 10.0)
        self.phase: str | None = None  # no deal yet

    # -- a new round ------------------------------------------------------------------------------

    def new_round(self, number: int, dealer: int, first: int, deck: int, look_until: float) -> None:
        n = self.n
        self.round = number
        self.dealer = dealer
        self.first = first
        self.phase = LOOK
        self.look_until = look_until
        self.ready = [False] * n
        #: The deck, top last: a card code where this seat knows it (after a recycle), else None.
        self.deck: list[str | None] = [None] * deck
        #: The discard pile, top last: every card that landed face up (None: before a snapshot).
        self.pile: list[str | None] = []
        #: What this seat knows of every slot: ``cards[seat][slot]`` (None: unknown to it).
        self.cards: list[list[str | None]] = [[None, None, None] for _ in range(n)]
        #: Whether each slot's owner knows its card (public: who looked where, who swapped what).
        self.owner_knows: list[list[bool]] = [[True, False, True] for _ in range(n)]
        #: For a card an owner put in from its own draw, unseen here: an exclusive bound on its
        #: value if the owner played well (the value it replaced if the owner knew that card, else
        #: 7: a card put in place of an unknown one is usually a 6 or lower).
        self.kept: list[list[int | None]] = [[None, None, None] for _ in range(n)]
        #: The number of this seat's turns in the round when each of its slots was last learned.
        self.learned = [0, 0, 0]
        self.turn: int | None = None
        self.draw_no = 0
        self.left = 0
        self.at = 0.0  # when the current draw is (or was) due
        self.deadline: float | None = None
        self.turns = 0  # turn messages this round (a key for per-draw decisions)
        self.my_turns = 0  # this seat's turns begun this round
        self.started = False  # the current player drew or took this turn
        self.holding = False  # the current player holds a drawn card
        self.held: str | None = None  # that card, when this seat knows it (always its own)
        self.held_at = 0.0
        self.window_seat: int | None = None
        self.window_until = 0.0
        self.window_since = 0.0
        self.caller: int | None = None
        self.final_seats: list[int] = []
        self.hands: list[list[str]] | None = None  # the reveal
        self.scores: list[int] | None = None

    # -- queries ----------------------------------------------------------------------------------

    @property
    def hand(self) -> list[str | None]:
        """This seat's own cards, as far as it knows them."""
        return self.cards[self.seat]

    @property
    def my_turn(self) -> bool:
        return self.phase == PLAY and self.turn == self.seat

    @property
    def my_window(self) -> bool:
        """This seat's crisp window is open (R-WINDOW) and no one has called (R-CRISP-ONCE)."""
        return self.phase == PLAY and self.window_seat == self.seat and self.caller is None

    def located(self) -> set[str]:
        """Every card whose place this seat knows (a slot, the pile, the deck, a drawn card)."""
        out = {c for hand in self.cards for c in hand if c is not None}
        out.update(c for c in self.pile if c is not None)
        out.update(c for c in self.deck if c is not None)
        if self.held is not None:
            out.add(self.held)
        return out

    def unseen(self) -> list[str]:
        """The cards whose place this seat does not know: what an unknown card can be."""
        located = self.located()
        return [c for c in SORTED_DECK if c not in located]

    def next_deck_card(self) -> str | None:
        """The top of the deck, when known (after a recycle); a recycle first if it is empty."""
        if self.deck:
            return self.deck[-1]
        return self.pile[0] if self.pile else None

    # -- messages ---------------------------------------------------------------------------------

    def observe(self, msg: Msg) -> None:
        """Update the model with one message this seat was sent (docs/engine.md shapes)."""
        kind = msg.get("type")
        t = msg.get("t")
        if isinstance(t, (int, float)):
            self.t = float(t)
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, msg)

    def _game(self, msg: Msg) -> None:
        if isinstance(msg.get("options"), dict):
            self.options = dict(msg["options"])

    def _round(self, msg: Msg) -> None:
        self.new_round(msg["round"], msg["dealer"], msg["first"], msg["deck"], msg["look_until"])

    def _look(self, msg: Msg) -> None:
        if msg["seat"] != self.seat:
            return
        slot = SLOT_INDEX[msg["slot"]]
        self.cards[self.seat][slot] = msg["card"]
        self.learned[slot] = self.my_turns

    def _ready(self, msg: Msg) -> None:
        self.ready[msg["seat"]] = True

    def _turn(self, msg: Msg) -> None:
        self.phase = PLAY
        seat = msg["seat"]
        if msg["draw"] == 1:
            self.started = False
            if seat == self.seat:
                self.my_turns += 1
        self.turn = seat
        self.draw_no = msg["draw"]
        self.left = msg["left"]
        self.at = float(msg["at"])
        self.deadline = msg.get("deadline")
        self.turns += 1
        self.holding = False
        self.held = None

    def _pop_deck(self) -> str | None:
        if not self.deck:
            self._recycle_now()
        return self.deck.pop() if self.deck else None

    def _recycle_now(self) -> None:
        # R-RECYCLE: the first card discarded is on top: the deck (top last) is the pile reversed.
        self.deck = self.pile[::-1]
        self.pile = []

    def _recycle(self, msg: Msg) -> None:
        if len(self.pile) == msg["deck"]:
            self._recycle_now()
        else:  # a pile this seat did not see whole (after a snapshot)
            self.deck = [None] * msg["deck"]
            self.pile = []

    def _draw(self, msg: Msg) -> None:
        known = self.deck.pop() if self.deck else None
        card = msg.get("card")
        self.held = card if card is not None else known
        self.holding = True
        self.started = True
        self.held_at = self.t
        if len(self.deck) != msg["deck"]:  # out of step (after a snapshot): forget the order
            self.deck = [None] * msg["deck"]

    def _played(self, card: str) -> None:
        """The drawn card left the player's hands, face up onto the pile."""
        self.pile.append(card)
        self.holding = False
        self.held = None

    def _put(self, seat: int, slot: int, card: str | None, kept: int | None) -> None:
        self.cards[seat][slot] = card
        self.kept[seat][slot] = kept
        self.owner_knows[seat][slot] = True
        if seat == self.seat:
            self.learned[slot] = self.my_turns

    def _swap(self, msg: Msg) -> None:
        seat, slot, old = msg["seat"], SLOT_INDEX[msg["slot"]], msg["card"]
        new = self.held
        self.pile.append(old)
        self.holding = False
        self.held = None
        bound = VALUE[old] if self.owner_knows[seat][slot] else 7
        self._put(seat, slot, new, None if new is not None else bound)

    def _discard(self, msg: Msg) -> None:
        self._played(msg["card"])

    def _jack(self, msg: Msg) -> None:
        self._played(msg["card"])
        self.owner_knows[msg["seat"]][1] = True  # R-JACK: the middle card is looked at

    def _queen(self, msg: Msg) -> None:
        self._played(msg["card"])
        a, sa = msg["seat"], SLOT_INDEX[msg["slot"]]
        b, sb = msg["target"], SLOT_INDEX[msg["target_slot"]]
        cards, kept = self.cards, self.kept
        cards[a][sa], cards[b][sb] = cards[b][sb], cards[a][sa]
        kept[a][sa], kept[b][sb] = kept[b][sb], kept[a][sa]
        # R-QUEEN-LOOK: a card landing in a left or right slot is looked at by its new owner.
        self.owner_knows[a][sa] = sa != 1
        self.owner_knows[b][sb] = sb != 1
        for seat, slot in ((a, sa), (b, sb)):
            if seat == self.seat:
                self.learned[slot] = self.my_turns

    def _king(self, msg: Msg) -> None:
        self._played(msg["card"])

    def _take(self, msg: Msg) -> None:
        seat, slot, old = msg["seat"], SLOT_INDEX[msg["slot"]], msg["card"]
        taken = self.pile.pop() if self.pile else None
        self.pile.append(old)
        self.started = True
        self._put(seat, slot, taken, None)  # R-TAKE-DISCARD: the pile's top was public

    def _timeout(self, msg: Msg) -> None:
        card = msg.get("card")
        if card is None:
            self.holding = False
            self.held = None
            return
        if not self.holding:  # nothing drawn yet: the top card was drawn and discarded for it
            self._pop_deck()
        self._played(card)

    def _turn_end(self, msg: Msg) -> None:
        self.holding = False
        self.held = None
        until = msg.get("window_until")
        if until is None:
            self.window_seat = None
        else:
            self.window_seat = msg["seat"]
            self.window_until = float(until)
            self.window_since = self.t

    def _window_closed(self, msg: Msg) -> None:
        if self.window_seat == msg["seat"]:
            self.window_seat = None

    def _crisp(self, msg: Msg) -> None:
        self.caller = msg["seat"]
        self.final_seats = list(msg["final"])
        self.window_seat = None

    def _reveal(self, msg: Msg) -> None:
        self.phase = OVER
        self.hands = [list(h) for h in msg["hands"]]
        self.cards = [list(h) for h in self.hands]
        self.scores = list(msg["scores"])
        self.totals = list(msg["totals"])
        self.window_seat = None
        self.turn = None

    def _game_over(self, msg: Msg) -> None:
        self.over = True
        self.totals = list(msg["totals"])
        self.winners = list(msg["winners"])

    def _clock(self, msg: Msg) -> None:
        if msg.get("seat") == self.turn:
            self.deadline = msg.get("deadline")

    # -- a reconnect snapshot ---------------------------------------------------------------------

    def load_view(self, view: Msg) -> None:
        """Start over from ``game.view(seat)``: only what it shows is known."""
        self.players = list(view.get("players", self.players))
        self.n = len(self.players)
        if isinstance(view.get("options"), dict):
            self.options = dict(view["options"])
        self.totals = list(view.get("totals", [0] * self.n))
        self.over = bool(view.get("over"))
        self.winners = list(view.get("winners", []))
        r = view.get("round")
        if not isinstance(r, dict):
            self.phase = None
            return
        self.t = float(r.get("t", 0.0))
        self.new_round(r["round"], r["dealer"], r["first"], r["deck"], r.get("look_until", 10.0))
        pile_count = int(r.get("pile", 0))
        self.pile = [None] * pile_count
        if pile_count and r.get("top") is not None:
            self.pile[-1] = r["top"]
        self.caller = r.get("caller")
        self.final_seats = list(r.get("final", []))
        self.phase = r.get("phase", LOOK)
        if self.phase == LOOK:
            self.ready = list(r.get("ready", self.ready))
        elif self.phase == PLAY:
            turn = r["turn"]
            self.turn = turn["seat"]
            self.draw_no = turn["draw"]
            self.left = turn["left"]
            self.at = float(turn["at"])
            self.deadline = turn.get("deadline")
            self.turns = 1
            self.my_turns = 1
            self.holding = bool(turn.get("holding"))
            self.started = self.holding or self.draw_no > 1
            window = r.get("window")
            if isinstance(window, dict):
                self.window_seat = window["seat"]
                self.window_until = float(window["until"])
                self.window_since = self.t
        else:
            hands = r.get("hands")
            if hands:
                self.hands = [list(h) for h in hands]
                self.cards = [list(h) for h in hands]
            self.scores = list(r.get("scores", []))
        you = r.get("you") or {}
        if self.phase == PLAY and self.turn == self.seat and you.get("card") is not None:
            self.held = you["card"]
            self.held_at = self.t
        for look in you.get("looks", []):
            self.cards[self.seat][SLOT_INDEX[look["slot"]]] = look["card"]
        # Which slots the owners know is not in a snapshot: assume the usual (left and right).


_HANDLERS = {
    "game": TableModel._game,
    "round": TableModel._round,
    "look": TableModel._look,
    "ready": TableModel._ready,
    "turn": TableModel._turn,
    "recycle": TableModel._recycle,
    "draw": TableModel._draw,
    "swap": TableModel._swap,
    "discard": TableModel._discard,
    "jack": TableModel._jack,
    "queen": TableModel._queen,
    "king": TableModel._king,
    "take": TableModel._take,
    "timeout": TableModel._timeout,
    "turn_end": TableModel._turn_end,
    "window_closed": TableModel._window_closed,
    "crisp": TableModel._crisp,
    "reveal": TableModel._reveal,
    "game_over": TableModel._game_over,
    "clock": TableModel._clock,
}
