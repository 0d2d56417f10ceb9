"""The Crisps! bots (crisp.bots.crisps): legal under every option, deterministic, honest (fed only
their seat's messages), their rules model checked against the engine, and the simulate report."""

from __future__ import annotations

import itertools
import json
import os
import random
from typing import Any

import pytest
from crisp_cmd import crisp

from crisp.bots.common.base import Intent
from crisp.bots.crisps import LEVELS, CrispsBot, make_bot
from crisp.bots.crisps import combos as C
from crisp.bots.crisps.arena import BotError, make_bots, play_game, play_levels
from crisp.bots.crisps.hard import HardBot
from crisp.bots.crisps.lab import run_games
from crisp.bots.crisps.rollout import DRAW, FOLLOW, LEAD, World
from crisp.bots.crisps.simulate import OptionError, parse_options
from crisp.cli import main
from crisp.engine.crisps import CrispsGame, CrispsOptions, Out

ALL_OPTIONS = [
    CrispsOptions(no_faceup=nf, crisp_runs=cr, auto_skip=sk, timer=timer)
    for nf, cr, sk, timer in itertools.product(
        (False, True), (False, True), (False, True), (None, 30, 45, 60)
    )
]
OPTION_IDS = [
    "-".join(k for k, v in o.to_record().items() if v and k != "timer") + f"-t{o.timer}"
    for o in ALL_OPTIONS
]
#: Games of random and normal bots per option combination (32 of them: 2,016 games, and 32 of a
#: light hard; about 70 s of CPU; CRISPS_BOT_GAMES=100 plays 3,200), of which the first
#: ``CHECKED_GAMES`` compare each bot's model with the engine at every decision.
LIGHT_GAMES = int(os.environ.get("CRISPS_BOT_GAMES", "63"))
CHECKED_GAMES = 2
#: A cheap ``hard`` (few rollouts) for the many-games tests; the real one is measured by
#: ``crisp simulate`` (docs/bots.md).
LIGHT_BUDGET = 8


def light_bots(levels: list[str], options: CrispsOptions, seed: int) -> list[Any]:
    bots = make_bots(levels, options, seed)
    for bot in bots:
        if isinstance(bot, HardBot):
            bot.budget, bot.first = LIGHT_BUDGET, 2
    return bots


def engine_hand(game: CrispsGame, seat: int) -> list[int]:
    return list(game.round.hands[seat])


def model_check(bot: CrispsBot, game: CrispsGame, seat: int, decision: Intent) -> None:
    """At a decision: the bot's model of its own hand, the counts, the face-up card and the
    played cards is the engine's, and its own rules give the engine's legal plays."""
    tb = bot.table
    rnd = game.round
    assert tb.hand == engine_hand(game, seat)
    assert tb.hands == rnd.counts()
    assert tb.pile == len(rnd.pile)
    assert tb.faceup == (None if rnd.faceup is None else C.RANK_INDEX[rnd.faceup])
    assert tb.played == list(rnd.played)
    assert [s for s, _ in tb.trick] == [s for s, _ in rnd.trick]
    assert tb.due_seat == seat and game.due == (seat, tb.need)
    # the opponent's known cards are cards it really holds
    opp = engine_hand(game, 1 - seat)
    assert all(tb.opp_known[i] <= opp[i] for i in range(C.N_RANKS))
    engine_legal = sorted(c.cards for c in game.legal_combos(seat))
    if tb.need == "lead":
        mine = C.leads(tb.hand, tb.crisp_runs)
    elif tb.need == "follow":
        assert tb.prev is not None
        mine = C.follows(tb.hand, tb.prev, tb.crisp_runs)
    else:
        mine = []
    assert sorted(C.combo_cards(c) for c in mine) == engine_legal
    assert decision[1] in game.legal_moves(seat)


def checked_game(levels: list[str], options: CrispsOptions, seed: int, check: bool = True) -> Any:
    bots = light_bots(levels, options, seed)
    if not check:
        return play_game(bots, options, seed, strict=True)

    def check(game: CrispsGame, seat: int, decision: Intent) -> None:
        model_check(bots[seat], game, seat, decision)

    return play_game(bots, options, seed, strict=True, check=check)


