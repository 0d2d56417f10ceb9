"""The leak test and the trace test: docs/rules.md §7 (R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC,
R-SEE-REVEAL, R-NO-TRACE), checked by ``leakcheck``, a model of the cards that is independent of
the engine's own filtering.

- Every message every seat (and a spectator) receives in many random games shows only cards that
  seat may see at that moment.
- ``game.view(seat)`` at random points of random games shows only what the seat may see now.
- Exchanging two cards a seat never sees, in a round's deck, leaves that seat's stream byte for
  byte the same (nothing follows a face-down card around).
- The checker itself reports hand-tampered streams, so it cannot pass silently.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import leakcheck as lc  # tests/ is on sys.path (pytest's "prepend" import mode)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

Record = dict[str, Any]
Message = dict[str, Any]

TIMERS: tuple[int | None, ...] = (None, 30, 45, 60)
LIMITS = (50, 100, 150)
OPTION_GRID = [(timer, take) for timer in TIMERS for take in (False, True)]
ALL_TYPES = frozenset(lc.MESSAGE_KEYS)


# -- the engine (imported lazily: the checker's own tests below need no engine) ----------------


def _options(limit: int, timer: int | None, take: bool) -> Any:
    from crisp.engine.crisp import Options

    return Options(limit=limit, timer=timer, take_discard=take)


def _play(players: int, limit: int, timer: int | None, take: bool, seed: int, **kw: Any) -> Any:
    from crisp.engine.crisp.simulate import play_random

    if "policy" not in kw and seed % 3 == 0:  # a third of the games: absent seats and restarts
        from crisp.engine.crisp.simulate import Policy

        kw["policy"] = Policy(p_absent=0.03, p_restart=0.03)
    return play_random(players, _options(limit, timer, take), seed, **kw)


def _stream(record: Record, seat: int | None) -> list[Message]:
    from crisp.engine.crisp import record as rec

    stream: list[Message] = rec.stream(copy.deepcopy(record), seat)
    return stream


def _dumps(messages: Sequence[Message]) -> str:
    from crisp.engine.crisp import record as rec

    text: str = rec.dumps_stream(messages)
    return text


def _replay_game(record: Record) -> Any:
    from crisp.engine.crisp import record as rec

    return rec.replay(copy.deepcopy(record)).game


def _seats(n: int) -> list[int | None]:
    return [None, *range(n)]


def _game_record(
    players: int, limit: int, timer: int | None, take: bool, seed: int, *, calls: bool = True
) -> Record:
    """A random game's record; without calls, a single long round (the deck recycled often),
    stopped after a few hundred actions."""
    if calls:
        record: Record = _play(players, limit, timer, take, seed).record()
        return record
    from crisp.engine.crisp.simulate import Policy

    budget = 160 + seed % 240
    game = _play(players, limit, timer, take, seed, max_actions=budget, policy=Policy(p_call=0.0))
    record = game.record()
    return record


def _case_grid(seeds_per_case: int, salt: int) -> list[tuple[int, int, int | None, bool, int]]:
    """(players, limit, timer, take_discard, seed): every player count with every option pair."""
    cases = []
    i = 0
    for players in range(2, 9):
        for timer, take in OPTION_GRID:
            for k in range(seeds_per_case):
                cases.append((players, LIMITS[i % 3], timer, take, salt + 1000 * i + k))
                i += 1
    return cases


def _assert_clean(record: Record, n: int) -> Counter[str]:
    types: Counter[str] = Counter()
    for seat in _seats(n):
        stream = _stream(record, seat)
        failures = lc.check_stream(record, stream, seat)
        assert not failures, "\n".join(failures[:20])
        types.update(m.get("type", "?") for m in stream)
    return types


# -- (1) every stream of many random games is clean -------------------------------------------


@pytest.mark.parametrize(("players", "limit", "timer", "take", "seed"), _case_grid(1, 17))
def test_random_games_leak_nothing(
    players: int, limit: int, timer: int | None, take: bool, seed: int
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE: every seat's and a
    spectator's stream of a random game shows only entitled cards, each the right one."""
    record = _game_record(players, limit, timer, take, seed)
    _assert_clean(record, players)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "limit", "timer", "take", "seed"), _case_grid(3, 90001))
