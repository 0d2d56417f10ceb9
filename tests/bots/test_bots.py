"""The bots (crisp.bots.crisp): honest by construction, legal, deterministic, and the simulate
report."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from crisp_cmd import crisp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crisp.bots.common.base import Intent
from crisp.bots.crisp import LEVELS, Bot, make_bot
from crisp.bots.crisp.arena import (
    BotError,
    Played,
    Step,
    bot_seed,
    make_bots,
    play_game,
    play_levels,
)
from crisp.bots.crisp.lab import run_games, wilson
from crisp.engine.crisp import Game, Options
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.cards import SORTED_DECK
from crisp.engine.crisp.timing import to_ms

LEVEL_NAMES = list(LEVELS)
ALL_OPTIONS = [
    Options(limit=limit, timer=timer, take_discard=take)
    for limit, timer, take in itertools.product((50, 100, 150), (None, 30, 45, 60), (False, True))
]
options_st = st.sampled_from(ALL_OPTIONS)
#: The message fields that carry a card's face.
CARD_FIELDS = ("card", "top")


# -- helpers ----------------------------------------------------------------------------------


class Recorder:
    """A bot's messages and every answer of its ``decide``, for comparing two games."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.inbox: list[dict[str, Any]] = []
        self.answers: list[tuple[int, float, Intent | None]] = []

    def observe(self, msg: dict[str, Any]) -> None:
        self.inbox.append(msg)
        self.bot.observe(msg)

    def decide(self, now: float) -> Intent | None:
        answer = self.bot.decide(now)
        self.answers.append((len(self.inbox), now, answer))
        return answer


class Script:
    """Replays one seat's actions of an earlier game: each offered once the seat has been sent
    as many messages as it had when it took it there (so the driver takes them in the same order).
    It needs no card to be what it was: only the same message count."""

    def __init__(self, log: list[Step], seat: int) -> None:
        self.todo = [(step.seen[seat], step.t, step.action) for step in log if step.seat == seat]
        self.count = 0
        self.next = 0

    def observe(self, msg: dict[str, Any]) -> None:
        self.count += 1
        while self.next < len(self.todo) and self.todo[self.next][0] < self.count:
            self.next += 1  # taken (every action sends every seat a message)

    def decide(self, now: float) -> Intent | None:
        if self.next < len(self.todo) and self.todo[self.next][0] == self.count:
            _, t, action = self.todo[self.next]
            return (t, dict(action))
        return None


def cards_in(msg: dict[str, Any]) -> set[str]:
    """Every card face a message shows."""
    out = {msg[k] for k in CARD_FIELDS if isinstance(msg.get(k), str)}
    for hand in msg.get("hands", []) or []:
        out.update(hand)
    return out


def round_messages(inbox: list[dict[str, Any]], number: int) -> list[dict[str, Any]]:
    """The messages of round ``number`` (from its ``round`` message on)."""
    out: list[dict[str, Any]] = []
    inside = False
    for msg in inbox:
        if msg["type"] == "round":
            inside = msg["round"] == number
        if inside:
            out.append(msg)
    return out


def record_of(played: Played) -> dict[str, Any]:
    assert played.record is not None
    return played.record


