"""Legality in one place: ``verify(round, action)`` raises ``IllegalAction`` or returns.

Every check reads the round and changes nothing, so a refused action leaves the game exactly as it
was. The round applies an action only after ``verify`` passed; ``legal_actions`` asks the same
checks. The rule ids given for each refusal are listed in docs/engine.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from crisp.engine.crisp import actions as A
from crisp.engine.crisp.cards import JACK, KING, QUEEN, SLOTS, is_special
from crisp.engine.crisp.errors import IllegalAction
from crisp.engine.crisp.phase import LOOK, OVER, PLAY

if TYPE_CHECKING:
    from crisp.engine.crisp.round import Round


def _in_play(r: Round, seat: int) -> None:
    """Shared checks of every action taken in a turn: phase, then whose turn it is."""
    if r.phase is LOOK:
        raise IllegalAction("R-LOOK-PHASE", "the first turn starts after the look")
    if r.phase is OVER:
        raise IllegalAction("R-FINAL-TURNS", "the round is over")
    if seat != r.turn:
        raise IllegalAction("R-TURN", f"it is seat {r.turn}'s turn, not seat {seat}'s")


def _holding(r: Round, seat: int, rule: str, what: str) -> str:
    _in_play(r, seat)
    card = r.held
    if card is None:
        raise IllegalAction(rule, f"there is no drawn card to {what}")
    return card


def _ready(r: Round, a: A.Action) -> None:
    if r.phase is OVER:
        raise IllegalAction("R-FINAL-TURNS", "the round is over")
    if r.phase is not LOOK:
        raise IllegalAction("R-LOOK-PHASE", "the look phase is over")
    if r.ready[a.seat]:
        raise IllegalAction("R-LOOK-PHASE", f"seat {a.seat} is ready already")


def _may_start(r: Round) -> None:
    if r.now < r.due:
        raise IllegalAction(
            "R-WINDOW", "the previous player's 2 seconds have not passed; the draw is not due yet"
        )


def _draw(r: Round, a: A.Action) -> None:
    _in_play(r, a.seat)
    if r.held is not None:
        raise IllegalAction("R-DRAW", "resolve the drawn card before drawing again")
    _may_start(r)


def _swap(r: Round, a: A.Action) -> None:
    card = _holding(r, a.seat, "R-SWAP", "swap")
    if is_special(card):
        raise IllegalAction("R-SPECIAL", f"a drawn {card} can never be swapped into a hand")


def _discard(r: Round, a: A.Action) -> None:
    card = _holding(r, a.seat, "R-DISCARD", "discard")
    if card[0] == KING:
        raise IllegalAction("R-SPECIAL", f"a drawn King ({card}) must be used, then discarded")


SPECIAL_NAMES = {
    JACK: ("R-JACK", "a Jack"),
    QUEEN: ("R-QUEEN", "a Queen"),
    KING: ("R-KING", "a King"),
}


def _using(r: Round, a: A.Action, rank: str) -> None:
    """Using a special card's effect needs that card drawn (R-JACK, R-QUEEN, R-KING)."""
    rule, name = SPECIAL_NAMES[rank]
    card = _holding(r, a.seat, rule, "use")
    if card[0] != rank:
        raise IllegalAction(rule, f"the drawn card is {card}, not {name}")


def _jack(r: Round, a: A.Action) -> None:
    _using(r, a, JACK)


def _king(r: Round, a: A.Action) -> None:
    _using(r, a, KING)


def _queen(r: Round, a: A.Action) -> None:
    assert isinstance(a, A.Queen)
    _using(r, a, QUEEN)
    if not (0 <= a.slot < 3 and 0 <= a.target_slot < 3):
        raise IllegalAction("R-QUEEN", "a Queen swaps a left, middle or right card")
    if isinstance(a.target, bool) or not 0 <= a.target < r.n:
        raise IllegalAction("R-QUEEN-TARGET", f"there is no seat {a.target}")
    if a.target == a.seat:
        raise IllegalAction("R-QUEEN-TARGET", "a Queen swaps with another player")


