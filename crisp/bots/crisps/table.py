"""A seat's model of a Crisps! table, kept from that seat's messages (or a reconnect snapshot).

Everything here came through the seat's channel (docs/protocol.md, "Messages" and "View"):
its own hand, the counts of the other hand and of the pile, the face-up card, every play and
pass, what each draw gave (a face-up card the opponent took stays known: ``opp_known``), and the
legal plays the seat is offered when its decision is due. Nothing else exists for a bot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crisp.bots.crisps.combos import (
    N_RANKS,
    RANK_INDEX,
    Combo,
    Counts,
    classify,
    combo_counts,
    counts,
)

Msg = dict[str, Any]
LEAD, FOLLOW, DRAW = "lead", "follow", "draw"


@dataclass(slots=True)
class Pass:
    """The opponent passed on ``prev`` (not skipped, not timed out)."""

    prev: Combo
    draws_since: int = 0  # draws after that pass (each gave the opponent a card)


@dataclass(slots=True)
class TableModel:
    seat: int
    players: list[str]
    no_faceup: bool = False
    crisp_runs: bool = False
    auto_skip: bool = False
    timer: int | None = None
    round: int = 0
    starter: int = 0
    points: list[int] = field(default_factory=lambda: [0, 0])
    hand: Counts = field(default_factory=lambda: [0] * N_RANKS)
    hands: list[int] = field(default_factory=lambda: [0, 0])
    pile: int = 0
    faceup: int | None = None
    played: Counts = field(default_factory=lambda: [0] * N_RANKS)
    trick: list[tuple[int, Combo]] = field(default_factory=list)
    #: cards the opponent is known to hold (face-up cards it took and has not played since)
    opp_known: Counts = field(default_factory=lambda: [0] * N_RANKS)
    opp_passes: list[Pass] = field(default_factory=list)
    due_seat: int | None = None
    need: str | None = None
    deadline: float | None = None
    legal: list[Combo] = field(default_factory=list)
    can_pass: bool = False
    take: list[str] = field(default_factory=list)
    over: bool = False
    #: bumped at every message that changes what is due (a decision is made once per ``epoch``)
    epoch: int = 0

    @classmethod
    def new(cls, seat: int, players: list[str], options: dict[str, Any]) -> TableModel:
        timer = options.get("timer")
        return cls(
            seat,
            list(players),
            no_faceup=bool(options.get("no_faceup")),
            crisp_runs=bool(options.get("crisp_runs")),
            auto_skip=bool(options.get("auto_skip")),
            timer=timer if isinstance(timer, int) else None,
        )

    # -- what a bot asks --------------------------------------------------------------------------

    @property
    def opp(self) -> int:
        return 1 - self.seat

    @property
    def prev(self) -> Combo | None:
        """The previous play of the current trick (None: a lead is due)."""
        return self.trick[-1][1] if self.trick else None

    @property
    def my_turn(self) -> bool:
        return not self.over and self.due_seat == self.seat and self.need is not None

    def unknown(self) -> Counts:
        """The cards this seat cannot place: the 40 less its hand, everything played this round,
        the face-up card and the opponent's known cards (the rest of the opponent's hand, the
        set-aside cards and the pile)."""
        out = [4 - self.hand[i] - self.played[i] - self.opp_known[i] for i in range(N_RANKS)]
        if self.faceup is not None:
            out[self.faceup] -= 1
        return [max(0, n) for n in out]

    # -- reading messages -------------------------------------------------------------------------

    def observe(self, msg: Msg) -> None:
        kind = msg.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, msg)

    def _on_game(self, msg: Msg) -> None:
        options = msg.get("options")
        if isinstance(options, dict):
            fresh = TableModel.new(self.seat, msg.get("players") or self.players, options)
            self.no_faceup, self.crisp_runs = fresh.no_faceup, fresh.crisp_runs
            self.auto_skip, self.timer = fresh.auto_skip, fresh.timer

    def _on_round(self, msg: Msg) -> None:
        self.round = int(msg.get("round", self.round + 1))
        self.starter = int(msg.get("starter", 0))
        self.points = list(msg.get("points", self.points))
        self.hand = counts(msg.get("hand", ""))
        self.hands = list(msg.get("hands", [12, 12]))
        self.faceup = _rank(msg.get("faceup"))
        self.pile = int(msg.get("pile", 0))
        self.played = [0] * N_RANKS
        self.trick = []
        self.opp_known = [0] * N_RANKS
        self.opp_passes = []
        self._clear_due()

    def _on_turn(self, msg: Msg) -> None:
        self.due_seat = msg.get("seat")
        self.need = msg.get("need")
        self.deadline = msg.get("deadline")
        self._read_legal(msg)
        self.epoch += 1

    def _read_legal(self, msg: Msg) -> None:
        mine = self.due_seat == self.seat
        self.legal = []
        for entry in (msg.get("legal") or []) if mine else []:
            combo = classify(entry.get("cards", ""), self.crisp_runs)
            if combo is not None:
                self.legal.append(combo)
        self.can_pass = bool(msg.get("can_pass", self.need == FOLLOW)) if mine else False
        take = msg.get("take")
        if not isinstance(take, list):
            take = ["faceup", "blind"] if mine and self.need == DRAW else []
        self.take = [str(t) for t in take] if mine else []

    def _on_clock(self, msg: Msg) -> None:
        if msg.get("seat") == self.due_seat:
            self.deadline = msg.get("deadline")

    def _on_play(self, msg: Msg) -> None:
        seat = msg.get("seat")
        combo = classify(msg.get("cards", ""), self.crisp_runs)
        if combo is None or seat not in (0, 1):
            return
        c = combo_counts(combo)
        for i in range(N_RANKS):
            self.played[i] += c[i]
            if seat == self.seat:
                self.hand[i] = max(0, self.hand[i] - c[i])
            else:
                self.opp_known[i] = max(0, self.opp_known[i] - c[i])
        self.trick.append((seat, combo))
        self._read_hands(msg)
        self._clear_due()

    def _on_pass(self, msg: Msg) -> None:
        prev = self.prev
        if (
            msg.get("seat") == self.opp
            and prev is not None
            and not msg.get("skipped")
            and not msg.get("timeout")
        ):
            self.opp_passes.append(Pass(prev))
        self.trick = []
        self._clear_due()

    def _on_draw(self, msg: Msg) -> None:
        winner = msg.get("seat")
        faceup = _rank(msg.get("faceup"))
        blind = msg.get("blind")
        if self.no_faceup or msg.get("take") is None:
            if isinstance(blind, str) and blind in RANK_INDEX:
                self.hand[RANK_INDEX[blind]] += 1
        else:
            got_faceup = (msg.get("take") == "faceup") == (winner == self.seat)
            if got_faceup and faceup is not None:
                self.hand[faceup] += 1
            elif isinstance(blind, str) and blind in RANK_INDEX:
                self.hand[RANK_INDEX[blind]] += 1
            if not got_faceup and faceup is not None:
                self.opp_known[faceup] += 1
        for p in self.opp_passes:
            p.draws_since += 1
        self.faceup = _rank(msg.get("new_faceup"))
        if isinstance(msg.get("pile"), int):
            self.pile = msg["pile"]
        self._read_hands(msg)
        self._clear_due()

    def _on_end(self, msg: Msg) -> None:
        if isinstance(msg.get("points"), list):
            self.points = list(msg["points"])
        if msg.get("type") == "game_over":
            self.over = True
        self._clear_due()

    def _read_hands(self, msg: Msg) -> None:
        hands = msg.get("hands")
        if isinstance(hands, list) and len(hands) == 2:
            self.hands = [int(n) for n in hands]

    def _clear_due(self) -> None:
        self.due_seat = None
        self.need = None
        self.deadline = None
        self.legal = []
        self.can_pass = False
        self.take = []
        self.epoch += 1

    # -- a reconnect snapshot ---------------------------------------------------------------------

    def load_view(self, view: Msg) -> None:
        """Start over from ``game.view(seat)``: only what it shows (the face-up cards the opponent
        took and still holds, but not its passes: a snapshot does not carry them)."""
        self._on_game(view)
        self.round = int(view.get("round") or 0)
        self.starter = int(view.get("starter") or 0)
        self.points = list(view.get("points") or [0, 0])
        self.hand = counts(view.get("hand") or "")
        self.hands = list(view.get("hands") or [0, 0])
        self.pile = int(view.get("pile") or 0)
        self.faceup = _rank(view.get("faceup"))
        self.played = counts(view.get("played") or "")
        self.trick = []
        for entry in view.get("trick") or []:
            combo = classify(entry.get("cards", ""), self.crisp_runs)
            if combo is not None:
                self.trick.append((int(entry.get("seat", 0)), combo))
        known = view.get("known") or ["", ""]
        self.opp_known = counts(known[1 - self.seat]) if len(known) == 2 else [0] * N_RANKS
        self.opp_passes = []
        self.over = bool(view.get("over"))
        self._clear_due()
        due = view.get("due")
        if isinstance(due, dict) and not self.over:
            legal: dict[str, Any] = {k: view[k] for k in ("legal", "can_pass", "take") if k in view}
            self._on_turn({**due, "type": "turn", **legal})


def _rank(card: Any) -> int | None:
    return RANK_INDEX.get(card) if isinstance(card, str) else None


_HANDLERS = {
    "game": TableModel._on_game,
    "round": TableModel._on_round,
    "turn": TableModel._on_turn,
    "clock": TableModel._on_clock,
    "play": TableModel._on_play,
    "pass": TableModel._on_pass,
    "draw": TableModel._on_draw,
    "round_end": TableModel._on_end,
    "game_over": TableModel._on_end,
}