# -- legal under every option combination -----------------------------------------------------


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=OPTION_IDS)
def test_no_illegal_action_under_every_option_combination(options: CrispsOptions) -> None:
    """CS-OPT-*: 63 games of random and normal bots (each pair of levels in turn) and one of a
    light hard per combination of no_faceup × crisp_runs × auto_skip × timer (2,048 games):
    every game ends (CS-GAME-END) with no refused action; in 2 of them and in hard's, at every
    decision each bot's own model matches the engine (hand, counts, face-up card, legal
    plays)."""
    pairs = [["random", "random"], ["normal", "random"], ["random", "normal"], ["normal", "normal"]]
    for g in range(LIGHT_GAMES):
        played = checked_game(pairs[g % 4], options, 1000 * g + 7, g < CHECKED_GAMES)
        assert played.over and not played.illegal and not played.stalled
        assert max(played.points) == 3 and played.points[played.winner] == 3
    hard = ["hard", "random"] if options.timer in (None, 45) else ["normal", "hard"]
    for g, levels in enumerate([hard]):
        played = checked_game(levels, options, 99 + g)
        assert played.over and not played.illegal


def test_random_bot_lets_the_timer_run_out_sometimes() -> None:
    """CS-TIMEOUT: with a timer, the random bot sometimes lets its time run out (so timeouts
    are played in these tests); without one, never."""
    for timer, expect in ((30, True), (None, False)):
        options = CrispsOptions(timer=timer)
        timed_out = 0
        for g in range(20):
            bots = make_bots(["random", "random"], options, g)
            seen: list[dict[str, Any]] = []

            def hook(_seat: int, msg: dict[str, Any], seen: list[dict[str, Any]] = seen) -> None:
                seen.append(msg)

            play_game(bots, options, g, strict=True, deliver_hook=hook)
            timed_out += sum(1 for m in seen if m.get("timeout"))
        assert (timed_out > 0) == expect


# -- deterministic ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", list(LEVELS))
def test_bots_are_deterministic_given_a_seed(level: str) -> None:
    """The same seeds give the same game, action for action; random differs with its seed."""
    options = CrispsOptions(auto_skip=True)
    levels = [level, "normal"]
    a = play_levels(levels, options, 5, keep_record=True)
    b = play_levels(levels, options, 5, keep_record=True)
    assert a.record is not None and b.record is not None
    assert a.record["actions"] == b.record["actions"]
    if level == "random":
        game = CrispsGame(["a", "b"], options, seed=5)
        other = make_bots(levels, options, 6)
        c = play_game(other, options, 5, keep_record=True, game=game)
        assert c.record is not None and c.record["actions"] != a.record["actions"]


# -- honest: a client of its seat ---------------------------------------------------------------


class Recorder:
    """A bot's inbox and answers."""

    def __init__(self, bot: CrispsBot) -> None:
        self.bot = bot
        self.inbox: list[dict[str, Any]] = []
        self.answers: list[tuple[int, float, Intent | None]] = []

    def observe(self, msg: dict[str, Any]) -> None:
        self.inbox.append(json.loads(json.dumps(msg)))
        self.bot.observe(msg)

    def decide(self, now: float) -> Intent | None:
        answer = self.bot.decide(now)
        self.answers.append((len(self.inbox), now, answer))
        return answer