# -- honesty ------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    levels=st.lists(st.sampled_from(LEVEL_NAMES), min_size=2, max_size=6),
    subject=st.integers(0, 7),
    options=options_st,
    seed=st.integers(0, 2**32),
    cut=st.floats(0.0, 1.0),
    shuffle=st.randoms(use_true_random=False),
)
def test_unseen_cards_never_change_a_bots_decisions(
    levels: list[str],
    subject: int,
    options: Options,
    seed: int,
    cut: float,
    shuffle: random.Random,
) -> None:
    """Honesty: a bot's decisions depend on nothing its seat has not been shown.

    Play a game; pick a moment (before the k-th action); in the round of that moment, take the
    cards the subject's seat has NOT seen so far: not looked at (deal, Jack, Queen), not drawn, not
    on the pile (every card that lands face up there is public, R-SEE-PUBLIC, and stays known: the
    pile becomes the deck in order, R-RECYCLE) and not revealed (the reveal shows every hand,
    R-SEE-REVEAL, so the moment is always before its round's reveal). Deal that round again with
    those cards' identities shuffled among their places in the deck order (leaving out the cards
    other seats drew, so that their replayed actions stay legal: a drawn J, Q or K cannot be
    swapped), replay every other seat's actions as they were, and let the subject decide anew: its
    messages and every answer of its ``decide`` up to the moment must be the same.
    """
    n = len(levels)
    seat = subject % n
    bots = make_bots(levels, options, seed)
    recorders = [Recorder(b) for b in bots]
    first = play_game(recorders, options, seed, strict=True, keep_log=True, keep_record=True)
    if not first.log:
        return
    k = min(len(first.log) - 1, int(cut * len(first.log)))
    step = first.log[k]
    number = step.round
    seen = set()
    for msg in round_messages(recorders[seat].inbox[: step.seen[seat]], number):
        seen |= cards_in(msg)
    drawn = set()
    for other in range(n):
        if other != seat:
            for msg in round_messages(recorders[other].inbox[: step.seen[other]], number):
                if msg["type"] == "draw" and "card" in msg:
                    drawn.add(msg["card"])
    deck = list(record_of(first)["rounds"][number - 1]["deck"])
    places = [i for i, card in enumerate(deck) if card not in seen and card not in drawn]
    moved = [deck[i] for i in places]
    shuffle.shuffle(moved)
    other_deck = list(deck)
    for i, card in zip(places, moved, strict=True):
        other_deck[i] = card
    assert sorted(other_deck) == sorted(SORTED_DECK)

    players = [f"{level}-{i + 1}" for i, level in enumerate(levels)]
    again = Recorder(
        make_bot(levels[seat], seat, players, options.to_record(), bot_seed(seed, seat))
    )
    seats: list[Any] = [again if s == seat else Script(first.log, s) for s in range(n)]
    second = play_game(
        seats,
        options,
        seed,
        keep_log=True,
        max_actions=k,
        decks=lambda r: other_deck if r == number else None,
    )
    assert again.answers == recorders[seat].answers[: len(again.answers)]
    assert again.inbox == recorders[seat].inbox[: len(again.inbox)]
    assert len(again.inbox) >= step.seen[seat]
    assert not second.illegal and second.actions == k
    assert [s.action for s in second.log] == [s.action for s in first.log[:k]]


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_same_messages_same_decisions(level: str) -> None:
    """A bot is a function of its seed and its messages: two bots fed the same stream agree."""
    options = Options(timer=30, take_discard=True)
    bots = make_bots(["hard", "normal", level, "random"], options, 11)
    recorders = [Recorder(b) for b in bots]
    play_game(recorders, options, 11, strict=True)
    players = [f"{lv}-{i + 1}" for i, lv in enumerate(["hard", "normal", level, "random"])]
    twin = make_bot(level, 2, players, options.to_record(), bot_seed(11, 2))
    fed = 0
    for count, now, answer in recorders[2].answers:
        while fed < count:
            twin.observe(recorders[2].inbox[fed])
            fed += 1
        assert twin.decide(now) == answer


def test_bot_has_no_engine_state() -> None:
    """A bot holds no reference to the engine: only its own model of the table."""
    from crisp.engine.crisp.game import Game as EngineGame
    from crisp.engine.crisp.round import Round

    options = Options()
    bots = make_bots(LEVEL_NAMES, options, 3)
    play_game(bots, options, 3, strict=True)
    for bot in bots:
        for value in vars(bot).values():
            assert not isinstance(value, (EngineGame, Round))
        for value in vars(bot.table).values():
            assert not isinstance(value, (EngineGame, Round))


# -- legality and completion --------------------------------------------------------------------


def test_levels_complete_games_under_every_option() -> None:
    """Every level completes games under every host option (limit × timer × take_discard),
    2 to 8 players, with no illegal action (strict: one would raise)."""
    games = 0
    for i, options in enumerate(ALL_OPTIONS):
        for j in range(10):
            n = 2 + (i + j) % 7
            levels = [LEVEL_NAMES[(i + j + s) % 4] for s in range(n)]
            played = play_levels(levels, options, 1000 * i + j, strict=True)
            assert played.over and not played.stalled and not played.illegal
            games += 1
    assert games == 10 * len(ALL_OPTIONS)


