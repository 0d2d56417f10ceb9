"""The round told again after its reveal (R-SEE-STORY).

Once a round's ``reveal`` is out, the round is over and every face of it may be shown: its hands
as dealt, every card drawn in it (the drawer alone saw it then), every card that was face up on
its pile. A ``Story`` is kept for the current round from the messages the engine makes, and gives
the ``round_story`` message (``RoundStoryEvent``) at the reveal. It never holds a card of the deck
that nobody drew (the unseen rest of the pile) nor anything of the next round: it is made from
the round's own messages, and a draw's face is taken from the drawer's own copy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from crisp.engine.crisp import events as E
from crisp.engine.crisp.messages import Out

#: The public moves a story tells (the move feed's, without ``round``).
STORY_MOVES = frozenset(
    {
        "ready",
        "draw",
        "swap",
        "discard",
        "jack",
        "queen",
        "king",
        "take",
        "timeout",
        "recycle",
        "crisp",
    }
)


class Story:
    """One round's story so far: its hands as dealt and its moves, with the drawn faces."""

    __slots__ = ("dealer", "hands", "moves", "number")

    def __init__(self, number: int, dealer: int, hands: Iterable[Iterable[str]]) -> None:
        self.number = number
        self.dealer = dealer
        self.hands = [list(h) for h in hands]  # copied at the deal: the round's own change later
        self.moves: list[dict[str, Any]] = []

    def note(self, outs: Iterable[Out]) -> None:
        """Take in one change's messages (each exactly once, in order)."""
        for to, msg, _ in outs:
            typ = msg["type"]
            if typ not in STORY_MOVES:
                continue
            if typ == "draw":
                # the drawer's copy has the face; the others' twin (to ~seat) has none
                if "card" in msg:
                    self.moves.append(dict(msg))
            elif to is None:
                self.moves.append(dict(msg))

    def event(self, t: float) -> E.RoundStoryEvent:
        """The ``round_story`` message, for the reveal at game time ``t``."""
        return E.RoundStoryEvent(
            t=t,
            round=self.number,
            dealer=self.dealer,
            hands=[list(h) for h in self.hands],
            moves=[dict(m) for m in self.moves],
        )
