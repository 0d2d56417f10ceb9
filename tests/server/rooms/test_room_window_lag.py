"""R-WINDOW-LAG through a room, in-process on a hand-moved clock (tests/support/roomkit.py): while
a game
runs every connection gets a ``probe`` at least every ``probe_every_s``; the round trip of each
answer (``probe_ack``) is timed on the room's clock; the estimate is the median of the last 8;
the allowance is half of it in game ms, capped by ``window_lag_cap_ms``; it extends the crisp
window the seat's turn opens (``turn_end.window_until``; the next draw still waits 2 s), is
recorded, and is replayed exactly after a restart."""

from __future__ import annotations

import asyncio
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from roomkit import FakePhone, Kit

from crisp.server.rooms.latency import RoundTrips, allowance_ms, near
from crisp.server.settings import Settings

SEED = 5


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def due(phones: list[FakePhone]) -> FakePhone:
    return phones[phones[0].last("turn")["seat"]]


async def answer_after(kit: Kit, phones: list[FakePhone], delays: list[float]) -> None:
    """Each phone answers its latest probe ``delays[i]`` real seconds after it was sent (the
    probes were just sent)."""
    order = sorted(range(len(phones)), key=lambda i: delays[i])
    waited = 0.0
    for i in order:
        await kit.advance(delays[i] - waited)
        waited = delays[i]
        await phones[i].say({"type": "probe_ack", "n": phones[i].last("probe")["n"]})


def test_round_trips_median_of_the_last_8() -> None:
    """The estimate is the median of the last 8 answered probes; an unknown or repeated ``n``
    does not count; a probe left unanswered for 8 later probes is forgotten."""
    rt = RoundTrips(8)
    assert rt.median() is None
    rtts = [0.1, 0.2, 0.9, 0.1, 0.12, 0.3, 0.11, 0.1, 0.13, 0.1]
    now = 0.0
    for rtt in rtts:
        n = rt.sent(now)
        assert rt.answered(n, now + rtt) == pytest.approx(rtt)
        assert rt.answered(n, now + 5) is None  # counted once
        now += 2
    assert rt.answered(999, now) is None
    # the last 8, sorted: 0.1 0.1 0.1 0.11 | 0.12 0.13 0.3 0.9 (the first 0.1 and the 0.2 are gone)
    assert rt.median() == pytest.approx(0.115)
    lost = rt.sent(now)
    for _ in range(8):
        rt.sent(now)
    assert rt.answered(lost, now + 0.1) is None


def test_allowance_is_half_the_round_trip_in_game_ms_capped() -> None:
    assert allowance_ms(None, 1.0, 250) == 0
    assert allowance_ms(0.3, 1.0, 250) == 150
    assert allowance_ms(0.3001, 1.0, 250) == 150
    assert allowance_ms(0.3, 2.0, 250) == 250  # game ms: 300 at twice the speed, capped
    assert allowance_ms(0.2, 2.0, 250) == 200
    assert allowance_ms(10.0, 1.0, 250) == 250
    assert allowance_ms(0.3, 1.0, 0) == 0  # the setting turns it off


def test_settings_bound_the_probe_period_and_the_cap(tmp_path: Path) -> None:
    assert Settings(data_dir=tmp_path).window_lag_cap_ms == 250
    assert Settings(data_dir=tmp_path).probe_every_s <= 5
    with pytest.raises(ValidationError):
        Settings(data_dir=tmp_path, probe_every_s=6)
    with pytest.raises(ValidationError):
        Settings(data_dir=tmp_path, window_lag_cap_ms=1001)  # the engine's own bound


def test_probes_while_a_game_runs_only(tmp_path: Path) -> None:
    """No probe in the lobby; at the start every connection is probed, then every
    ``probe_every_s`` (with numbers that go up); a watcher too; none once the game is over."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2)
        room = kit.hub.create_room()
        _, token = room.join("Ana")
        ana = await FakePhone(kit, room, token, "Ana").connect()
        await ana.say({"type": "add_bot", "level": "hard"})
        await kit.advance(10)
        assert ana.of("probe") == []
        await ana.say({"type": "options", "limit": 50, "timer": 30, "take_discard": False})
        await ana.say({"type": "start"})
        assert [m["n"] for m in ana.of("probe")] == [1]
        watcher = await FakePhone(kit, room, None, "watcher").connect()
        assert [m["n"] for m in watcher.of("probe")] == [1]
        await kit.advance(10)
        assert [m["n"] for m in ana.of("probe")] == [1, 2, 3, 4, 5, 6]
        await kit.jump_until(lambda: room.lobby.phase == "over")
        count = len(ana.of("probe"))
        await kit.advance(30)
        assert len(ana.of("probe")) == count

    run(main())


def test_rtt_measured_on_the_room_clock(tmp_path: Path) -> None:
    """Answers 0.3 s, 0.1 s, 0.4 s after their probes: the estimate is the median; an answer to
    a probe never sent changes nothing; at twice the clock speed the allowance doubles (game
    ms); a slow answer gives at most the cap."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=1)
        room, phones = await kit.table(["Ana", "Ben"])
        ana = phones[0]
        for delay in (0.3, 0.1, 0.4):
            await answer_after(kit, [ana], [delay])
            await kit.advance(1 - delay)  # the next probe
        await ana.say({"type": "probe_ack", "n": 999})
        assert room.probes.rtt(ana) == pytest.approx(0.3)
        assert room.lag_of(ana) == 150
        assert room.lag_of(phones[1]) == 0  # never answered
        for _ in range(8):
            await answer_after(kit, [ana], [0.9])
            await kit.advance(0.1)
        assert room.lag_of(ana) == 250

    run(main())


