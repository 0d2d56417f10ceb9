"""High Card's rules. Two seats, one round of three tricks. Each seat is dealt three cards from
1..9 (hidden: sent to that seat alone). In each trick both seats play one card of their hand; a
play is announced without its card until both have played, then the trick shows both cards and
the higher wins a point. No timers, no absence."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Out:
    """A message and who gets it: everyone (``to`` None) or one seat."""

    to: int | None
    msg: dict[str, Any]

    def for_seat(self, seat: int | None) -> bool:
        return self.to is None or self.to == seat


class Illegal(Exception):
    """A play the rules refuse, with the id of the rule."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class HighCardGame:
    def __init__(self, players: list[str], seed: int) -> None:
        self.players = players
        self.seed = seed
        self.hands: list[list[int]] = [[], []]
        self.played: list[int | None] = [None, None]
        self.points = [0, 0]
        self.tricks = 0
        self.dealt = False
        self.moves: list[dict[str, Any]] = []

    @property
    def over(self) -> bool:
        return self.tricks == 3

    def deal(self) -> list[Out]:
        cards = list(range(1, 10))
        random.Random(self.seed).shuffle(cards)
        self.hands = [sorted(cards[:3]), sorted(cards[3:6])]
        self.dealt = True
        outs = [Out(None, {"type": "deal", "t": 0.0})]
        outs += [Out(s, {"type": "hand", "t": 0.0, "cards": list(self.hands[s])}) for s in (0, 1)]
        return outs

    def play(self, seat: int, card: int, t: float) -> list[Out]:
        if self.over or not self.dealt:
            raise Illegal("HC-OVER", "the game is over")
        if self.played[seat] is not None:
            raise Illegal("HC-ONCE", "you played in this trick already")
        if card not in self.hands[seat]:
            raise Illegal("HC-HAND", "that card is not in your hand")
        self.hands[seat].remove(card)
        self.played[seat] = card
        self.moves.append({"seat": seat, "play": card})
        outs = [Out(None, {"type": "played", "t": t, "seat": seat})]
        if None not in self.played:
            a, b = self.played
            assert a is not None and b is not None
            winner = 0 if a > b else 1
            self.points[winner] += 1
            self.tricks += 1
            self.played = [None, None]
            trick = {"type": "trick", "t": t, "cards": [a, b], "winner": winner}
            outs.append(Out(None, {**trick, "points": list(self.points)}))
        return outs

    # no deadlines: time changes nothing
    def advance(self, t: float) -> list[Out]:
        return []

    def restart_clock(self, t: float) -> list[Out]:
        return []

    def next_deadline(self) -> float | None:
        return None

    def view(self, seat: int | None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "points": list(self.points),
            "tricks": self.tricks,
            "played": [p is not None for p in self.played],
        }
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def legal(self, seat: int) -> list[int]:
        if self.over or not self.dealt or self.played[seat] is not None:
            return []
        return list(self.hands[seat])

    def record(self) -> dict[str, Any]:
        return {
            "format": "highcard/1",
            "players": self.players,
            "seed": self.seed,
            "moves": list(self.moves),
            "points": list(self.points),
        }