def test_random_games_leak_nothing_soak(
    players: int, limit: int, timer: int | None, take: bool, seed: int
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE over more seeds."""
    record = _game_record(players, limit, timer, take, seed)
    _assert_clean(record, players)


@pytest.mark.parametrize(
    ("players", "limit", "timer", "take", "seed"),
    [
        # Quick: two option pairs per player count, all eight over the counts; the rest is slow.
        pytest.param(*case, marks=() if i % 4 == (i // 8) % 4 else (pytest.mark.slow,))
        for i, case in enumerate(_case_grid(1, 333))
    ],
)
def test_long_rounds_with_recycles_leak_nothing(
    players: int, limit: int, timer: int | None, take: bool, seed: int
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-NO-TRACE through R-RECYCLE: rounds nobody ends
    turn the pile over again and again; the new deck's order is never shown."""
    record = _game_record(players, limit, timer, take, seed, calls=False)
    types = _assert_clean(record, players)
    assert types["recycle"] > 0


def test_random_games_exercise_every_message() -> None:
    """The leak test means something only if random games produce every kind of message
    (R-SEE-DRAWN draws, R-SEE-LOOK looks, R-SEE-PUBLIC plays, R-SEE-REVEAL reveals)."""
    seen: Counter[str] = Counter()
    for i, (players, timer, take) in enumerate(
        [(3, 30, True), (4, 30, True), (2, 45, True), (5, None, False), (3, 60, True)]
    ):
        record = _game_record(players, 50, timer, take, 4242 + i)
        seen.update(_assert_clean(record, players))
    seen.update(_assert_clean(_game_record(3, 50, 30, True, 4000, calls=False), 3))
    missing = ALL_TYPES - set(seen)
    assert not missing, f"random games never produced {sorted(missing)}"


LEAK_EXAMPLES = int(os.environ.get("CRISP_LEAK_EXAMPLES", "20"))


@settings(max_examples=LEAK_EXAMPLES, deadline=None, derandomize=True, database=None)
@given(
    players=st.integers(2, 8),
    limit=st.sampled_from(LIMITS),
    timer=st.sampled_from(TIMERS),
    take=st.booleans(),
    calls=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_game_leaks_nothing_and_cannot_be_traced(
    players: int, limit: int, timer: int | None, take: bool, calls: bool, seed: int
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE on games hypothesis
    picks (``CRISP_LEAK_EXAMPLES`` of them, 20 by default; raise it for a soak)."""
    record = _game_record(players, limit, timer, take, seed, calls=calls)
    _assert_clean(record, players)
    _trace_trial(record, players, random.Random(seed), 1, early=True)


# -- (2) views at random points ---------------------------------------------------------------


def _truncate(record: Record, round_index: int, count: int) -> Record:
    """The record up to round ``round_index``'s first ``count`` actions (a game in progress)."""
    out = copy.deepcopy(record)
    out["rounds"] = out["rounds"][: round_index + 1]
    last = out["rounds"][round_index]
    if count < len(last.get("actions", [])):
        last["actions"] = last["actions"][:count]
        last.pop("end", None)
        if "clock" in last:  # the server's entries made after the cut did not happen yet
            last["clock"] = [c for c in last["clock"] if c["after"] < count]
    return out


def _cut_points(record: Record, rng: random.Random, k: int) -> Iterator[tuple[int, int]]:
    """Random (round, count) cut points, with a bias to just after a jack, queen or draw."""
    rounds = record["rounds"]
    special = [
        (ri, ai + 1)
        for ri, rnd in enumerate(rounds)
        for ai, act in enumerate(rnd.get("actions", []))
        if act.get("do") in ("jack", "queen", "draw", "take_discard")
    ]
    for _ in range(k):
        if special and rng.random() < 0.5:
            yield rng.choice(special)
        else:
            ri = rng.randrange(len(rounds))
            yield ri, rng.randint(0, len(rounds[ri].get("actions", [])))
    yield len(rounds) - 1, len(rounds[-1].get("actions", []))  # the whole game


def _check_views(record: Record, n: int) -> list[str]:
    game = _replay_game(record)
    failures: list[str] = []
    for seat in _seats(n):
        view = game.view(seat)
        json.dumps(view)  # a view is JSON-ready
        stream = _stream(record, seat)
        failures += lc.check_stream(record, stream, seat)
        failures += lc.check_view(record, stream, seat, view)
    return failures


@pytest.mark.parametrize(
    ("players", "timer", "take", "seed"),
    [(p, t, d, 500 + 7 * p + i) for i, (t, d) in enumerate(OPTION_GRID) for p in (2, 3, 5, 8)],
)
def test_views_show_only_what_a_seat_may_see(
    players: int, timer: int | None, take: bool, seed: int
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE for ``game.view``: at
    random cut points the view shows only the held drawn card, an open look, the top of the
    pile, and the hands once the round is over."""
    rng = random.Random(seed)
    record = _game_record(players, LIMITS[seed % 3], timer, take, seed)
    for ri, count in _cut_points(record, rng, 3):
        cut = _truncate(record, ri, count)
        failures = _check_views(cut, players)
        assert not failures, f"cut at round {ri} action {count}:\n" + "\n".join(failures[:20])


def _gets(to: int | None, seat: int | None) -> bool:
    """docs/engine.md: ``to`` None is everyone, s >= 0 seat s only, ~s everyone but seat s."""
    if to is None:
        return True
    if to >= 0:
        return to == seat
    return seat is None or seat != ~to


def _drive(record: Record) -> Iterator[tuple[Any, list[tuple[int | None, Message]]]]:
    """Play ``record`` through the Game API one change at a time: every deal, every deadline
    (each one alone, via ``next_deadline``/``advance``) and every action. Yields the game and the
    (to, msg) pairs of each change."""
    from crisp.engine.crisp import Game, actions

    game = Game(record["players"], _options(**_opts(record)))
    rounds = record["rounds"]

    def deadlines_until(t: float | None) -> Iterator[tuple[Any, list[tuple[int | None, Message]]]]:
        while not game.round.over:
            nxt = game.next_deadline()
            if nxt is None or (t is not None and nxt > t):
                return
            yield game, [(o.to, o.msg) for o in game.advance(nxt)]

    def server_clock(entry: dict[str, Any]) -> list[tuple[int | None, Message]]:
        if entry["do"] == "restart":
            return [(o.to, o.msg) for o in game.restart_clock(entry["t"])]
        return [(o.to, o.msg) for o in game.set_absent(entry["seat"], entry["until"], entry["t"])]

    for ri, rnd in enumerate(rounds):
        yield game, [(o.to, o.msg) for o in game.start_round(rnd["deck"], rnd["dealer"])]
        clock = list(rnd.get("clock", []))
        for ai, act in enumerate(rnd.get("actions", [])):
            while clock and clock[0]["after"] == ai:
                entry = clock.pop(0)
                yield from deadlines_until(entry["t"])
                yield game, server_clock(entry)
            yield from deadlines_until(act["t"])
            yield game, [(o.to, o.msg) for o in game.apply(actions.from_record(act), act["t"])]
        for entry in clock:
            yield from deadlines_until(entry["t"])
            yield game, server_clock(entry)
        if "end" in rnd:
            yield from deadlines_until(rnd["end"])
        if ri + 1 < len(rounds):
            yield from deadlines_until(None)


def _opts(record: Record) -> dict[str, Any]:
    o = record["options"]
    return {"limit": o["limit"], "timer": o["timer"], "take": o["take_discard"]}


@pytest.mark.parametrize(
    ("players", "timer", "take", "seed", "calls"),
    [
        (p, t, d, 900 + 11 * p + i, p % 2 == 0 or i % 3 != 0)
        for i, (t, d) in enumerate(OPTION_GRID)
        for p in (2, 3, 6)
    ],
)
def test_views_after_every_change(
    players: int, timer: int | None, take: bool, seed: int, calls: bool
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE for ``game.view`` after
    every single change, deadlines included: a jack or queen look is open only until the next
    change, the start look only until the seat is ready or the look phase ends."""
    record = _game_record(players, LIMITS[seed % 3], timer, take, seed, calls=calls)
    trackers = {seat: lc.Tracker(record, seat) for seat in _seats(players)}
    last: dict[str, str] | None = None
    changes = 0
    driven: list[Message] = []
    for game, outs in _drive(record):
        if not outs:
            continue
        changes += 1
        driven += [m for _, m in outs]
        special = [m["type"] for _, m in outs if m.get("type") in ("jack", "queen")]
        last = {"do": special[-1]} if special else None
        for seat, tracker in trackers.items():
            for to, msg in outs:
                if _gets(to, seat):
                    tracker.feed(msg)
            assert not tracker.failures, "\n".join(tracker.failures[:20])
            failures = tracker.check_view(game.view(seat), last)
            assert not failures, "\n".join(failures[:20])
    assert changes > 0
    from crisp.engine.crisp import record as rec

    assert driven == [o.msg for o in rec.replay(copy.deepcopy(record)).outs]


# -- (3) the trace test -----------------------------------------------------------------------


def _round_codes(stream: Sequence[Message]) -> set[str]:
    """Every card code in the messages of the stream's last round (from its last deal on)."""
    start = max((i for i, m in enumerate(stream) if m.get("type") == "round"), default=0)
    codes: set[str] = set()
    for msg in stream[start:]:
        codes |= lc.card_codes(msg)
    return codes


def _drawn_positions(record: Record, n: int) -> set[int]:
    """Positions of the last round's deck that were drawn from the deck (checker's model)."""
    tracker = lc.Tracker(record, None)
    tracker.feed_all(_stream(record, None))
    assert not tracker.failures, tracker.failures
    assert tracker.round is not None
    return set(tracker.round.drawn_positions)


def _klass(card: str) -> str:
    return card[0] if card[0] in "JQK" else "plain"


def _swappable_pairs(
    deck: Sequence[str], hidden: frozenset[str], drawn: set[int]
) -> list[tuple[int, int]]:
    """Pairs of positions holding hidden cards whose exchange keeps every action legal: a drawn
    position must keep its class (J, Q, K, or a plain A-T card)."""
    spots = [i for i, c in enumerate(deck) if c in hidden]
    pairs = []
    for a in range(len(spots)):
        for b in range(a + 1, len(spots)):
            i, j = spots[a], spots[b]
            if (i in drawn or j in drawn) and _klass(deck[i]) != _klass(deck[j]):
                continue
            pairs.append((i, j))
    return pairs


def _deal_position(seat: int, slot: int, dealer: int, n: int) -> int:
    """R-DEAL: where in the round's deck the card of ``seat``'s slot (0 left, 1 middle) was."""
    return slot * n + (seat - dealer - 1) % n


def _exchanged(record: Record, i: int, j: int) -> Record:
    other = copy.deepcopy(record)
    deck = other["rounds"][-1]["deck"]
    deck[i], deck[j] = deck[j], deck[i]
    return other


def _trace_trial(
    record: Record, n: int, rng: random.Random, pairs_per_seat: int, *, early: bool
) -> int:
    """Cut the record mid-round (``early``: within its first 40 actions), then for every seat
    exchange hidden cards and compare streams. Returns how many exchanges were tried."""
    rounds = record["rounds"]
    ri = rng.randrange(len(rounds))
    acts = rounds[ri].get("actions", [])
    last = max(0, len(acts) - 1)
    # Late in a long round most cards have been seen: few cards are left to exchange.
    cut = _truncate(record, ri, rng.randint(0, min(last, 40) if early else last))
    drawn = _drawn_positions(cut, n)
    deck: list[str] = cut["rounds"][-1]["deck"]
    dealer: int = cut["rounds"][-1]["dealer"]
    tried = 0
    for seat in range(n):
        before = _dumps(_stream(cut, seat))
        hidden = lc.ALL_CARDS - _round_codes(_stream(cut, seat))
        pairs = _swappable_pairs(deck, hidden, drawn)
        # Prefer exchanges a trace would show: the seat's own middle card, cards dealt face down
        # (perhaps moved by a queen since), cards drawn and swapped into a hand.
        middle = _deal_position(seat, 1, dealer, n)
        dealt = 3 * n
        with_middle = [p for p in pairs if middle in p]
        chosen = rng.sample(with_middle, min(1, len(with_middle)))
        rich = [p for p in pairs if p[0] < dealt or p[0] in drawn or p[1] in drawn]
        chosen += rng.sample(rich, min(pairs_per_seat, len(rich)))
        chosen += rng.sample(pairs, min(1, len(pairs)))
        for i, j in chosen:
            after = _dumps(_stream(_exchanged(cut, i, j), seat))
            assert after == before, (
                f"R-NO-TRACE: seat {seat}'s stream changed when {deck[i]} (deck position {i}) "
                f"and {deck[j]} (position {j}) were exchanged in round {ri + 1}\n"
                + _first_difference(before, after)
            )
            tried += 1
        # All the hidden cards at once, each class shuffled among its own positions.
        other = copy.deepcopy(cut)
        odeck = other["rounds"][-1]["deck"]
        for klass in ("J", "Q", "K", "plain"):
            spots = [k for k, c in enumerate(deck) if c in hidden and _klass(c) == klass]
            cards = [deck[k] for k in spots]
            rng.shuffle(cards)
            for k, c in zip(spots, cards, strict=True):
                odeck[k] = c
        after = _dumps(_stream(other, seat))
        assert after == before, (
            f"R-NO-TRACE: seat {seat}'s stream changed when its hidden cards were shuffled in "
            f"round {ri + 1}\n" + _first_difference(before, after)
        )
        # Control: the seat's own left card is seen at the deal, so exchanging it must show.
        left = _deal_position(seat, 0, dealer, n)
        spare = [k for k in range(dealt, len(deck)) if deck[k] in hidden and k not in drawn]
        if spare:
            after = _dumps(_stream(_exchanged(cut, left, rng.choice(spare)), seat))
            assert after != before, "the trace test cannot see a change the seat does see"
    return tried


def _first_difference(before: str, after: str) -> str:
    for k, (x, y) in enumerate(zip(before.splitlines(), after.splitlines(), strict=False)):
        if x != y:
            return f"first differing message {k}:\n  before {x}\n  after  {y}"
    return "the streams differ in length"


@pytest.mark.parametrize(
    ("players", "timer", "take", "seed", "calls"),
    [
        (p, t, d, 7000 + 13 * p + i, i % 4 != 1)
        for i, (t, d) in enumerate(OPTION_GRID)
        for p in (2, 4, 7)
    ],
)
def test_hidden_cards_cannot_be_traced(
    players: int, timer: int | None, take: bool, seed: int, calls: bool
) -> None:
    """R-NO-TRACE: exchanging, in a round's deck, two cards a seat never sees (and whose exchange
    keeps every action legal) leaves that seat's stream byte for byte the same."""
    rng = random.Random(seed)
    record = _game_record(players, LIMITS[seed % 3], timer, take, seed, calls=calls)
    tried = sum(_trace_trial(record, players, rng, 2, early=k == 0) for k in range(2))
    assert tried > 0


# -- (4) the checker catches tampering: a hand-made stream (no engine needed) -------------------

# Two seats, seat 1 deals, so seat 0 gets cards 0, 2, 4 and seat 1 cards 1, 3, 5 of the deck.
_TOP = ["2S", "3S", "4S", "5S", "6S", "7S", "8H", "JD", "QC", "KH", "9D", "TC"]
FIXTURE_DECK = _TOP + sorted(lc.ALL_CARDS - set(_TOP))
FIXTURE_RECORD: Record = {
    "format": "crisp-record/1",
    "players": ["Ana", "Ben"],
    "options": {"limit": 100, "timer": None, "take_discard": False},
    "rounds": [{"dealer": 1, "deck": FIXTURE_DECK, "actions": []}],
}


def _fixture_outs() -> list[tuple[int | None, Message]]:
    """(to, msg) per docs/engine.md: None everyone, s seat s only, ~s everyone but s."""
    m: list[tuple[int | None, Message]] = []

    def add(to: int | None, typ: str, t: float, **fields: Any) -> None:
        m.append((to, {"type": typ, "t": t, **fields}))

    def turn(seat: int, t: float, draw: int = 1, left: int = 1, final: bool = False) -> None:
        add(None, "turn", t, seat=seat, draw=draw, left=left, at=t, deadline=None, final=final)

    def draw(seat: int, t: float, deck: int, card: str) -> None:
        add(seat, "draw", t, seat=seat, deck=deck, card=card)
        add(~seat, "draw", t, seat=seat, deck=deck)

    add(None, "game", 0.0, players=["Ana", "Ben"], options=FIXTURE_RECORD["options"])
    add(None, "round", 0.0, round=1, dealer=1, first=0, deck=46, look_until=10.0)
    add(0, "look", 0.0, seat=0, slot="left", card="2S", why="deal")
    add(0, "look", 0.0, seat=0, slot="right", card="6S", why="deal")
    add(1, "look", 0.0, seat=1, slot="left", card="3S", why="deal")
    add(1, "look", 0.0, seat=1, slot="right", card="7S", why="deal")
    add(None, "ready", 1.0, seat=0)
    add(None, "ready", 2.0, seat=1)
    turn(0, 2.0)
    draw(0, 3.0, 45, "8H")
    add(None, "swap", 4.0, seat=0, slot="left", card="2S")
    add(None, "turn_end", 4.0, seat=0, window_until=7.0, next=1, next_at=6.0)
    turn(1, 6.0)
    draw(1, 7.0, 44, "JD")
    add(None, "window_closed", 7.0, seat=0)
    add(None, "jack", 8.0, seat=1, card="JD")
    add(1, "look", 8.0, seat=1, slot="middle", card="5S", why="jack")
    add(None, "turn_end", 8.0, seat=1, window_until=11.0, next=0, next_at=10.0)
    turn(0, 10.0)
    draw(0, 10.5, 43, "QC")
    add(None, "window_closed", 10.5, seat=1)
    add(None, "queen", 11.0, seat=0, slot="right", target=1, target_slot="left", card="QC")
    add(0, "look", 11.0, seat=0, slot="right", card="3S", why="queen")
    add(1, "look", 11.0, seat=1, slot="left", card="6S", why="queen")
    add(None, "turn_end", 11.0, seat=0, window_until=14.0, next=1, next_at=13.0)
    add(None, "crisp", 12.0, seat=0, final=[1])
    turn(1, 13.0, final=True)
    draw(1, 13.5, 42, "KH")
    add(None, "king", 14.0, seat=1, card="KH", left=2)
    turn(1, 14.0, draw=2, left=2, final=True)
    draw(1, 14.5, 41, "9D")
    add(None, "discard", 15.0, seat=1, card="9D")
    turn(1, 15.0, draw=3, left=1, final=True)
    draw(1, 15.5, 40, "TC")
    add(None, "swap", 16.0, seat=1, slot="middle", card="5S")
    add(None, "turn_end", 16.0, seat=1, window_until=None, next=0, next_at=16.0)
    hands = [["8H", "4S", "3S"], ["6S", "TC", "7S"]]
    add(None, "reveal", 16.0, caller=0, hands=hands, scores=[10, 23], totals=[10, 23])
    return m


def fixture_stream(seat: int | None) -> list[Message]:
    return [copy.deepcopy(msg) for to, msg in _fixture_outs() if _gets(to, seat)]


def _index(stream: Sequence[Message], typ: str, nth: int = 0, **match: Any) -> int:
    hits = [
        i
        for i, m in enumerate(stream)
        if m.get("type") == typ and all(m.get(k) == v for k, v in match.items())
    ]
    return hits[nth]


@pytest.mark.parametrize("seat", [None, 0, 1])
def test_checker_passes_the_clean_fixture(seat: int | None) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL: a stream built by hand from the doc is
    clean for both seats and a spectator (the checker does not cry wolf)."""
    assert lc.check_stream(FIXTURE_RECORD, fixture_stream(seat), seat) == []


def _tampered(seat: int | None, change: Any) -> list[str]:
    stream = fixture_stream(seat)
    change(stream)
    return lc.check_stream(FIXTURE_RECORD, stream, seat)


def _set(i_of: Any, **fields: Any) -> Any:
    def change(stream: list[Message]) -> None:
        stream[i_of(stream)].update(fields)

    return change


def _look(t: float, seat: int, slot: str, card: str, why: str) -> Message:
    return {"type": "look", "t": t, "seat": seat, "slot": slot, "card": card, "why": why}


def _insert(at_of: Any, msg: Message) -> Any:
    def change(stream: list[Message]) -> None:
        stream.insert(at_of(stream), msg)

    return change


def _remove(at_of: Any) -> Any:
    def change(stream: list[Message]) -> None:
        del stream[at_of(stream)]

    return change


def _first(typ: str, nth: int = 0, **match: Any) -> Any:
    return lambda s: _index(s, typ, nth, **match)


# name: (seat whose stream is tampered, the change, a text one of the failures must contain).
# Extra keys are also undocumented keys; the expected text makes sure the card itself is caught.
TAMPERS: dict[str, tuple[int | None, Any, str]] = {
    # R-SEE-LOOK: another seat's middle card slipped into a public message.
    "other seat's middle in turn": (0, _set(_first("turn"), hint="5S"), "LEAK 5S"),
    # R-SEE-LOOK: your own middle card, never looked at.
    "own middle in turn_end": (0, _set(_first("turn_end"), note="4S"), "LEAK 4S"),
    # R-SEE-LOOK: your own right card after the look; the card you swapped in (R-SEE-DRAWN ends).
    "own right after the look": (0, _set(_first("turn", 1), left="6S"), "LEAK 6S"),
    "own swapped-in card": (0, _set(_first("turn", 1), draw="8H"), "LEAK 8H"),
    # R-SEE-DRAWN: a spectator is sent the drawn card.
    "spectator draw with card": (None, _set(_first("draw"), card="8H"), "LEAK 8H"),
    # R-SEE-DRAWN: seat 1 is sent seat 0's drawn card.
    "other seat's draw with card": (1, _set(_first("draw", seat=0), card="8H"), "LEAK 8H"),
    # R-SEE-DRAWN: the drawn card repeated after its draw message.
    "drawn card repeated": (0, _set(_first("swap"), was="8H"), "LEAK 8H"),
    # R-SEE-DRAWN: the draw shows the wrong card (the next one of the deck).
    "draw shows the wrong card": (0, _set(_first("draw"), card="JD"), "WRONG CARD"),
    # R-SEE-PUBLIC: the pile gets a card other than the one that landed.
    "wrong discard card": (1, _set(_first("discard"), card="TH"), "WRONG CARD"),
    "wrong swap card": (None, _set(_first("swap"), card="6S"), "WRONG CARD"),
    "wrong jack card": (None, _set(_first("jack"), card="JH"), "WRONG CARD"),
    # R-SEE-PUBLIC: a card under the top of the pile is no longer public.
    "old pile card": (None, _set(_first("turn", 4), pile=["2S", "JD"]), "LEAK 2S"),
    # R-SEE-PUBLIC: the deck order.
    "deck top in round": (None, _set(_first("round"), top="8H"), "LEAK 8H"),
    # R-SEE-LOOK: a look at a middle card after a queen.
    "queen look at middle": (
        1,
        _set(_first("look", why="queen"), slot="middle", card="5S"),
        "LEAK 5S",
    ),
    # R-SEE-LOOK: a look that is not the seat's own.
    "deal look of seat 1 to seat 0": (
        0,
        _set(_first("look", slot="right"), seat=1, card="7S"),
        "LEAK 7S",
    ),
    # R-SEE-LOOK: the deal look at the wrong card.
    "deal look wrong card": (0, _set(_first("look", slot="right"), card="7S"), "WRONG CARD"),
    # R-SEE-REVEAL: a reveal that is not the model's hands.
    "wrong reveal": (
        None,
        _set(_first("reveal"), hands=[["8H", "4S", "3S"], ["6S", "7S", "TC"]]),
        "WRONG CARD (R-SEE-REVEAL)",
    ),
    # R-NO-TRACE: identities.
    "card id key": (None, _set(_first("queen"), card_id=17), "identity-like key"),
    "index key": (0, _set(_first("draw"), index=6), "identity-like key"),
    "hash value": (None, _set(_first("turn_end"), next="deadbeefcafe"), "unexpected string"),
    "extra key": (None, _set(_first("queen"), moved=3), "undocumented key"),
    # R-SEE-LOOK: looking twice; a deal look after the deal; a jack look without a jack.
    "deal look twice": (
        0,
        _insert(lambda s: _index(s, "look", slot="right") + 1, _look(0, 0, "left", "2S", "deal")),
        "LEAK 2S",
    ),
    "deal look late": (0, _insert(_first("turn"), _look(2, 0, "left", "2S", "deal")), "LEAK 2S"),
    "jack look without a jack": (
        0,
        _insert(_first("turn_end"), _look(4, 0, "middle", "4S", "jack")),
        "LEAK 4S",
    ),
    "look to a spectator": (
        None,
        _insert(_first("ready"), _look(0, 0, "left", "2S", "deal")),
        "LEAK 2S",
    ),
    # The model must notice a missing message (here the draw of 8H): what follows is wrong.
    "missing draw": (None, _remove(_first("draw", seat=0)), "MODEL"),
    # R-WINDOW (docs/protocol.md): a window closes with a window_closed before the next turn_end.
    "missing window_closed": (1, _remove(_first("window_closed")), "no window_closed"),
    "window_closed of no window": (
        None,
        _insert(_first("ready"), {"type": "window_closed", "t": 1.0, "seat": 1}),
        "whose window is not open",
    ),
    "unknown type": (
        None,
        _insert(_first("ready"), {"type": "peek", "t": 0.5, "seat": 0}),
        "unknown message type",
    ),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_checker_reports_tampered_fixture(name: str) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE: each hand-made leak in
    a clean stream is reported, for the right reason (the checker cannot pass silently)."""
    seat, change, expect = TAMPERS[name]
    failures = _tampered(seat, change)
    assert any(expect in f for f in failures), f"the checker missed {name}: {failures}"


def test_checker_fixture_views() -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL for views, by hand."""
    full = fixture_stream(0)
    # In the look phase, not yet ready: the start look is open.
    at_deal = full[: _index(full, "ready")]
    view: dict[str, Any] = {"top": None, "you": {"looks": [{"card": "2S"}, {"card": "6S"}]}}
    assert lc.check_view(FIXTURE_RECORD, at_deal, 0, view) == []
    assert lc.check_view(FIXTURE_RECORD, at_deal, 1, view)  # not seat 1's look
    assert lc.check_view(FIXTURE_RECORD, at_deal, None, view)
    after_ready = full[: _index(full, "ready") + 1]
    assert lc.check_view(FIXTURE_RECORD, after_ready, 0, view)  # ready: the look is over
    # Holding the drawn 8H; then the top of the pile.
    holding = full[: _index(full, "swap")]
    assert lc.check_view(FIXTURE_RECORD, holding, 0, {"you": {"card": "8H"}}) == []
    assert lc.check_view(FIXTURE_RECORD, holding, None, {"you": {"card": "8H"}})
    swapped = full[: _index(full, "swap") + 1]
    assert lc.check_view(FIXTURE_RECORD, swapped, 0, {"top": "2S"}) == []
    assert lc.check_view(FIXTURE_RECORD, swapped, 0, {"top": "2S", "you": {"card": "8H"}})
    # The queen look: open only while the queen is the last change.
    queen = {"do": "queen"}
    after_queen = full[: _index(full, "look", why="queen") + 1]
    view = {"top": "QC", "you": {"looks": [{"slot": "right", "card": "3S"}]}}
    assert lc.check_view(FIXTURE_RECORD, after_queen, 0, view, last_action=queen) == []
    assert lc.check_view(FIXTURE_RECORD, after_queen, 0, view, use_record_last_action=False)
    # Own middle, a trace key: never.
    assert lc.check_view(FIXTURE_RECORD, swapped, 0, {"top": "2S", "middle": "4S"})
    assert lc.check_view(FIXTURE_RECORD, swapped, 0, {"top": "2S", "card_id": 3})
    # The round over: every hand.
    view = {"hands": [["8H", "4S", "3S"], ["6S", "TC", "7S"]], "top": "5S"}
    assert lc.check_view(FIXTURE_RECORD, full, None, view) == []


# -- (4b) the checker catches tampering of real engine streams ---------------------------------


def _engine_record() -> Record:
    for seed in range(1, 200):
        record = _game_record(3, 50, None, False, seed)
        kinds = {m["type"] for m in _stream(record, None)}
        if {"jack", "queen", "discard", "swap", "reveal"} <= kinds:
            return record
    raise AssertionError("no random game with a jack, a queen, a discard and a swap")


def test_checker_reports_tampered_engine_streams() -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-NO-TRACE: leaks injected into real engine
    streams are reported; a seat's stream is not clean for another seat or a spectator."""
    record = _engine_record()
    n = len(record["players"])
    hands, deck = lc.deal(record["rounds"][0]["deck"], record["rounds"][0]["dealer"], n)
    base = {seat: _stream(record, seat) for seat in _seats(n)}
    for seat in _seats(n):
        assert lc.check_stream(record, base[seat], seat) == []

    def caught(seat: int | None, change: Any, expect: str) -> bool:
        stream = copy.deepcopy(base[seat])
        change(stream)
        return any(expect in f for f in lc.check_stream(record, stream, seat))

    # Another seat's middle card (unseen by anyone at the first turn) in seat 0's turn message.
    middle1 = hands[1]["middle"]
    assert caught(0, _set(_first("turn"), hint=middle1), f"LEAK {middle1}")
    # Seat 0's own middle card, in a documented field.
    middle0 = hands[0]["middle"]
    assert caught(0, _set(_first("turn"), at=middle0), f"LEAK {middle0}")
    # A spectator's first draw message carries the drawn card (the deck's top after the deal).
    assert caught(None, _set(_first("draw"), card=deck[0]), f"LEAK {deck[0]}")
    # The card of a discard changed to another one.

    def wrong_discard(stream: list[Message]) -> None:
        i = _index(stream, "discard")
        stream[i]["card"] = "AS" if stream[i]["card"] != "AS" else "2S"

    assert caught(None, wrong_discard, "WRONG CARD")
    assert caught(1, _set(_first("swap"), card_id=1), "identity-like key")
    # The next cards of the deck in a public message.
    assert caught(2, _set(_first("round"), deck=deck[:3]), f"LEAK {deck[1]}")
    # A stream fed for the wrong seat: its looks and draws are someone else's.
    assert any("LEAK" in f for f in lc.check_stream(record, base[0], 1))
    assert any("LEAK" in f for f in lc.check_stream(record, base[1], None))


@pytest.mark.parametrize("seed", range(6))
def test_checker_reports_any_hidden_card_anywhere(seed: int) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL: a card that never shows in a seat's
    stream during a round (so that seat may never see it then), written into any message of that
    round, in a new field or in place of a card the message carries, is reported as a leak or
    as a wrong card. The judge here is the stream itself, not the checker's model."""
    rng = random.Random(seed)
    players = 2 + seed % 7
    record = _game_record(players, 50, (None, 30)[seed % 2], seed % 3 == 0, 60 + seed)
    cut = _truncate(record, 0, rng.randint(1, min(40, len(record["rounds"][0]["actions"]))))
    for seat in _seats(players):
        stream = _stream(cut, seat)
        hidden = sorted(lc.ALL_CARDS - _round_codes(stream))
        start = _index(stream, "round")
        assert hidden
        for _ in range(25):
            i = rng.randrange(start, len(stream))
            card = rng.choice(hidden)
            tampered = copy.deepcopy(stream)
            msg = tampered[i]
            expect: tuple[str, ...]
            if isinstance(msg.get("card"), str) and rng.random() < 0.5:
                msg["card"] = card
                expect = ("LEAK", "WRONG CARD")
            else:
                msg[rng.choice(["hint", "note", "x"])] = card
                expect = (f"LEAK {card}",)
            failures = lc.check_stream(cut, tampered, seat)
            assert any(e in f for f in failures for e in expect), (
                f"seat {seat}: {card} written into message {i} {stream[i]} was not reported: "
                f"{failures}"
            )


# -- (5) the soak, in CI-sized chunks: replay agreement and no leak over many games ---------------


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_soak_chunk_replays_agree_and_leak_nothing(chunk: int) -> None:
    """R-SHUFFLE and §7: 25 random games per chunk (every option in turn, 2 to 8 players): each
    replays to its own result, and no stream of any seat or spectator leaks
    (tests/support/soak.py)."""
    import soak

    counts = soak.soak(25, 500_000 + 1000 * chunk)
    assert counts["games"] == 25 and counts["streams"] >= 25 * 3