@pytest.mark.slow
@pytest.mark.parametrize(
    "options", ALL_OPTIONS, ids=lambda o: f"{o.limit}-{o.timer}-{o.take_discard}"
)
def test_thousands_of_games_no_illegal_action(options: Options) -> None:
    """Slow: 100 games for each of the 24 option combinations (2,400 games), every level."""
    for g in range(100):
        n = 2 + g % 7
        levels = [LEVEL_NAMES[(g + s) % 4] for s in range(n)]
        played = play_levels(levels, options, g, strict=True)
        assert played.over and not played.stalled and not played.illegal


def test_decide_times_are_legal() -> None:
    """Every answer of ``decide`` is legal at its time: a draw or take never before the turn's
    ``at`` (and at it, or now, exactly), a call inside its window (after the turn ended, before
    ``window_until``), a play not before the draw; and the engine accepts it then."""
    checked = 0

    def check(game: Game, seat: int, decision: Intent) -> None:
        nonlocal checked
        t, action = decision
        r = game.round
        ms = to_ms(t)
        assert ms >= r.now
        do = action["do"]
        if do == "crisp":
            assert r.window_seat == seat and r.caller is None
            assert ms < r.window_until
        elif do in ("draw", "take_discard"):
            assert r.turn == seat and r.held is None
            assert ms == max(r.due, r.now)
        elif do == "ready":
            assert not r.ready[seat]
        else:
            assert r.turn == seat and r.held is not None
        nxt = r.next_deadline()
        if nxt is None or ms < nxt:
            game.verify(A.from_record({**action, "seat": seat}), t)
        checked += 1

    for i, options in enumerate(ALL_OPTIONS[::2]):
        levels = [LEVEL_NAMES[(i + s) % 4] for s in range(4)]
        play_levels(levels, options, i, strict=True, check=check)
    assert checked > 1000


def test_illegal_actions_are_counted_or_raised() -> None:
    """The driver counts a bot's illegal action (raises with ``strict``) and stops asking it
    until its next message; ``max_actions`` bounds a game."""

    class Cheater:
        def observe(self, msg: dict[str, Any]) -> None:
            pass

        def decide(self, now: float) -> Intent | None:
            return (now, {"do": "crisp"})

    options = Options()
    bots: list[Any] = [Cheater(), make_bots(["normal", "normal"], options, 1)[1]]
    with pytest.raises(BotError, match="R-CRISP"):
        play_game(bots, options, 1, strict=True)
    played = play_game(bots, options, 1, max_actions=200)
    assert played.illegal and played.illegal[0][2].startswith("R-")
    assert not played.over and played.actions <= 200


def test_driver_is_deterministic() -> None:
    """The same seed and levels play the same game, action for action."""
    for levels in (["hard", "random", "random", "random"], ["easy", "normal", "hard"]):
        options = Options(timer=45, take_discard=True)
        a = play_levels(levels, options, 99, keep_log=True, keep_record=True)
        b = play_levels(levels, options, 99, keep_log=True, keep_record=True)
        assert a.log == b.log and a.record == b.record and a.totals == b.totals


class TakeOver:
    """Plays a seat with ``first`` until it has been sent ``after`` messages, then hands the
    seat to a new bot of ``level`` that starts from the seat's view of the game."""

    def __init__(self, first: Bot, game: Game, seat: int, level: str, after: int) -> None:
        self.first, self.game, self.seat, self.level, self.after = first, game, seat, level, after
        self.count = 0
        self.bot: Bot | None = None

    def observe(self, msg: dict[str, Any]) -> None:
        self.count += 1
        (self.bot or self.first).observe(msg)

    def decide(self, now: float) -> Intent | None:
        if self.bot is None and self.count >= self.after:
            game = self.game
            options = game.options.to_record()
            self.bot = make_bot(self.level, self.seat, list(game.players), options, 5)
            self.bot.load_view(game.view(self.seat))
        return (self.bot or self.first).decide(now)