@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("options", [CrispsOptions(), CrispsOptions(no_faceup=True, timer=30)])
def test_a_bot_is_fed_only_its_seats_stream(level: str, options: CrispsOptions) -> None:
    """CS-SEE-HAND, CS-SEE-DRAW, CS-NO-TRACE: every message a bot receives is one its seat is
    sent; it never holds the other seat's hand (a ``hand`` is its own, a ``blind`` card one it
    drew), and a fresh bot given only the recorded stream — no engine anywhere — answers the
    same at every step."""
    for g in range(3):
        seed = 31 + g
        game = CrispsGame(["a", "b"], options, seed=seed)
        sent: list[list[dict[str, Any]]] = [[], []]
        real_apply, real_start = game.apply, game.start

        def tap(outs: list[Out], sent: list[list[dict[str, Any]]] = sent) -> list[Out]:
            for s in (0, 1):
                sent[s].extend(json.loads(json.dumps(o.msg)) for o in outs if o.for_seat(s))
            for o in outs:
                msg = o.msg
                if "hand" in msg:
                    assert msg["type"] == "round" and o.to in (0, 1)
                    assert msg["hand"] == "".join(sorted(msg["hand"]))
                if "blind" in msg:
                    assert o.to in (0, 1) and msg["type"] == "draw"
            return outs

        # (advance applies its timeouts through apply)
        game.start = lambda f=real_start, tap=tap: tap(f())  # type: ignore[method-assign]
        game.apply = (  # type: ignore[method-assign]
            lambda s, a, t, f=real_apply, tap=tap: tap(f(s, a, t))
        )
        bots = make_bots([level, "random"], options, seed)
        if isinstance(bots[0], HardBot):
            bots[0].budget = LIGHT_BUDGET
        rec = [Recorder(b) for b in bots]
        played = play_game(rec, options, seed, strict=True, game=game)
        assert played.over
        for s in (0, 1):
            assert rec[s].inbox == sent[s]
            deals = [m for m in rec[s].inbox if m["type"] == "round"]
            assert len(deals) == game.round_no
            for msg, rnd in zip(deals, game.rounds, strict=True):
                assert msg["hand"] == "".join(sorted(rnd.deck[12 * s : 12 * s + 12]))
        # replay seat 0's stream alone into a fresh bot with the same seed
        fresh = make_bots([level, "random"], options, seed)[0]
        if isinstance(fresh, HardBot):
            fresh.budget = LIGHT_BUDGET
        i = 0
        for seen, now, answer in rec[0].answers:
            while i < seen:
                fresh.observe(rec[0].inbox[i])
                i += 1
            assert fresh.decide(now) == answer


def test_a_bot_holds_no_reference_to_the_engine() -> None:
    """A bot's state is its own: nothing reachable from it is the engine's."""
    options = CrispsOptions()
    bots = make_bots(["hard", "normal"], options, 3)
    for bot in bots:
        bot.budget = LIGHT_BUDGET  # type: ignore[attr-defined]
    game = CrispsGame(["a", "b"], options, seed=3)
    play_game(bots, options, 3, strict=True, game=game)
    engine_ids = {id(game), id(game.round), id(game.dealing), *(id(r) for r in game.rounds)}
    seen: set[int] = set()
    stack: list[Any] = list(bots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (str, int, float, bool, type(None))):
            continue
        seen.add(id(obj))
        assert id(obj) not in engine_ids
        assert type(obj).__module__.split(".")[:3] != ["crisp", "crisps", "engine"]
        if isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set)):
            stack.extend(obj)
        elif hasattr(obj, "__dict__"):
            stack.extend(vars(obj).values())
        elif hasattr(obj, "__slots__"):
            stack.extend(getattr(obj, k) for k in obj.__slots__ if hasattr(obj, k))


@pytest.mark.parametrize("level", list(LEVELS))
def test_load_view_takes_over_a_seat_mid_game(level: str) -> None:
    """``load_view(game.view(seat))``: a bot taking over mid-round knows its hand and the
    table from the snapshot alone, and plays the game to its end legally."""
    rng = random.Random(4)
    for g, options in enumerate(ALL_OPTIONS[::5]):
        game = CrispsGame(["a", "b"], options, seed=g)
        game.start()
        for _ in range(rng.randrange(3, 40)):
            if game.over:
                break
            seat, _need = game.due or (0, "")
            moves = game.legal_moves(seat)
            game.apply(seat, moves[rng.randrange(len(moves))], game.now + 1)
        if game.over:
            continue
        bots = [make_bot(level, s, game.players, options.to_record(), 7 + s) for s in (0, 1)]
        for s, bot in enumerate(bots):
            if isinstance(bot, HardBot):
                bot.budget = LIGHT_BUDGET
            bot.load_view(game.view(s))
            assert bot.table.hand == engine_hand(game, s)
            assert bot.table.played == list(game.round.played)
        # drive on by hand: the arena would start a new game
        steps = 0
        while not game.over and steps < 3000:
            steps += 1
            wants = [(b.decide(game.now), s) for s, b in enumerate(bots)]
            due = [(w, s) for w, s in wants if w is not None]
            deadline = game.next_deadline()
            if not due:
                assert deadline is not None
                outs = game.advance(deadline)
            else:
                (at, action), s = min(due, key=lambda x: x[0][0])
                outs = game.apply(s, action, at)
            for out in outs:
                for s in (0, 1):
                    if out.for_seat(s):
                        bots[s].observe(out.msg)
        assert game.over


