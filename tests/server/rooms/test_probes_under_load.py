"""Probes that do not feed on the load that delays them (crisp/server/rooms/latency.py): a server
whose timers ran late lately (``Clock.behind`` over ``SHED_BEHIND_S``) sends no probe at its
rooms' ticks and counts no answer; a slow stray of a settled connection while many settled
answers of the server stray together (``Strays``) is a common cause, not counted; the server's
ticks send at most ``probe_budget_per_s`` probes a second, the longest unprobed first. Without
them, at 2,000 rooms a moment of lag makes answers stray, each stray brings probes every 2 s, and
probes grow to a third of the messages. In-process on a hand-moved clock
(tests/support/roomkit.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from roomkit import Kit

from crisp.server.rooms.latency import COMMON_MIN, RoundTrips, Strays

SEED = 5


def settled(rt: RoundTrips, start: float, rtt: float = 0.1) -> None:
    for i in range(3):
        rt.answered(rt.sent(start + i), start + i + rtt)
    assert rt.settled() and not rt.quick()


def test_a_server_behind_probes_no_one_at_its_ticks(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2)
        _room, phones = await kit.table(["Ana", "Ben"])
        ana = phones[0]  # never answers: not settled, probed at every tick
        await kit.advance(4.01)
        assert len(ana.of("probe")) == 3  # the hello's, then at 2 and 4 s
        kit.clock.lag = 0.06  # the server's timers ran 60 ms late lately
        await kit.advance(8)
        assert len(ana.of("probe")) == 3  # shed: none at the four ticks
        kit.clock.lag = 0.0
        await kit.advance(4)
        assert len(ana.of("probe")) == 5  # back at every tick

    asyncio.run(main())


def test_the_server_sends_no_more_probes_at_ticks_than_its_budget(tmp_path: Path) -> None:
    """After a mass reconnect every connection is unsettled: probed in turn, at most
    ``probe_budget_per_s`` a second for the whole server, not all every ``probe_every_s``."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_budget_per_s=1)
        _room, phones = await kit.table(["Ana", "Ben", "Cleo", "Dan"])  # none answers
        await kit.advance(10.01)
        probed = [len(p.of("probe")) for p in phones]
        assert 5 <= sum(probed) <= 7  # about one a second: the ticks every 2 s would send 24
        assert min(probed) >= 1 and max(probed) - min(probed) <= 1  # in turn, none left out

    asyncio.run(main())


def test_an_answer_read_while_the_server_is_behind_is_not_counted(tmp_path: Path) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2)
        room, phones = await kit.table(["Ana", "Ben"])
        ana = phones[0]
        (probe,) = ana.of("probe")
        await kit.advance(0.4)
        kit.clock.lag = 0.3  # the answer is read late because the server is
        await ana.say({"type": "probe_ack", "n": probe["n"]})
        assert room.lag_of(ana) == 0  # no measure: no allowance
        assert room.probes.trips[ana].pending == {}  # the answer came: not awaited any more

    asyncio.run(main())


def test_strays_of_many_settled_answers_at_once_are_a_common_cause() -> None:
    strays = Strays()
    for i in range(COMMON_MIN):
        assert not strays.saw(100 + i * 0.01, strayed=i % 2 == 0)  # too few seen to tell
    assert strays.saw(100.5, strayed=True)  # half of 16 strayed: more than an eighth
    quiet = Strays()
    for i in range(COMMON_MIN * 2):
        quiet.saw(100 + i * 0.01, strayed=i == 0)  # 1 of 32
    assert not quiet.saw(100.5, strayed=True)
    assert not strays.saw(103.0, strayed=True)  # seconds later: the spans before are forgotten


def test_a_settled_connection_stays_settled_through_strays_of_a_common_cause() -> None:
    strays = Strays()
    for i in range(COMMON_MIN):
        strays.saw(10 + i * 0.01, strayed=True)  # the server's other connections: all stray
    rt = RoundTrips(8, settle=3)
    settled(rt, 0.0)
    rt.answered(rt.sent(10.5), 10.9, strays)  # 0.4 s against 0.1 s, while many stray
    assert rt.settled() and not rt.quick()  # not a suspect: no probe at once
    assert rt.samples == pytest.approx([0.1] * 3)  # the stray is not one of them
    alone = RoundTrips(8, settle=3)
    settled(alone, 0.0)
    alone.answered(alone.sent(10.5), 10.9, Strays())  # a stray alone: asked again at once
    assert alone.quick()
    fast = RoundTrips(8, settle=3)
    settled(fast, 0.0, rtt=0.4)  # an estimate too high (taken while the server lagged)
    fast.answered(fast.sent(10.5), 10.51, strays)  # faster, while many stray: no common cause
    assert fast.quick()  # held back and asked again at once, as any stray
