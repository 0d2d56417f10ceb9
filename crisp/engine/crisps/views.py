"""The reconnect snapshot of a seat or a watcher (docs/rules-crisps.md §9): everything public, the
seat's own hand, and its choices when its decision is due. Never the opponent's hand, the pile's
cards or a blind card (the hand holds it as a rank, like any other card)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crisp.engine.crisps.cards import text

if TYPE_CHECKING:
    from crisp.engine.crisps.game import CrispsGame


def view(game: CrispsGame, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": "crisps",
        "players": list(game.players),
        "options": game.options.to_record(),
        "round": game.round_no,
        "starter": None,
        "points": list(game.points),
        "you": seat,
    }
    if game.started:
        rnd = game.round
        if seat is not None:
            out["hand"] = text(rnd.hands[seat])
        out.update(
            starter=rnd.starter,
            hands=rnd.counts(),
            pile=len(rnd.pile),
            faceup=rnd.faceup,
            set_aside=4,
            trick=[{"seat": s, **c.wire()} for s, c in rnd.trick],
            played=text(rnd.played),
            known=[text(k) for k in rnd.known],
        )
    else:
        out.update(
            hands=[0, 0], pile=0, faceup=None, set_aside=0, trick=[], played="", known=["", ""]
        )
    due = None
    if game.due is not None and not game.over:
        due = {"seat": game.due[0], "need": game.due[1], "deadline": game.deadline}
    out["due"] = due
    choices = game.choices(seat) if seat is not None else None
    out["legal"] = choices["legal"] if choices else []
    out["can_pass"] = bool(choices and choices["can_pass"])
    out["take"] = choices["take"] if choices else []
    last = next((r for r in reversed(game.rounds) if r.winner is not None), None)
    out["last_round"] = (
        None
        if last is None
        else {
            "round": last.no,
            "winner": last.winner,
            "set_aside": last.set_aside,
            "loser_hand": last.loser_hand,
        }
    )
    out["history"] = [{**h, "points": list(h["points"])} for h in game.history]
    out["over"] = game.over
    out["winner"] = game.winner
    if game.fairness is not None:
        out["fairness"] = game.fairness_record()
    return out
