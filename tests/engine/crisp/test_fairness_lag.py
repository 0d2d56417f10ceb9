"""R-WINDOW-LAG (docs/fairness.md): a seat's crisp window closes 3 s plus its
allowance after its turn ends; the allowance is an argument of the action that ends the turn,
recorded with it, shown in ``turn_end.window_until``; the next player still starts at 2 s."""

from __future__ import annotations

from typing import Any

import pytest
from leakcheck import check_stream

from crisp.engine.crisp import Game, IllegalAction, Options
from crisp.engine.crisp import actions as A
from crisp.engine.crisp.lag import MAX_ALLOWANCE_MS
from crisp.engine.crisp.messages import dumps_stream, stream
from crisp.engine.crisp.record import RecordError, replay
from crisp.engine.crisp.simulate import Policy, play_random

DECK = [r + s for s in "SHDC" for r in "A23456789TJQK"]  # 6 cards dealt; 7S is drawn first


def _to_first_turn_end(allowance_ms: int) -> tuple[Game, list[Any]]:
    """Two players, dealer 1: seat 0 draws at 10 s and discards at 11 s with the allowance."""
    game = Game(["Ana", "Ben"], Options(), timing=None)
    outs = game.start_round(DECK, dealer=1)
    outs += game.advance(10)
    outs += game.apply(A.Draw(0), 10)
    outs += game.apply(A.Discard(0), 11, allowance_ms=allowance_ms)
    return game, outs


@pytest.mark.parametrize("allowance", [0, 1, 120, 250])
def test_call_just_inside_the_longer_window_is_accepted(allowance: int) -> None:
    """R-WINDOW-LAG: at 3 s + allowance − 1 ms after the turn end, the call counts."""
    game, outs = _to_first_turn_end(allowance)
    end = [o.msg for o in outs if o.msg["type"] == "turn_end"][-1]
    assert end["window_until"] == (11_000 + 3_000 + allowance) / 1000
    assert end["next_at"] == 13.0  # R-WINDOW: the 2 s do not move
    t = (11_000 + 3_000 + allowance - 1) / 1000
    game.apply(A.Crisp(0), t)
    assert game.round.caller == 0


@pytest.mark.parametrize("allowance", [0, 1, 120, 250])
def test_call_at_the_end_of_the_longer_window_is_refused(allowance: int) -> None:
    """R-WINDOW-LAG, R-EDGES: at exactly 3 s + allowance the window has closed."""
    game, _ = _to_first_turn_end(allowance)
    with pytest.raises(IllegalAction) as err:
        game.apply(A.Crisp(0), (11_000 + 3_000 + allowance) / 1000)
    assert err.value.rule == "R-WINDOW"


def test_the_allowance_is_recorded_and_replays_exactly() -> None:
    game, outs = _to_first_turn_end(180)
    outs += game.apply(A.Draw(1), 13.5)
    outs += game.apply(A.Discard(1), 14.0)
    record = game.record()
    acts = record["rounds"][0]["actions"]
    assert acts[1] == {"t": 11.0, "seat": 0, "do": "discard", "allowance_ms": 180}
    assert "allowance_ms" not in acts[0] and "allowance_ms" not in acts[3]
    rep = replay(record)
    assert rep.game.record() == record
    assert [o.msg for o in rep.outs] == [o.msg for o in outs]


def test_without_an_allowance_nothing_changes() -> None:
    """An allowance of 0 (the default) records nothing: the record is today's."""
    game, _ = _to_first_turn_end(0)
    assert game.record()["rounds"][0]["actions"][1] == {"t": 11.0, "seat": 0, "do": "discard"}


def test_an_allowance_on_an_action_that_opens_no_window_is_not_recorded() -> None:
    game = Game(["Ana", "Ben"], Options())
    game.start_round(DECK, dealer=1)
    game.apply(A.Ready(0), 1, allowance_ms=200)
    game.advance(10)
    game.apply(A.Draw(0), 10, allowance_ms=200)
    assert all("allowance_ms" not in a for a in game.record()["rounds"][0]["actions"])


def test_a_record_with_an_unused_allowance_is_refused() -> None:
    game, _ = _to_first_turn_end(100)
    record = game.record()
    record["rounds"][0]["actions"][0]["allowance_ms"] = 100  # on the draw: opened no window
    with pytest.raises(RecordError, match=r"actions\[0\]\.allowance_ms: the action opened no"):
        replay(record)


@pytest.mark.parametrize("bad", [-1, MAX_ALLOWANCE_MS + 1, 1.5, True, "100", 0])
def test_a_bad_allowance_is_refused_and_changes_nothing(bad: Any) -> None:
    game = Game(["Ana", "Ben"], Options())
    game.start_round(DECK, dealer=1)
    game.advance(10)
    game.apply(A.Draw(0), 10)
    before = game.record()
    if bad != 0:  # 0 is no allowance for the engine; only a record may not spell it out
        with pytest.raises(ValueError, match="allowance"):
            game.apply(A.Discard(0), 11, allowance_ms=bad)
    assert game.record() == before
    record = game.record()
    record["rounds"][0]["actions"][0]["allowance_ms"] = bad
    with pytest.raises(RecordError, match="allowance"):
        replay(record)


@pytest.mark.parametrize("seed", range(6))
def test_random_games_with_allowances_replay_and_do_not_leak(seed: int) -> None:
    """Random legal play (calls anywhere in the longer windows, timers, absences) with an
    allowance from 0 to 250 ms on every action: the record replays byte for byte, and every
    seat's stream passes the leak checker."""
    policy = Policy(lag_ms=(0, 250), p_absent=0.02)
    game = play_random(
        3 + seed % 4,
        Options(timer=30 if seed % 2 else None),
        300 + seed,
        policy=policy,
        fair=seed % 2 == 0,
    )
    record = game.record()
    acts = [a for r in record["rounds"] for a in r["actions"]]
    lags = [a["allowance_ms"] for a in acts if "allowance_ms" in a]
    assert lags and max(lags) <= 250
    rep = replay(record)
    assert rep.game.record() == record
    n = len(record["players"])
    for seat in [*range(n), None]:
        seen = stream(rep.outs, seat)
        assert check_stream(record, seen, seat) == []
        again = stream(replay(record).outs, seat)
        assert dumps_stream(again) == dumps_stream(seen)