# -- the rules model against the engine ---------------------------------------------------------


def world_of(game: CrispsGame, options: CrispsOptions) -> World:
    rnd = game.round
    assert game.due is not None
    seat, need = game.due
    return World(
        [list(rnd.hands[0]), list(rnd.hands[1])],
        rnd.counts(),
        -1 if rnd.faceup is None else C.RANK_INDEX[rnd.faceup],
        [C.RANK_INDEX[c] for c in reversed(rnd.pile)],
        list(rnd.played),
        C.classify(rnd.trick[-1][1].cards, options.crisp_runs) if rnd.trick else None,
        seat,
        {"lead": LEAD, "follow": FOLLOW, "draw": DRAW}[need],
        options.no_faceup,
        options.crisp_runs,
        options.auto_skip,
    )


@pytest.mark.parametrize("options", ALL_OPTIONS[::4], ids=OPTION_IDS[::4])
def test_rollout_world_follows_the_engine(options: CrispsOptions) -> None:
    """The bots' imagined round (``World``) moves exactly as the engine does: random legal
    actions applied to both give the same hands, supply, trick, due seat and round winner
    (CS-LEAD … CS-DRAW-EMPTY, CS-OPT-SKIP, CS-OPT-NO-FACEUP)."""
    rng = random.Random(11)
    for g in range(10):
        game = CrispsGame(["a", "b"], options, seed=g)
        game.start()
        world = world_of(game, options)
        rounds = 1
        while not game.over:
            assert game.due is not None
            seat = game.due[0]
            moves = [m for m in game.legal_moves(seat)]
            move = moves[rng.randrange(len(moves))]
            game.apply(seat, move, game.now)
            if move["do"] == "play":
                combo = C.classify(move["cards"], options.crisp_runs)
                assert combo is not None
                winner = world.play(combo)
            elif move["do"] == "pass":
                winner = None
                world.pass_()
            else:
                winner = None
                world.draw(move["take"] == "faceup")
            if game.round_no != rounds or game.over:
                assert winner == game.rounds[rounds - 1].winner
                rounds = game.round_no
                if not game.over:
                    world = world_of(game, options)
                continue
            assert winner is None
            assert world_of(game, options) == world


def test_classify_and_follow_match_the_engine() -> None:
    """CS-COMBO, CS-RUN, CS-CRISP-RUN, CS-FOLLOW, CS-SPECIAL: the bots' classifier and follow
    test agree with the engine's on every set of up to 6 cards, with and without crisp runs."""
    from crisp.engine.crisps.cards import parse
    from crisp.engine.crisps.combos import can_follow, classify

    sets = [
        "".join(s)
        for n in range(1, 7)
        for s in itertools.combinations_with_replacement(C.RANKS, n)
        if all(s.count(r) <= 4 for r in s)
    ]
    for crisp_runs in (False, True):
        combos = {}
        for cards in sets:
            theirs = classify(parse(cards), crisp_runs)
            mine = C.classify(cards, crisp_runs)
            assert (mine is None) == isinstance(theirs, str), cards
            if mine is not None and not isinstance(theirs, str):
                assert C.to_wire(mine) == theirs.wire()
                combos[cards] = (mine, theirs)
        sample = random.Random(2).sample(sorted(combos), min(300, len(combos)))
        for a in sample:
            for b in sample:
                (ma, ta), (mb, tb) = combos[a], combos[b]
                assert C.can_follow(ma, mb) == (can_follow(ta, tb) is None), (a, b)


# -- what the levels choose ---------------------------------------------------------------------


