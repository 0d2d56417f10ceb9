"""High Card's bot: it plays its highest card as soon as a trick waits for it."""

from __future__ import annotations

from typing import Any


class HighCardBot:
    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.hand: list[int] = []
        self.waiting = False

    def load_view(self, view: dict[str, Any]) -> None:
        self.hand = list(view.get("hand", []))
        self.waiting = not view["played"][self.seat]

    def observe(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "hand":
            self.hand = list(msg["cards"])
            self.waiting = True
        elif msg["type"] == "trick":
            self.waiting = bool(self.hand)

    def decide(self, now: float) -> tuple[float, dict[str, Any]] | None:
        if not self.waiting or not self.hand:
            return None
        self.waiting = False
        return now, {"play": self.hand.pop()}
