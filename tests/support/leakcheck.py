"""An independent checker of the memory rule (docs/rules.md §7) for Crisp message streams.

It never calls the engine's own filtering or knowledge logic. From a ``crisp-record/1`` record
(with an explicit ``deck`` and ``dealer`` per round) it deals the cards itself (R-DEAL) and then
follows the public messages of one seat's stream to know, at every message, where every card is:
in the deck (top first), on the discard pile (oldest first), in a hand slot, or held as a drawn
card. Every card code found anywhere in a message (a regular expression over its JSON text, keys
included) must be one that seat is entitled to at that moment:

- R-SEE-DRAWN: the card the seat just drew from the deck, in its own ``draw`` message;
- R-SEE-LOOK: its own left and right cards in the ``look`` messages of the deal (before anything
  else happens in the round), its own middle card right after its ``jack``, the card that just
  arrived in its own left or right slot right after a ``queen`` that involved it; never a middle
  card by a queen, never a look twice;
- R-SEE-PUBLIC: the card that lands face up on the pile (``swap``, ``discard``, ``jack``,
  ``queen``, ``king``, ``take``, ``timeout``), which must be the very card the model says lands
  there, and the top of the pile;
- R-SEE-REVEAL: every hand in the ``reveal``, which must be the hands of the model.

A code that is not the exact card the model expects is a failure as well (a wrong card is a
leak of some other card). R-NO-TRACE: every key must be one of the keys documented for that
message type in docs/engine.md, no key may look like an identity (``id``, ``index``, ``hash`` ...)
and every string value must be a card code, a slot, a ``why`` or the type (the ``game`` message
may also name the players), so that no face-down card can be followed through the traffic.

``check_view`` applies the same rules to a reconnect snapshot (``game.view(seat)``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

CARD_RE = re.compile(r"\b[A2-9TJQK][SHDC]\b")
SLOTS: tuple[str, str, str] = ("left", "middle", "right")
RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS: frozenset[str] = frozenset(r + s for s in SUITS for r in RANKS)
FACES = frozenset("JQK")

# docs/engine.md, "Messages": the keys of every message type ("type" and "t" everywhere).
_COMMON = frozenset({"type", "t"})
MESSAGE_KEYS: dict[str, frozenset[str]] = {
    name: _COMMON | frozenset(keys)
    for name, keys in {
        "game": {"players", "options"},
        "round": {"round", "dealer", "first", "deck", "look_until"},
        "look": {"seat", "slot", "card", "why"},
        "ready": {"seat"},
        "turn": {"seat", "draw", "left", "at", "deadline", "final"},
        "draw": {"seat", "deck", "card"},
        "recycle": {"deck"},
        "swap": {"seat", "slot", "card"},
        "discard": {"seat", "card"},
        "jack": {"seat", "card"},
        "queen": {"seat", "slot", "target", "target_slot", "card"},
        "king": {"seat", "card", "left"},
        "take": {"seat", "slot", "card"},
        "timeout": {"seat", "card", "lost"},
        "turn_end": {"seat", "window_until", "next", "next_at"},
        "window_closed": {"seat"},
        "crisp": {"seat", "final"},
        "reveal": {"caller", "hands", "scores", "totals"},
        "game_over": {"totals", "winners"},
        "round_story": {"round", "dealer", "hands", "moves"},  # R-SEE-STORY: check_round_story
        "clock": {"seat", "deadline"},
    }.items()
}
OPTION_KEYS = frozenset({"limit", "timer", "take_discard"})
# A game dealt by the commit-reveal shuffle (docs/fairness.md) adds these keys, whose
# values are hex and free text; they are compared with the record's "fairness" instead.
FAIR_KEYS: dict[str, frozenset[str]] = {
    "game": frozenset({"commitment", "client_seeds"}),
    "game_over": frozenset({"server_seed"}),
}
WHYS = frozenset({"deal", "jack", "queen"})
# Strings a message may carry besides card codes (and the players' names in "game").
VOCABULARY = frozenset(SLOTS) | WHYS | frozenset(MESSAGE_KEYS)

_TRACE_WORDS = frozenset(
    {
        "id",
        "ids",
        "uid",
        "uuid",
        "guid",
        "idx",
        "index",
        "indices",
        "indexes",
        "hash",
        "hashes",
        "digest",
        "serial",
        "nonce",
        "token",
        "key",
        "keys",
        "ref",
        "handle",
        "tag",
        "ordinal",
        "code",
        "codes",
        "fingerprint",
        "nth",
        "pos",
        "position",
    }
)
_HEXLIKE = re.compile(r"^(?:[0-9a-fA-F]{8,}|[0-9a-fA-F-]{32,}|[A-Za-z0-9+/=_-]{20,})$")


def _key_words(key: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


@functools.lru_cache(maxsize=8192)  # a pure function of the key: messages repeat their keys
def trace_key(key: str) -> bool:
    """True when a key looks like an identity that could follow a card around (R-NO-TRACE)."""
    words = _key_words(key)
    lowered = key.lower()
    return any(w in _TRACE_WORDS for w in words) or "hash" in lowered or "uuid" in lowered


@functools.lru_cache(maxsize=65536)
def _codes_in_key(key: str) -> frozenset[str]:
    return frozenset(CARD_RE.findall(key))


@functools.lru_cache(maxsize=65536)
def _codes_in_string(value: str) -> frozenset[str]:
    return frozenset(CARD_RE.findall(json.dumps(value, ensure_ascii=False)))


@functools.lru_cache(maxsize=65536, typed=True)  # typed: True and 1 are written differently
def _codes_in_scalar(value: Any) -> frozenset[str]:
    return frozenset(CARD_RE.findall(json.dumps(value, default=str)))


def card_codes(obj: Any, *, skip: frozenset[str] = frozenset()) -> set[str]:
    """Every card code in the JSON text of ``obj``; string values in ``skip`` are left out.
    (The codes of a key, a string or a number are a pure function of it: remembered.)"""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, str):  # the plain types first: cheaper than the ABC's check
            if node not in skip:
                found.update(_codes_in_string(node))
        elif isinstance(node, dict | Mapping):
            for k, v in node.items():
                found.update(_codes_in_key(str(k)))
                walk(v)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v)
        elif isinstance(node, int | float | None):
            found.update(_codes_in_scalar(node))
        else:
            found.update(CARD_RE.findall(json.dumps(node, default=str)))

    walk(obj)
    return found


def rank(card: str) -> str:
    return card[0]


def plain(card: str) -> bool:
    return rank(card) not in FACES


@dataclass
class _RoundState:
    index: int
    dealer: int
    deck: list[str]  # top first
    pile: list[str] = field(default_factory=list)  # oldest first
    hands: list[dict[str, str]] = field(default_factory=list)
    drawn: list[str | None] = field(default_factory=list)
    look_phase: bool = True
    ready: set[int] = field(default_factory=set)
    deal_looks_open: bool = True
    deal_looks_due: set[str] = field(default_factory=set)  # the viewer's slots
    special_looks_due: set[str] = field(default_factory=set)  # the viewer's slots
    special_looks_seen: list[tuple[str, str]] = field(default_factory=list)  # (slot, card)
    over: bool = False
    revealed: list[list[str]] | None = None
    drawn_positions: set[int] = field(default_factory=set)  # positions of the round's deck
    recycled: bool = False
    window: int | None = None  # the seat whose crisp window is open (R-WINDOW), as announced


def deal(deck: Sequence[str], dealer: int, players: int) -> tuple[list[dict[str, str]], list[str]]:
    """R-DEAL: three passes, starting with the seat after the dealer; returns hands and deck."""
    rest = list(deck)
    hands: list[dict[str, str]] = [{} for _ in range(players)]
    for slot in SLOTS:
        for i in range(players):
            hands[(dealer + 1 + i) % players][slot] = rest.pop(0)
    return hands, rest


class Tracker:
    """Follows one seat's stream and checks every message against docs/rules.md §7."""

    def __init__(self, record: Mapping[str, Any], seat: int | None) -> None:
        self.record = record
        self.players: list[str] = list(record["players"])
        self.n = len(self.players)
        self.seat = seat
        self.rounds: list[Mapping[str, Any]] = list(record["rounds"])
        self.failures: list[str] = []
        self.round: _RoundState | None = None
        self.broken = False
        self.index = -1
        self.game_over = False
        self.fairness: Mapping[str, Any] | None = record.get("fairness")
        self._checked_round_decks()

    def _checked_round_decks(self) -> None:
        for r, rnd in enumerate(self.rounds):
            deck = rnd.get("deck")
            if not isinstance(deck, list) or sorted(deck) != sorted(ALL_CARDS):
                self.fail(f"record round {r}: no explicit 52-card deck; the checker needs one")
                self.broken = True
            if not isinstance(rnd.get("dealer"), int):
                self.fail(f"record round {r}: no explicit dealer; the checker needs one")
                self.broken = True

    # -- reporting ---------------------------------------------------------------------------

    def who(self) -> str:
        return "spectator" if self.seat is None else f"seat {self.seat}"

    def fail(self, text: str) -> None:
        self.failures.append(text)

    def fail_msg(self, msg: Mapping[str, Any], text: str) -> None:
        self.fail(f"message {self.index} ({msg.get('type')!r}, to {self.who()}): {text}")

    def lost(self, msg: Mapping[str, Any], text: str) -> None:
        """The model cannot follow the stream any more: report once and stop checking."""
        self.fail_msg(msg, f"MODEL: {text}; the checker stops following this stream")
        self.broken = True

    # -- the stream --------------------------------------------------------------------------

    def feed_all(self, stream: Iterable[Mapping[str, Any]]) -> list[str]:
        for msg in stream:
            if self.broken:
                break
            self.feed(msg)
        return self.failures

    def feed(self, msg: Mapping[str, Any]) -> None:
        """Check one message, then move the cards it moves. Once lost, check nothing more."""
        if self.broken:
            return
        if isinstance(msg, list):  # a frame of several messages: each is checked, in order
            for inner in msg:
                self.feed(inner)
            return
        self.index += 1
        if not isinstance(msg, Mapping):
            self.fail(f"message {self.index}: not a JSON object: {msg!r}")
            return
        typ = msg.get("type")
        rnd = self.round
        if rnd is not None and typ not in ("look", "game", "round"):
            rnd.deal_looks_open = False
            rnd.deal_looks_due.clear()
        if rnd is not None and typ != "look":
            rnd.special_looks_due.clear()
        skip: frozenset[str] = frozenset()
        allowed: dict[str, str] = {}  # card -> rule that allows it
        handler = getattr(self, f"_on_{typ}", None) if isinstance(typ, str) else None
        if typ not in MESSAGE_KEYS or handler is None:
            self.fail_msg(msg, f"DOC: unknown message type {typ!r}")
        else:
            if typ not in {"game", "round"} and self.round is None:
                self.lost(msg, "a round message must come first")
                return
            handler(msg, allowed)
            if typ == "game":
                seeds = (self.fairness or {}).get("client_seeds") or []
                skip = frozenset(self.players) | frozenset(seeds)
        if self.broken:
            return
        rnd = self.round
        if rnd is not None and rnd.pile:
            allowed.setdefault(rnd.pile[-1], "R-SEE-PUBLIC (top of the pile)")
        self._check_trace(msg, typ if isinstance(typ, str) else "")
        for code in sorted(card_codes(msg, skip=skip) - set(allowed)):
            self.fail_msg(msg, f"LEAK {code}: {self._why_not(code)}")

    def _why_not(self, code: str) -> str:
        rnd = self.round
        if rnd is None:
            return "a card before any deal"
        for s, hand in enumerate(rnd.hands):
            for slot, card in hand.items():
                if card == code:
                    own = " (its own)" if s == self.seat else ""
                    return f"face-down card in seat {s}'s {slot} slot{own}, not entitled now"
        for s, held in enumerate(rnd.drawn):
            if held == code:
                return f"card held drawn by seat {s}, not entitled in this message"
        if code in rnd.deck:
            return f"face-down card at position {rnd.deck.index(code)} of the deck"
        if code in rnd.pile:
            return "a card under the top of the pile, no longer public"
        return "not a card the model can place"

    def _check_trace(self, msg: Mapping[str, Any], typ: str) -> None:
        known = MESSAGE_KEYS.get(typ)
        fair = FAIR_KEYS.get(typ, frozenset()) if self.fairness is not None else frozenset()
        if known is not None:
            known = known | fair

        def walk(node: Any, path: str, top: bool) -> None:
            if isinstance(node, str):  # the plain types first: cheaper than the ABC's check
                if node not in ALL_CARDS and node not in VOCABULARY:
                    self.fail_msg(msg, f"R-NO-TRACE: unexpected string {node!r} at {path[:-1]}")
            elif isinstance(node, dict | Mapping):
                for k, v in node.items():
                    key = str(k)
                    if trace_key(key):
                        self.fail_msg(msg, f"R-NO-TRACE: identity-like key {path}{key!r}")
                    elif top and known is not None and key not in known:
                        self.fail_msg(msg, f"R-NO-TRACE/DOC: undocumented key {key!r}")
                    elif path == "options." and key not in OPTION_KEYS:
                        self.fail_msg(msg, f"R-NO-TRACE/DOC: undocumented key options.{key}")
                    if not (typ == "game" and top and key == "players") and not (
                        top and key in fair
                    ):
                        walk(v, f"{path}{key}.", False)
            elif isinstance(node, list | tuple):
                for v in node:
                    walk(v, path, False)

        walk(msg, "", True)

    # -- handlers: each adds the cards this message may show to `allowed` --------------------

    def _need_round(self, msg: Mapping[str, Any]) -> _RoundState:
        assert self.round is not None
        return self.round

    def _seat_of(self, msg: Mapping[str, Any], key: str = "seat") -> int | None:
        s = msg.get(key)
        if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < self.n:
            self.lost(msg, f"{key} {s!r} is not a seat")
            return None
        return s

    def _slot_of(self, msg: Mapping[str, Any], key: str = "slot") -> str | None:
        slot = msg.get(key)
        if slot not in SLOTS:
            self.lost(msg, f"{key} {slot!r} is not a slot")
            return None
        return str(slot)

    def _expect_card(self, msg: Mapping[str, Any], want: str, rule: str) -> None:
        got = msg.get("card")
        if got != want:
            self.fail_msg(msg, f"WRONG CARD ({rule}): card is {got!r}, the model says {want}")

    def _to_pile(self, rnd: _RoundState, card: str, allowed: dict[str, str]) -> None:
        rnd.pile.append(card)
        allowed[card] = "R-SEE-PUBLIC"

    def _check_count(self, msg: Mapping[str, Any], key: str, want: int) -> None:
        if msg.get(key) != want:
            self.fail_msg(msg, f"MODEL: {key} count {msg.get(key)!r}, the model counts {want}")

    def _on_game(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        if msg.get("players") != self.players:
            self.fail_msg(msg, f"DOC: players {msg.get('players')!r} differ from the record")
        if msg.get("options") != self.record.get("options"):
            self.fail_msg(msg, f"DOC: options {msg.get('options')!r} differ from the record")
        fair = self.fairness
        if fair is not None:
            for key in ("commitment", "client_seeds"):
                if msg.get(key) != fair.get(key):
                    self.fail_msg(msg, f"DOC: {key} {msg.get(key)!r} differs from the record")

    def _on_round(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        prev = self.round
        if prev is not None and not prev.over:
            self.fail_msg(msg, "MODEL: a new deal before the previous round was revealed")
        number = msg.get("round")
        want = 0 if prev is None else prev.index + 1
        if number != want + 1:
            self.lost(msg, f"round {number!r}, the model expects round {want + 1}")
            return
        if want >= len(self.rounds):
            self.lost(msg, f"round {number} is not in the record")
            return
        rec_round = self.rounds[want]
        dealer = int(rec_round["dealer"])
        if msg.get("dealer") != dealer:
            self.fail_msg(msg, f"MODEL: dealer {msg.get('dealer')!r}, the record says {dealer}")
        if msg.get("first") != (dealer + 1) % self.n:
            self.fail_msg(msg, f"DOC: first {msg.get('first')!r} is not the seat after the dealer")
        hands, deck = deal(list(rec_round["deck"]), dealer, self.n)
        rnd = _RoundState(index=want, dealer=dealer, deck=deck, hands=hands)
        rnd.drawn = [None] * self.n
        if self.seat is not None:
            rnd.deal_looks_due = {"left", "right"}
        self.round = rnd
        self._check_count(msg, "deck", len(deck))

    def _on_look(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        if self.seat is None:
            self.fail_msg(msg, "LEAK: a look sent to a spectator (R-SEE-LOOK)")
            return
        seat = msg.get("seat")
        slot = msg.get("slot")
        why = msg.get("why")
        if seat != self.seat:
            self.fail_msg(msg, f"LEAK: seat {seat!r}'s look sent to {self.who()} (R-SEE-LOOK)")
            return
        if slot not in SLOTS:
            self.fail_msg(msg, f"DOC: look slot {slot!r}")
            return
        card = rnd.hands[self.seat][str(slot)]
        if why == "deal":
            if not rnd.deal_looks_open or slot not in rnd.deal_looks_due:
                self.fail_msg(
                    msg,
                    f"LEAK: deal look at its {slot} card is not at the deal, is a middle card or"
                    " repeats a look (R-SEE-LOOK, R-LOOK-START)",
                )
                return
            rnd.deal_looks_due.discard(str(slot))
        elif why in ("jack", "queen"):
            if slot not in rnd.special_looks_due:
                self.fail_msg(
                    msg,
                    f"LEAK: {why} look at its {slot} card not right after its own {why}, a middle"
                    " card by a queen, or a look twice (R-SEE-LOOK)",
                )
                return
            rnd.special_looks_due.discard(str(slot))
            rnd.special_looks_seen.append((str(slot), card))
        else:
            self.fail_msg(msg, f"DOC: look why {why!r}")
            return
        self._expect_card(msg, card, "R-SEE-LOOK")
        allowed[card] = "R-SEE-LOOK"

    def _on_ready(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        seat = self._seat_of(msg)
        if seat is not None:
            self._need_round(msg).ready.add(seat)

    def _on_turn(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        self._need_round(msg).look_phase = False

    def _on_draw(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        seat = self._seat_of(msg)
        if seat is None:
            return
        if rnd.drawn[seat] is not None:
            self.lost(msg, f"seat {seat} draws while holding {rnd.drawn[seat]}")
            return
        if not rnd.deck:
            self.lost(msg, "a draw from an empty deck with no recycle first")
            return
        card = rnd.deck.pop(0)
        if not rnd.recycled:
            rnd.drawn_positions.add(3 * self.n + len(rnd.drawn_positions))
        rnd.drawn[seat] = card
        self._check_count(msg, "deck", len(rnd.deck))
        shown = msg.get("card")
        if seat == self.seat:
            if shown is None:
                self.fail_msg(msg, "DOC: the drawer's own draw message has no card")
            else:
                self._expect_card(msg, card, "R-SEE-DRAWN")
            allowed[card] = "R-SEE-DRAWN"
        elif shown is not None:
            self.fail_msg(msg, f"LEAK: seat {seat}'s draw shows a card to {self.who()}")

    def _on_recycle(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        if rnd.deck:
            self.fail_msg(msg, f"MODEL: recycle while the deck still holds {len(rnd.deck)}")
        rnd.deck = rnd.pile + rnd.deck
        rnd.pile = []
        rnd.recycled = True
        self._check_count(msg, "deck", len(rnd.deck))

    def _take_drawn(self, msg: Mapping[str, Any], rnd: _RoundState) -> tuple[int, str] | None:
        seat = self._seat_of(msg)
        if seat is None:
            return None
        card = rnd.drawn[seat]
        if card is None:
            self.lost(msg, f"seat {seat} plays a drawn card it does not hold")
            return None
        rnd.drawn[seat] = None
        return seat, card

    def _on_swap(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        got = self._take_drawn(msg, rnd)
        slot = self._slot_of(msg)
        if got is None or slot is None:
            return
        seat, card = got
        if not plain(card):
            self.fail_msg(msg, f"RULE R-SPECIAL: {card} swapped into a hand")
        replaced = rnd.hands[seat][slot]
        rnd.hands[seat][slot] = card
        self._expect_card(msg, replaced, "R-SEE-PUBLIC")
        self._to_pile(rnd, replaced, allowed)

    def _play_drawn(
        self, msg: Mapping[str, Any], allowed: dict[str, str], ranks: str | None
    ) -> tuple[int, str] | None:
        rnd = self._need_round(msg)
        got = self._take_drawn(msg, rnd)
        if got is None:
            return None
        card = got[1]
        if ranks is not None and rank(card) not in ranks:
            self.fail_msg(msg, f"RULE: {msg.get('type')} played with {card}")
        self._expect_card(msg, card, "R-SEE-PUBLIC")
        self._to_pile(rnd, card, allowed)
        return got

    def _on_discard(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        got = self._play_drawn(msg, allowed, None)
        if got is not None and rank(got[1]) == "K":
            self.fail_msg(msg, f"RULE R-SPECIAL: a drawn King {got[1]} discarded unused")

    def _on_jack(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        got = self._play_drawn(msg, allowed, "J")
        rnd = self._need_round(msg)
        rnd.special_looks_seen = []
        if got is not None and got[0] == self.seat:
            rnd.special_looks_due = {"middle"}

    def _on_queen(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        got = self._play_drawn(msg, allowed, "Q")
        slot = self._slot_of(msg)
        target = self._seat_of(msg, "target")
        target_slot = self._slot_of(msg, "target_slot")
        if got is None or slot is None or target is None or target_slot is None:
            return
        seat = got[0]
        rnd = self._need_round(msg)
        if target == seat:
            self.fail_msg(msg, "RULE R-QUEEN-TARGET: a queen on oneself")
        a, b = rnd.hands[seat][slot], rnd.hands[target][target_slot]
        rnd.hands[seat][slot], rnd.hands[target][target_slot] = b, a
        rnd.special_looks_seen = []
        due: set[str] = set()
        if seat == self.seat and slot != "middle":
            due.add(slot)
        if target == self.seat and target_slot != "middle":
            due.add(target_slot)
        rnd.special_looks_due = due

    def _on_king(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        self._play_drawn(msg, allowed, "K")

    def _on_take(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        seat = self._seat_of(msg)
        slot = self._slot_of(msg)
        if seat is None or slot is None:
            return
        if rnd.drawn[seat] is not None:
            self.lost(msg, f"seat {seat} takes from the pile while holding {rnd.drawn[seat]}")
            return
        if not rnd.pile:
            self.lost(msg, "a take from an empty pile")
            return
        taken = rnd.pile.pop()
        replaced = rnd.hands[seat][slot]
        rnd.hands[seat][slot] = taken
        self._expect_card(msg, replaced, "R-SEE-PUBLIC")
        self._to_pile(rnd, replaced, allowed)

    def _on_timeout(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        seat = self._seat_of(msg)
        if seat is None:
            return
        held = rnd.drawn[seat]
        shown = msg.get("card")
        if held is not None:
            rnd.drawn[seat] = None
            self._expect_card(msg, held, "R-SEE-PUBLIC (R-TIMEOUT)")
            self._to_pile(rnd, held, allowed)
        elif shown is not None:
            if not rnd.deck:
                self.lost(msg, "a timeout draw from an empty deck with no recycle first")
                return
            card = rnd.deck.pop(0)
            if not rnd.recycled:
                rnd.drawn_positions.add(3 * self.n + len(rnd.drawn_positions))
            self._expect_card(msg, card, "R-SEE-PUBLIC (R-TIMEOUT)")
            self._to_pile(rnd, card, allowed)

    def _on_turn_end(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        seat = self._seat_of(msg)
        if seat is not None and rnd.drawn[seat] is not None:
            self.fail_msg(msg, f"MODEL: turn ended while seat {seat} holds {rnd.drawn[seat]}")
        if rnd.window is not None:  # docs/protocol.md: window_closed comes first
            self.fail_msg(msg, f"DOC: seat {rnd.window}'s window closed with no window_closed")
        rnd.window = seat if msg.get("window_until") is not None else None

    def _on_window_closed(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        seat = self._seat_of(msg)
        if seat is None or seat != rnd.window:
            self.fail_msg(msg, f"DOC: window_closed for seat {seat}, whose window is not open")
        rnd.window = None

    def _on_clock(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        self._seat_of(msg)
        self._need_round(msg)

    def _on_crisp(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        self._need_round(msg).window = None  # the window was used: it closes with no message

    def _on_reveal(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        want = [[hand[s] for s in SLOTS] for hand in rnd.hands]
        if msg.get("hands") != want:
            got = msg.get("hands")
            self.fail_msg(msg, f"WRONG CARD (R-SEE-REVEAL): hands {got!r}, the model {want}")
        for hand in want:
            for card in hand:
                allowed[card] = "R-SEE-REVEAL"
        held = [c for c in rnd.drawn if c is not None]
        if held:
            self.fail_msg(msg, f"MODEL: reveal while drawn cards are held: {held}")
        rnd.over = True
        rnd.look_phase = False
        rnd.revealed = want

    def _on_game_over(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        rnd = self._need_round(msg)
        if not rnd.over:
            self.fail_msg(msg, "MODEL: game over before the round was revealed")
        self.game_over = True
        fair = self.fairness
        if fair is not None:
            seed = msg.get("server_seed")
            if seed != fair.get("server_seed"):
                self.fail_msg(msg, f"DOC: server_seed {seed!r} differs from the record")
            elif hashlib.sha256(bytes.fromhex(seed)).hexdigest() != fair.get("commitment"):
                self.fail_msg(msg, "the server seed revealed is not the one committed to")

    def _on_round_story(self, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
        check_round_story(self, msg, allowed)

    # -- views -------------------------------------------------------------------------------

    def check_view(self, view: Any, last_action: Mapping[str, Any] | None) -> list[str]:
        """Failures of a view taken now; ``last_action`` is the last change of the game (a
        jack or queen look is open only if it was that jack or queen)."""
        return _check_view(self, view, last_action)

    def view_allowed(self, last_action: Mapping[str, Any] | None) -> dict[str, str]:
        """The cards ``view(seat)`` may show now, with the rule that allows each."""
        allowed: dict[str, str] = {}
        rnd = self.round
        if rnd is None:
            return allowed
        if rnd.pile:
            allowed[rnd.pile[-1]] = "R-SEE-PUBLIC (top of the pile)"
        if rnd.over and rnd.revealed is not None:
            for hand in rnd.revealed:
                for card in hand:
                    allowed[card] = "R-SEE-REVEAL"
        if self.seat is None:
            return allowed
        held = rnd.drawn[self.seat]
        if held is not None:
            allowed[held] = "R-SEE-DRAWN"
        if rnd.look_phase and not rnd.over and self.seat not in rnd.ready:
            for slot in ("left", "right"):
                allowed[rnd.hands[self.seat][slot]] = "R-SEE-LOOK (start look still open)"
        if last_action is not None and last_action.get("do") in ("jack", "queen"):
            for slot, card in rnd.special_looks_seen:
                if rnd.hands[self.seat][slot] == card:
                    allowed[card] = "R-SEE-LOOK (jack/queen look, the last change)"
        return allowed


def _check_view(tracker: Tracker, view: Any, last_action: Mapping[str, Any] | None) -> list[str]:
    allowed = tracker.view_allowed(last_action)
    failures: list[str] = []
    where = f"view of {tracker.who()} after message {tracker.index}"
    names = frozenset(tracker.players)
    fair = tracker.fairness
    if isinstance(view, Mapping) and "fairness" in view:
        # The shuffle's commitment and client seeds; the server seed only once the game is over.
        want = (
            None
            if fair is None
            else {k: v for k, v in fair.items() if k != "server_seed" or tracker.game_over}
        )
        if view["fairness"] != want:
            failures.append(f"{where}: fairness {view['fairness']!r} is not the record's {want!r}")
        view = {k: v for k, v in view.items() if k != "fairness"}

    for code in sorted(card_codes(view, skip=names) - set(allowed)):
        failures.append(f"{where}: LEAK {code}: {tracker._why_not(code)}")

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if trace_key(str(k)):
                    failures.append(f"{where}: R-NO-TRACE: identity-like key {path}{k!r}")
                walk(v, f"{path}{k}.")
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v, path)
        elif isinstance(node, str) and node not in names and _HEXLIKE.match(node):
            failures.append(f"{where}: R-NO-TRACE: token-like string {node!r} at {path[:-1]}")

    walk(view, "")
    return failures


def check_stream(
    record: Mapping[str, Any], stream: Sequence[Mapping[str, Any]], seat: int | None
) -> list[str]:
    """Failures of ``stream`` (seat ``seat``'s messages, None: a spectator); [] when clean."""
    return Tracker(record, seat).feed_all(stream)


def last_action_of(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The record's last action if it was the last change of the game (no ``end`` after it)."""
    rounds = record.get("rounds") or []
    if not rounds:
        return None
    last = rounds[-1]
    actions = last.get("actions") or []
    if not actions or last.get("end") is not None:
        return None
    action: Mapping[str, Any] = actions[-1]
    return action


def check_view(
    record: Mapping[str, Any],
    stream: Sequence[Mapping[str, Any]],
    seat: int | None,
    view: Mapping[str, Any],
    *,
    last_action: Mapping[str, Any] | None = None,
    use_record_last_action: bool = True,
) -> list[str]:
    """Failures of ``view`` (``game.view(seat)`` after ``stream``, that seat's messages so far).

    The view may show only the seat's drawn card (R-SEE-DRAWN), an open look (R-SEE-LOOK: the
    start look while in the look phase and the seat is not ready; a jack or queen look only if
    that action was the last change of the game, which is the record's last action unless
    ``last_action`` says otherwise), the top of the pile (R-SEE-PUBLIC) and, once the round is
    over, every hand (R-SEE-REVEAL). Stream failures are not repeated here.
    """
    tracker = Tracker(record, seat)
    tracker.feed_all(stream)
    if tracker.broken:
        return [f"view of {tracker.who()}: the stream could not be followed", *tracker.failures]
    if last_action is None and use_record_last_action:
        last_action = last_action_of(record)
    return tracker.check_view(view, last_action)


# -- the round told again (R-SEE-STORY; docs/protocol.md, "round_story") ----------


def check_round_story(tracker: Tracker, msg: Mapping[str, Any], allowed: dict[str, str]) -> None:
    """A ``round_story`` may show exactly the finished round's faces, after its reveal and no
    earlier: it must come between that round's ``reveal`` and the next ``round``, tell that round
    (its number, its dealer, its hands as dealt from the record's deck, each draw before a recycle
    the next card of that deck), and name no card of the deck that nobody drew (the unseen rest of
    the pile); every other card of the round was in a hand (shown by the reveal's story) or face
    up on its pile. Any other card it names is a LEAK (the caller checks the codes found)."""
    rnd = tracker._need_round(msg)
    if not rnd.over:
        tracker.fail_msg(msg, "LEAK (R-SEE-STORY): a round's story before the round's reveal")
        return
    number = msg.get("round")
    if number != rnd.index + 1:
        tracker.fail_msg(
            msg,
            f"LEAK (R-SEE-STORY): round {number!r}'s story after round {rnd.index + 1}'s reveal",
        )
        return
    rec = tracker.rounds[rnd.index]
    hands, rest = deal(list(rec["deck"]), int(rec["dealer"]), tracker.n)
    want = [[hand[s] for s in SLOTS] for hand in hands]
    if msg.get("dealer") != rec["dealer"]:
        tracker.fail_msg(msg, f"WRONG (R-SEE-STORY): dealer {msg.get('dealer')!r}")
    if msg.get("hands") != want:
        tracker.fail_msg(msg, f"WRONG CARD (R-SEE-STORY): hands {msg.get('hands')!r}, dealt {want}")
    moves = msg.get("moves")
    if not isinstance(moves, list):
        tracker.fail_msg(msg, "DOC: a round_story's moves are a list")
        return
    drawn = 0  # cards taken from the deck so far: by a draw, or by a timeout with nothing held
    holding: set[Any] = set()
    for move in moves:
        typ = move.get("type") if isinstance(move, Mapping) else None
        if typ == "recycle":
            break  # later draws come from the pile turned over: every card of it was public
        seat = move.get("seat") if isinstance(move, Mapping) else None
        from_deck = typ == "draw" or (
            typ == "timeout" and seat not in holding and move.get("card") is not None
        )
        if typ == "draw":
            holding.add(seat)
        elif typ in ("swap", "discard", "jack", "queen", "king", "timeout"):
            holding.discard(seat)
        if from_deck:
            if drawn >= len(rest) or move.get("card") != rest[drawn]:
                got = move.get("card")
                tracker.fail_msg(msg, f"WRONG CARD (R-SEE-STORY): deck card {drawn + 1} is {got!r}")
            drawn += 1
    unseen = frozenset() if rnd.recycled else frozenset(rnd.deck)
    for card in ALL_CARDS - unseen:
        allowed.setdefault(card, "R-SEE-STORY")


# -- Crisps! (docs/rules-crisps.md §9): its own checker (tests/support/leakcheck_crisps.py), as
# independent of its
# engine as this one is of Crisp's; re-exported so every channel is checked from one place.
from leakcheck_crisps import check_stream as check_crisps_stream  # noqa: E402, F401
from leakcheck_crisps import check_view as check_crisps_view  # noqa: E402, F401
from leakcheck_crisps import model_after as crisps_model_after  # noqa: E402, F401