def table_bot(
    level: str,
    hand: str,
    opp: int,
    trick: list[tuple[int, str]] | None = None,
    faceup: str | None = "5",
    need: str = "lead",
    **options: Any,
) -> CrispsBot:
    """A bot at seat 0 with a view built by hand."""
    bot = make_bot(level, 0, ["a", "b"], {**CrispsOptions().to_record(), **options}, 1)
    crisp_runs = bool(options.get("crisp_runs"))
    trick = trick or []
    prev = C.classify(trick[-1][1], crisp_runs) if trick else None
    h = C.counts(hand)
    legal = C.leads(h, crisp_runs) if prev is None else C.follows(h, prev, crisp_runs)
    played = "".join(sorted("".join(cards for _, cards in trick)))
    bot.load_view(
        {
            "game": "crisps",
            "players": ["a", "b"],
            "options": {**CrispsOptions().to_record(), **options},
            "round": 1,
            "starter": 0,
            "points": [0, 0],
            "you": 0,
            "hand": hand,
            "hands": [len(hand), opp],
            "pile": 5,
            "faceup": faceup,
            "set_aside": 4,
            "trick": [{"seat": s, "cards": c} for s, c in trick],
            "played": played,
            "due": {"seat": 0, "need": need, "deadline": None},
            "legal": [] if need == "draw" else [C.to_wire(c) for c in legal],
            "can_pass": need == "follow",
            "take": ["faceup", "blind"] if need == "draw" else [],
            "over": False,
        }
    )
    return bot


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_goes_out_when_it_can(level: str) -> None:
    """CS-OUT: a play that empties the hand is made, lead or follow."""
    bot = table_bot(level, "345678", 5)
    assert bot.decide(0.0) == (0.0, {"do": "play", "cards": "345678"})
    bot = table_bot(level, "99", 5, [(1, "55")], need="follow")
    assert bot.decide(0.0) == (0.0, {"do": "play", "cards": "99"})


def test_normal_leads_lowest_and_keeps_its_specials() -> None:
    """normal leads its lowest combination (the longest from that rank), never breaks up a
    three of a kind, spends a Special only on a Crisp."""
    assert table_bot("normal", "23457778", 9).decide(0)[1]["cards"] == "2345"  # type: ignore[index]
    assert table_bot("normal", "4449", 9).decide(0)[1]["cards"] == "9"  # type: ignore[index]
    follow = table_bot("normal", "2226X", 9, [(1, "5")], need="follow").decide(0)
    assert follow is not None and follow[1] == {"do": "play", "cards": "6"}
    on_crisp = table_bot("normal", "2228", 9, [(1, "X")], need="follow").decide(0)
    assert on_crisp is not None and on_crisp[1] == {"do": "play", "cards": "222"}
    on_nine = table_bot("normal", "2228", 9, [(1, "9")], need="follow").decide(0)
    assert on_nine is not None and on_nine[1] == {"do": "pass"}
    takes = table_bot("normal", "1267", 9, faceup="6", need="draw").decide(0)
    assert takes is not None and takes[1] == {"do": "draw", "take": "faceup"}
    blind = table_bot("normal", "1267", 9, faceup="4", need="draw").decide(0)
    assert blind is not None and blind[1] == {"do": "draw", "take": "blind"}


def test_hard_answers_within_its_legal_plays_and_fast() -> None:
    """hard's choice is one of the plays offered (or a pass when passing is allowed)."""
    bot = table_bot("hard", "1123345667899X", 12)
    decision = bot.decide(0.0)
    assert decision is not None and decision[1]["do"] == "play"
    assert C.classify(decision[1]["cards"], False) in C.leads(C.counts("1123345667899X"), False)


def test_make_bot_refuses_unknown_levels_and_seats() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("genius", 0, ["a", "b"], {}, 1)
    with pytest.raises(ValueError, match="seats 0 and 1"):
        make_bot("normal", 2, ["a", "b"], {}, 1)
    assert set(LEVELS) == {"random", "normal", "hard"}