def test_the_allowance_extends_the_window_is_recorded_and_replays(tmp_path: Path) -> None:
    """A seat whose round trip is 0.3 s: its turn's window closes at 3.15 s (``window_until``),
    the next seat may still draw at 2 s; a call at 3.149 s is accepted (it would be late without
    the allowance). The allowance is in the record's action and in the stored log; after a crash
    the rebuilt game is the same, byte for byte, and the next window (no allowance) closes at
    3 s, where a call at 3 s is refused (R-EDGES)."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=5)
        room, phones = await kit.table(["Ana", "Ben"])
        await answer_after(kit, phones, [0.3, 0.3])
        for p in phones:
            await p.act("ready")
        first = due(phones)
        await first.act("draw")
        await first.act("discard")
        end = first.last("turn_end")
        assert end["window_until"] == round(end["t"] + 3.15, 3)
        assert end["next_at"] == round(end["t"] + 2, 3)
        await kit.advance(end["window_until"] - room.game_now() - 0.001)
        called = await first.act("crisp")
        assert any(m["type"] == "crisp" for m in called), called
        assert room.match is not None
        record = room.match.record()
        acts = record["rounds"][0]["actions"]
        assert [a.get("allowance_ms") for a in acts if a["do"] == "discard"] == [150]
        stored = [e for _, _, _, log in kit.store.rooms() for e in log if e.get("e") == "act"]
        assert [e.get("allowance_ms") for e in stored if e["do"] == "discard"] == [150]
        assert [e.get("allowance_ms") for e in stored if e["do"] == "ready"] == [150, 150]
        kit.crash()
        kit2 = kit.reopen()
        back = kit2.hub.rooms[room.code]
        assert back.match is not None
        assert json.dumps(back.match.record()) == json.dumps(record)
        assert back.match.view(0) == room.match.view(0)

    run(main())


def test_no_allowance_without_a_measure_a_call_at_3s_is_late(tmp_path: Path) -> None:
    """A phone that never answers a probe: its window closes at exactly 3 s; a call at 2.999 s
    counts, one at 3 s does not."""

    async def main() -> None:
        for late in (False, True):
            kit = Kit(tmp_path / str(late), fixed_seed=SEED)
            room, phones = await kit.table(["Ana", "Ben"])
            for p in phones:
                await p.act("ready")
            first = due(phones)
            await first.act("draw")
            await first.act("discard")
            end = first.last("turn_end")
            assert end["window_until"] == round(end["t"] + 3, 3)
            await kit.advance(end["window_until"] - room.game_now() - (0 if late else 0.001))
            answer = await first.act("crisp")
            if late:
                assert answer[-1]["type"] == "error" and answer[-1]["rule"] == "R-WINDOW", answer
            else:
                assert any(m["type"] == "crisp" for m in answer), answer

    run(main())


def counted(rtts: list[float]) -> list[float]:
    """The round trips that count, in order, by docs/fairness.md's rule for 8 samples settling
    (written plainly, as a reference): once the last 8 all lie near their median, an answer that
    strays from it is held back; the next one drops it if it agrees, or counts with it if not."""
    kept: list[float] = []
    suspect: float | None = None
    for rtt in rtts:
        last = kept[-8:]
        mid = statistics.median(last) if last else 0.0
        if len(last) == 8 and all(near(x, mid) for x in last):
            if suspect is None and not near(rtt, mid):
                suspect = rtt
                continue
            if suspect is not None and not near(rtt, mid):
                kept.append(suspect)
            suspect = None
        kept.append(rtt)
    return kept


@settings(max_examples=200, deadline=None)
@given(
    rtts=st.lists(st.floats(min_value=0, max_value=5, allow_nan=False), min_size=1, max_size=30),
    speed=st.sampled_from([0.5, 1.0, 2.0, 25.0]),
    cap=st.integers(min_value=0, max_value=1000),
)
def test_the_allowance_is_half_the_median_of_the_last_8_never_above_the_cap(
    rtts: list[float], speed: float, cap: int
) -> None:
    """Property: whatever the round trips (answered in any order), the estimate is the median of
    the last 8 that count (a settled connection's lone stray does not: ``counted``), and the
    allowance half of it in game ms, never above the cap."""
    rt = RoundTrips(8)
    sent = [(rt.sent(0.0), rtt) for rtt in rtts[:8]]
    for n, rtt in sorted(sent, key=lambda p: p[1]):
        rt.answered(n, rtt)
    for rtt in rtts[8:]:
        rt.answered(rt.sent(100.0), 100.0 + rtt)
    last = counted([*[rtt for _, rtt in sorted(sent, key=lambda p: p[1])], *rtts[8:]])[-8:]
    assert rt.median() == pytest.approx(statistics.median(last), abs=1e-9)
    lag = allowance_ms(rt.median(), speed, cap)
    assert 0 <= lag <= cap
    # within 1 ms: a round trip measured as (100 + rtt) - 100 may round the other way at .5
    assert abs(lag - min(cap, round(statistics.median(last) * speed * 1000 / 2))) <= 1
