"""High Card: a toy game that exists only in the test suite, to prove that the server's game seam
carries a game the server has never heard of.

Two seats, one round of three tricks. Each seat is dealt three cards from 1..9 (hidden: sent to
that seat alone). In each trick both seats play one card of their hand (``{"play": card}``); a
play is announced without its card until both have played, then the trick shows both cards and
the higher wins a point. No timers, no absence, no bots beyond a trivial one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crisp.server.seam import BadFields, Change, Decision, LogEntry, MoveRefused, Seeds, Status


@dataclass(frozen=True)
class Out:
    to: int | None
    msg: dict[str, Any]

    def for_seat(self, seat: int | None) -> bool:
        return self.to is None or self.to == seat


class HighCardMatch:
    def __init__(self, head: LogEntry) -> None:
        self.head = head
        self._players = list(head["players"])
        self.hands: list[list[int]] = [[], []]
        self.played: list[int | None] = [None, None]
        self.points = [0, 0]
        self.tricks = 0
        self.dealt = False
        self.moves: list[dict[str, Any]] = []

    @property
    def players(self) -> Sequence[str]:
        return self._players

    @property
    def absence(self) -> None:
        return None

    def status(self) -> Status:
        if self.tricks == 3:
            return Status.OVER
        return Status.PLAYING if self.dealt else Status.BETWEEN

    def started(self) -> bool:
        return self.dealt

    def start_round(self) -> Change:
        cards = list(range(1, 10))
        random.Random(self.head["seed"]).shuffle(cards)
        self.hands = [sorted(cards[:3]), sorted(cards[3:6])]
        self.dealt = True
        outs = [Out(None, {"type": "deal", "t": 0.0})]
        outs += [Out(s, {"type": "hand", "t": 0.0, "cards": list(self.hands[s])}) for s in (0, 1)]
        return Change(list(outs), [{"e": "deal"}], None)

    def apply(self, seat: int, move: dict[str, Any], t: float, lag_ms: int = 0) -> Change:
        card = move["play"]
        if self.status() != Status.PLAYING:
            raise MoveRefused("HC-OVER", "the game is over")
        if self.played[seat] is not None:
            raise MoveRefused("HC-ONCE", "you played in this trick already")
        if card not in self.hands[seat]:
            raise MoveRefused("HC-HAND", "that card is not in your hand")
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
            outs.append(
                Out(
                    None,
                    {
                        "type": "trick",
                        "t": t,
                        "cards": [a, b],
                        "winner": winner,
                        "points": list(self.points),
                    },
                )
            )
        return Change(list(outs), [{"e": "act", "t": t, "seat": seat, "play": card}])

    def advance(self, t: float) -> Change:
        return Change()

    def restart_clock(self, t: float) -> Change:
        return Change()

    def next_deadline(self) -> float | None:
        return None

    def last_time(self) -> float:
        return 0.0

    def view(self, seat: int | None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "points": list(self.points),
            "tricks": self.tricks,
            "played": [p is not None for p in self.played],
        }
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        if self.status() != Status.PLAYING or self.played[seat] is not None:
            return []
        return [{"play": c} for c in self.hands[seat]]

    def record(self) -> dict[str, Any]:
        return {
            "format": "highcard/1",
            "players": self._players,
            "seed": self.head["seed"],
            "moves": list(self.moves),
            "points": list(self.points),
        }


class HighCardBot:
    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.hand: list[int] = []
        self.waiting = False

    def observe(self, msg: Mapping[str, Any]) -> None:
        if msg["type"] == "hand":
            self.hand = list(msg["cards"])
            self.waiting = True
        elif msg["type"] == "trick":
            self.waiting = bool(self.hand)

    def decide(self, now: float) -> Decision | None:
        if not self.waiting or not self.hand:
            return None
        self.waiting = False
        return Decision(now, {"play": self.hand.pop()}, think=False)


class HighCardSpec:
    name = "highcard"
    seats = (2, 2)
    bot_levels = ("easy",)

    def default_options(self) -> dict[str, Any]:
        return {}

    def check_options(self, fields: dict[str, Any]) -> dict[str, Any]:
        if fields:
            raise BadFields(next(iter(fields)), "High Card has no options")
        return {}

    def check_move(self, fields: dict[str, Any]) -> dict[str, Any]:
        card = fields.get("play")
        if set(fields) != {"play"} or not isinstance(card, int) or isinstance(card, bool):
            raise BadFields("play", 'a move is {"play": <a card of your hand>}')
        return {"play": card}

    def new_match(
        self, players: list[str], options: dict[str, Any], number: int, seeds: Seeds
    ) -> tuple[HighCardMatch, LogEntry]:
        # High Card deals from an integer: it takes one from the server seed, and ignores the
        # client seeds (a game may use the seeds or not).
        seed = int.from_bytes(seeds.server_seed[:8], "big")
        head = {"e": "game", "no": number, "players": players, "seed": seed}
        return HighCardMatch(head), head

    def from_log(self, entries: list[LogEntry]) -> HighCardMatch:
        match = HighCardMatch(entries[0])
        for entry in entries[1:]:
            if entry["e"] == "deal":
                match.start_round()
            else:
                match.apply(entry["seat"], {"play": entry["play"]}, entry["t"])
        return match

    def make_bot(
        self,
        level: str,
        seat: int,
        players: list[str],
        options: dict[str, Any],
        view: dict[str, Any] | None,
        seed: int,
    ) -> HighCardBot:
        bot = HighCardBot(seat)
        if view is not None:
            bot.hand = list(view.get("hand", []))
            bot.waiting = not view["played"][seat]
        return bot


SPEC = HighCardSpec()