def _take(r: Round, a: A.Action) -> None:
    assert isinstance(a, A.TakeDiscard)
    if not r.options.take_discard:
        raise IllegalAction("R-OPT-DISCARD", "the host did not allow drawing from the discard pile")
    _in_play(r, a.seat)
    if r.held is not None:
        raise IllegalAction("R-TAKE-DISCARD", "a take replaces a draw; resolve the drawn card")
    _may_start(r)
    if not r.pile:
        raise IllegalAction("R-TAKE-DISCARD", "the discard pile is empty: draw from the deck")
    if not 0 <= a.slot < 3:
        raise IllegalAction("R-TAKE-DISCARD", "a taken card goes to the left, middle or right")


def _crisp(r: Round, a: A.Action) -> None:
    seat = a.seat
    if r.phase is OVER:
        raise IllegalAction("R-FINAL-TURNS", "the round is over")
    if r.caller is not None:
        raise IllegalAction("R-CRISP-ONCE", f"seat {r.caller} has called crisp this round")
    if r.window_seat == seat:
        return
    if r.phase is PLAY and seat == r.turn and r.started:
        raise IllegalAction("R-CRISP", "crisp is called when your turn has ended")
    if seat == r.last_ender:
        if r.ended[seat] == "timeout":
            raise IllegalAction("R-WINDOW-NONE", "a turn that ran out of time opens no window")
        raise IllegalAction("R-WINDOW", f"seat {seat}'s crisp window has closed")  # 3 s passed
    if seat == r.closed_early:  # the next player's turn ended before the 3 s
        raise IllegalAction("R-WINDOW", f"seat {seat}'s crisp window has closed")
    # A seat whose turn is not the one that just ended, even one whose window closed earlier in
    # the round: only the player whose turn has just ended may call.
    raise IllegalAction("R-CRISP", f"seat {seat} has no turn that just ended")


CHECKS: dict[type[A.Action], Callable[[Round, A.Action], None]] = {
    A.Ready: _ready,
    A.Draw: _draw,
    A.Swap: _swap,
    A.Discard: _discard,
    A.Jack: _jack,
    A.Queen: _queen,
    A.King: _king,
    A.TakeDiscard: _take,
    A.Crisp: _crisp,
}


def verify(r: Round, action: A.Action) -> None:
    """Raise ``IllegalAction`` if ``action`` is not legal in ``r`` at ``r.now``."""
    seat = action.seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < r.n:
        raise IllegalAction("R-PLAYERS", f"there is no seat {seat!r} at this table")
    check = CHECKS.get(type(action))
    if check is None:
        raise IllegalAction("R-TURN", f"unknown action {action!r}")
    check(r, action)


def legal_actions(r: Round, seat: int) -> list[A.Action]:
    """Every action ``seat`` may take at ``r.now``, each of which ``verify`` accepts."""
    out: list[A.Action] = []
    if r.phase is LOOK:
        if not r.ready[seat]:
            out.append(A.Ready(seat))
        return out
    if r.phase is not PLAY:
        return out
    if r.caller is None and r.window_seat == seat:
        out.append(A.Crisp(seat))
    if seat != r.turn:
        return out
    card = r.held
    if card is None:
        if r.now >= r.due:
            out.append(A.Draw(seat))
            if r.options.take_discard and r.pile:
                out.extend(A.TakeDiscard(seat, s) for s in range(3))
        return out
    rank = card[0]
    if rank == KING:
        out.append(A.King(seat))
        return out
    out.append(A.Discard(seat))
    if rank == JACK:
        out.append(A.Jack(seat))
    elif rank == QUEEN:
        out.extend(
            A.Queen(seat, s, target, ts)
            for s in range(3)
            for target in range(r.n)
            if target != seat
            for ts in range(3)
        )
    else:
        out.extend(A.Swap(seat, s) for s in range(len(SLOTS)))
    return out