def test_strict_arena_raises_on_an_illegal_action() -> None:
    """The arena's ``strict``: a bot asking for an illegal action is a BotError."""

    class Cheater(CrispsBot):
        def decide(self, now: float) -> Intent | None:
            return (now, {"do": "pass"}) if self.table.my_turn else None

    options = CrispsOptions()
    bots = [Cheater(s, ["a", "b"], {}, level="cheat", seed=s) for s in (0, 1)]
    with pytest.raises(BotError, match="CS-LEAD"):
        play_game(bots, options, 1, strict=True)
    played = play_game([Cheater(s, ["a", "b"], {}, level="c", seed=s) for s in (0, 1)], options, 1)
    assert played.illegal and played.stalled and not played.over


# -- the lab and crisp simulate --game crisps ---------------------------------------------------


def test_run_games_report() -> None:
    report = run_games(["normal", "random"], 30, 1, CrispsOptions(auto_skip=True))
    data = report.to_json()
    assert data["games"] == 30 and data["players"] == 2 and data["illegal"] == 0
    assert data["seats"][0]["wins"] + data["seats"][1]["wins"] == 30
    lo, hi = data["seats"][0]["win_rate_ci"]
    assert 0 <= lo <= data["seats"][0]["win_rate"] <= hi <= 1
    assert data["seats"][0]["win_rate"] > 0.7  # normal beats random (about 97%)
    assert data["options"]["auto_skip"] is True
    with pytest.raises(ValueError, match="two"):
        run_games(["normal"], 1)


def test_parse_options() -> None:
    assert parse_options(["no_faceup", "auto-skip", "crisp_runs=false"], 45) == CrispsOptions(
        no_faceup=True, auto_skip=True, timer=45
    )
    for bad in (["limit"], ["no_faceup=maybe"], ["timer=30"]):
        with pytest.raises(OptionError):
            parse_options(bad, None)


def test_crisp_simulate_game_crisps(capsys: pytest.CaptureFixture[str]) -> None:
    """crisp simulate --game crisps: the JSON report, the options, the errors; Crisp's own
    simulate is unchanged."""
    done = crisp(
        "simulate",
        "--game",
        "crisps",
        "--bots",
        "hard,normal",
        "--games",
        "3",
        "--option",
        "no_faceup",
        "--option",
        "auto_skip",
        "--timer",
        "30",
        "--players",
        "2",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["game"] == "crisps" and report["games"] == 3 and report["illegal"] == 0
    assert report["options"] == {
        "no_faceup": True,
        "crisp_runs": False,
        "auto_skip": True,
        "timer": 30,
    }
    assert [s["bot"] for s in report["seats"]] == ["hard", "normal"]
    assert main(["simulate", "--game", "crisps", "--games", "2"]) == 0
    table = capsys.readouterr().out
    assert "95% CI" in table and "random" in table and "ms a game" in table
    for bad in (
        ["--players", "3"],
        ["--bots", "hard,easy"],
        ["--bots", "hard,normal,random"],
        ["--option", "bogus"],
        ["--option", "auto_skip=maybe"],
        ["--limit", "50"],
        ["--take-discard"],
    ):
        assert main(["simulate", "--game", "crisps", "--games", "1", *bad]) == 2, bad
        assert capsys.readouterr().err.startswith("crisp simulate:"), bad
    assert main(["simulate", "--option", "no_faceup"]) == 2
    assert "Crisps!" in capsys.readouterr().err
    assert main(["simulate", "--games", "2", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["policy"] == "random-legal" and plain["options"]["limit"] == 100


@pytest.mark.parametrize("level", list(LEVELS))
def test_the_servers_adapter_seats_these_bots(level: str) -> None:
    """crisp.games.crisps's SPEC.make_bot builds a bot of this package (not its legal-random
    stand-in) from a mid-game view, and its move is legal."""
    from crisp.games.crisps.spec import SPEC

    options = CrispsOptions(auto_skip=True)
    game = CrispsGame(["a", "b"], options, seed=8)
    game.start()
    assert game.due is not None
    seat = game.due[0]
    seated = SPEC.make_bot(level, seat, game.players, options.to_record(), game.view(seat), 3)
    assert isinstance(getattr(seated, "bot", None), LEVELS[level])
    decision = seated.decide(game.now)
    assert decision is not None and decision.move in game.legal_moves(seat)