def test_bot_takes_over_a_seat_from_a_view() -> None:
    """A bot that takes over a seat mid-game starts from ``game.view(seat)`` and plays on,
    legally, to the end of the game (at a look, in a turn, between rounds)."""
    for after in (3, 25, 60, 140, 400):
        for level in LEVEL_NAMES:
            options = Options(timer=30, take_discard=True)
            game = Game([f"P{i + 1}" for i in range(3)], options, seed=after)
            bots = make_bots(["normal", "random", "hard"], options, after)
            seats: list[Any] = [bots[0], TakeOver(bots[1], game, 1, level, after), bots[2]]
            played = play_game(seats, options, after, strict=True, game=game)
            assert played.over and not played.illegal


def test_view_of_every_phase_loads() -> None:
    """``load_view`` reads a snapshot in the look, in play (holding a card or not, in a
    window) and between rounds, and the bot's next decision is legal."""
    options = Options(take_discard=True)
    played_views = 0
    game = Game(["A", "B", "C"], options, seed=4)
    bots = make_bots(["hard", "normal", "random"], options, 4)

    def check(g: Game, seat: int, decision: Intent) -> None:
        nonlocal played_views
        for level in LEVEL_NAMES:
            fresh = make_bot(level, seat, list(g.players), options.to_record(), 1)
            fresh.load_view(g.view(seat))
            answer = fresh.decide(decision[0])
            if answer is not None:
                nxt = g.round.next_deadline()
                if nxt is None or to_ms(answer[0]) < nxt:
                    g.verify(A.from_record({**answer[1], "seat": seat}), answer[0])
                played_views += 1

    play_game(bots, options, 4, strict=True, check=check, game=game)
    assert played_views > 100


# -- the lab and crisp simulate --------------------------------------------------------------------


def test_wilson_interval() -> None:
    lo, hi = wilson(930, 1000)
    assert 0.912 < lo < 0.914 and 0.944 < hi < 0.946
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_run_games_counts_ties_for_each_winner() -> None:
    report = run_games(["normal", "normal"], 30, seed=5)
    assert report.games == 30 and not report.illegal
    assert sum(report.wins) >= 30
    rows = report.seat_rows()
    assert [r["bot"] for r in rows] == ["normal", "normal"]
    assert report.level_rows()[0]["seats"] == 2


def test_simulate_bots_json_shape() -> None:
    """crisp simulate --bots ... --json: games, and seats in order with bot, win rate, its 95%
    interval and mean score; per level too."""
    done = crisp("simulate", "--bots", "hard,normal,easy,random", "--games", "12", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == 12 and report["players"] == 4 and report["illegal"] == 0
    assert [s["bot"] for s in report["seats"]] == ["hard", "normal", "easy", "random"]
    assert [s["seat"] for s in report["seats"]] == [0, 1, 2, 3]
    for seat in report["seats"]:
        lo, hi = seat["win_rate_ci"]
        assert 0 <= lo <= seat["win_rate"] <= hi <= 1
        assert isinstance(seat["mean_score"], float)
    assert sum(s["win_rate"] for s in report["seats"]) >= 1.0
    assert {lv["bot"] for lv in report["levels"]} == {"hard", "normal", "easy", "random"}
    assert done.stderr == ""  # no progress bar unless asked (stderr is not a terminal here)


def test_simulate_bots_table_and_errors() -> None:
    done = crisp("simulate", "--bots", "hard,random", "--games", "4", "--progress")
    assert done.returncode == 0, done.stderr
    assert "95% CI" in done.stdout and "hard" in done.stdout and "4/4 games" in done.stderr
    assert crisp("simulate", "--bots", "hard,genius").returncode == 2
    mismatch = crisp("simulate", "--players", "3", "--bots", "hard,random")
    assert mismatch.returncode == 2 and "--players" in mismatch.stderr
    plain = crisp("simulate", "--games", "3", "--json")  # no --bots: random-legal, as before
    assert plain.returncode == 0 and json.loads(plain.stdout)["policy"] == "random-legal"


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_tables_of_one_level_finish(level: str) -> None:
    """A round ends only with a call: tables of one level, 2 to 8 seats, finish their games."""
    for players in range(2, 9):
        for g in range(2):
            options = ALL_OPTIONS[(players * 3 + g) % len(ALL_OPTIONS)]
            played = play_levels([level] * players, options, g, strict=True, max_actions=5000)
            assert played.over and not played.illegal
