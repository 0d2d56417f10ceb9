"""A seat's view of the table, for a reconnect: only what that seat may see *now* (docs/rules.md
§7).

The view names face-down cards by seat and slot only (R-NO-TRACE). It carries a face only for the
card the seat holds drawn (R-SEE-DRAWN), a look still open (R-SEE-LOOK), the top of the discard pile
(R-SEE-PUBLIC) and, once the round is over, every hand (R-SEE-REVEAL).
"""

from __future__ import annotations

from typing import Any

from crisp.engine.crisp.cards import LOOKABLE, SLOTS
from crisp.engine.crisp.phase import LOOK, OVER
from crisp.engine.crisp.round import Round
from crisp.engine.crisp.timing import to_seconds


def _t(ms: Any) -> float | None:
    return None if ms is None else to_seconds(ms)


def round_view(r: Round, seat: int | None) -> dict[str, Any]:
    """The public state of ``r`` plus what ``seat`` (None: a spectator) may see now."""
    view: dict[str, Any] = {
        "round": r.number,
        "t": to_seconds(r.now),
        "phase": r.phase.value,
        "dealer": r.dealer,
        "first": r.first,
        "deck": len(r.deck),
        "pile": len(r.pile),
        "top": r.pile[-1] if r.pile else None,
        "caller": r.caller,
        "final": list(r.final_seats),
        "final_left": r.final_left,
    }
    if r.phase is LOOK:
        view["look_until"] = to_seconds(r.look_until)
        view["ready"] = list(r.ready)
    elif r.phase is not OVER:
        view["turn"] = {
            "seat": r.turn,
            "draw": r.draw_no,
            "left": r.left,
            "at": to_seconds(r.due),
            "deadline": _t(r.deadline),
            "holding": r.held is not None,
            "final": r.caller is not None,
        }
        view["window"] = (
            None
            if r.window_seat is None
            else {"seat": r.window_seat, "until": to_seconds(r.window_until)}
        )
    else:
        view["hands"] = [list(h) for h in r.hands]
        view["scores"] = list(r.scores or [])
    if seat is None:
        return view
    looks: list[dict[str, str]] = []
    if r.phase is LOOK and not r.ready[seat]:
        hand = r.hands[seat]
        looks = [{"slot": SLOTS[s], "card": hand[s], "why": "deal"} for s in LOOKABLE]
    else:
        looks = [
            {"slot": SLOTS[slot], "card": card, "why": why}
            for who, slot, card, why in r.open_looks
            if who == seat
        ]
    view["you"] = {
        "seat": seat,
        "card": r.held if (r.turn == seat and r.phase is not OVER) else None,
        "looks": looks,
    }
    return view
