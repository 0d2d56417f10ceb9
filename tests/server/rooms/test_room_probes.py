"""Probes that cost less (crisp/server/rooms/latency.py): a connection whose round
trip is settled (3 in a row near their median, ``rtt_settle_samples``) is probed every
``probe_settled_every_s`` give or take a quarter, not every ``probe_every_s``; an answer that
strays brings fast probes back until 3 in a row agree again, and 3 that agree with each other
but not with the estimate replace it (the link changed), so R-WINDOW-LAG's allowance follows a
link that changes at least as fast as before. In-process on a hand-moved clock
(tests/support/roomkit.py)."""

from __future__ import annotations

import asyncio
import random
import statistics
from pathlib import Path

import pytest
from roomkit import FakePhone, Kit

from crisp.server.clock import ManualClock
from crisp.server.rooms.latency import ALONG_GRACE, Probes, RoundTrips, median_of, near

SEED = 5


async def answering(
    kit: Kit, phone: FakePhone | list[FakePhone], seconds: float, rtt: float
) -> int:
    """For ``seconds`` (in steps of 0.05 s), each phone answers each new probe ``rtt`` after it
    came; the probes that came."""
    phones = phone if isinstance(phone, list) else [phone]
    came = 0
    answered = {(i, m["n"]) for i, one in enumerate(phones) for m in one.of("probe")}
    steps = round(seconds / 0.05)
    pending: list[tuple[float, int, int]] = []
    t = 0.0
    for _ in range(steps):
        for i, one in enumerate(phones):
            for m in one.of("probe"):
                if (i, m["n"]) not in answered:
                    answered.add((i, m["n"]))
                    pending.append((t + rtt, i, m["n"]))
                    came += 1
        for due, i, n in [p for p in pending if p[0] <= t + 1e-9]:
            pending.remove((due, i, n))
            await phones[i].say({"type": "probe_ack", "n": n})
        await kit.advance(0.05)
        t += 0.05
    return came


def test_settled_round_trips_are_probed_less_often_and_a_stray_answer_speeds_up(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=10)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)  # the jitter, fixed
        ana = phones[0]
        fast = await answering(kit, ana, 8, 0.1)  # probes every 2 s: 3 measured (2, 4, 6 s)
        assert fast == 3, fast
        lag = room.lag_of(ana)
        assert 50 <= lag <= 75  # half of 0.1 s (and the 0.05 s steps of this test), in game ms
        settled = await answering(kit, ana, 50, 0.1)
        assert 3 <= settled <= 7, settled  # every 7.5-12.5 s, not 25 in 50 s
        assert room.lag_of(ana) == lag  # as fair: the same allowance
        # the link gets slow: the first stray answer (within 12.5 s) brings probes at 2 s back;
        # 3 slow ones in a row are the new estimate (the 8 before are forgotten)
        changed = await answering(kit, ana, 12.5 + 3 * 2 + 1, 0.6)
        # the stray, its probe at once (both count), one more at 2 s; slow probes alone: at most 2
        assert changed >= 3, changed
        assert room.lag_of(ana) == 250  # half of 0.6 s is 300 ms: the cap

    asyncio.run(main())


def test_settled_means_every_sample_and_the_last_near_the_median() -> None:
    rt = RoundTrips(4)
    for i in range(3):
        rt.answered(rt.sent(float(i)), i + 0.1)
    assert not rt.settled()  # 3 of 4
    rt.answered(rt.sent(10.0), 10.1)
    assert rt.settled()
    rt.answered(rt.sent(20.0), 20.5)  # 0.5 s against a median of 0.1 s: strays, held back
    assert rt.settled() and rt.quick() and rt.median() == pytest.approx(0.1)  # asked again
    settled_after = []
    for i in range(5):  # it strays again: both count, fast until the last 4 answers agree
        rt.answered(rt.sent(30.0 + i), 30.5 + i)
        settled_after.append(rt.settled())
    assert settled_after == [False] * 2 + [True] * 3, settled_after
    assert rt.median() == 0.5
    assert near(0.1, 0.11) and near(0.01, 0.025) and not near(0.1, 0.3) and near(0.3, 0.5)


def test_a_round_trip_settles_after_rtt_settle_samples_and_keeps_its_median_of_rtt_samples() -> (
    None
):
    rt = RoundTrips(8, settle=3)
    for i in range(2):
        rt.answered(rt.sent(float(i)), i + 0.1)
    assert not rt.settled()  # 2 of 3
    rt.answered(rt.sent(2.0), 2.3)  # 0.3 s against 0.1: strays
    assert not rt.settled()
    for i in range(3, 5):
        rt.answered(rt.sent(float(i)), i + 0.1)
    assert not rt.settled()  # the stray is still among the last 3
    rt.answered(rt.sent(5.0), 5.1)
    assert rt.settled()
    for i in range(6, 12):  # the last 8 agree with the estimate: it is their median
        rt.answered(rt.sent(float(i)), i + 0.15)
    assert len(rt.samples) == 8 and rt.median() == pytest.approx(0.15)


def test_a_slow_start_is_forgotten_once_three_round_trips_agree() -> None:
    """1,000 rooms dealing at once: the first round trips are slow, then the link is fast; 3 fast
    ones in a row settle it and are the estimate (not the median of 5 with 2 slow)."""
    rt = RoundTrips(8, settle=3)
    settled = []
    for i, rtt in enumerate([0.4, 0.35, 0.3, 0.004, 0.005]):
        rt.answered(rt.sent(float(i)), i + rtt)
        settled.append(rt.settled())
    assert settled == [False, False, True, True, False]  # slow, steady; then strays twice
    assert rt.median() == pytest.approx(0.3)
    rt.answered(rt.sent(5.0), 5.003)
    assert rt.settled() and rt.samples == pytest.approx([0.004, 0.005, 0.003])
    assert rt.median() == pytest.approx(0.004)


def test_a_lone_stray_answer_is_asked_again_at_once_and_forgotten_if_the_next_agrees() -> None:
    """A busy moment (the server's or the phone's) makes one answer late: a settled connection is
    probed again at once instead of every 2 s until 3 agree, and keeps its estimate."""
    rt = RoundTrips(8, settle=3)
    for i in range(3):
        rt.answered(rt.sent(float(i)), i + 0.1)
    assert rt.settled() and not rt.quick()
    rt.answered(rt.sent(10.0), 10.4)  # 0.4 s against 0.1 s
    assert rt.settled() and rt.quick() and rt.next_due == 10.4
    assert rt.median() == pytest.approx(0.1)
    rt.answered(rt.sent(10.5), 10.6)
    assert rt.settled() and not rt.quick()
    assert rt.samples == pytest.approx([0.1] * 4) and rt.median() == pytest.approx(0.1)


def test_the_median_of_round_trips_is_the_statistics_median() -> None:
    """The probes' median (an odd count: the middle; an even one: the mean of the two middle
    ones), against the standard library's, on lists of every length the settings allow."""
    rng = random.Random(5)
    for n in range(1, 33):
        values = [rng.uniform(0.0, 0.5) for _ in range(n)]
        assert median_of(values) == statistics.median(values)
    assert median_of([0.3, 0.1]) == 0.2
    assert median_of([0.3, 0.1, 0.2]) == 0.2


def test_a_due_probe_rides_ahead_of_the_next_messages_and_the_tick_skips_it(tmp_path: Path) -> None:
    """A settled connection whose probe is due gets it with the next game messages the room sends
    it, ahead of them (one frame, no wake of its own); the room's next tick does not probe it
    again, and its round trip counts as any other."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=10)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)
        ana, ben = phones
        await answering(kit, ana, 8, 0.1)
        trips = room.probes.trips[ana]
        assert trips.settled()
        t0 = trips.next_due = kit.clock.now()  # due now
        room.probes.along_from = t0  # as a probe's or an answer's time would set it
        before = len(ana.got)
        await ben.act("ready")
        got = ana.got[before:]
        assert [m["type"] for m in got][:1] == ["probe"] and len(got) >= 2, got
        assert all(m["type"] != "probe" for m in got[1:]) and "v" in got[1]
        assert t0 + 8.75 <= trips.next_due <= t0 + 11.25  # settled: the next in 10 s, give or take
        await kit.advance(0.1)
        await ana.say({"type": "probe_ack", "n": got[0]["n"]})
        assert trips.samples[-1] == pytest.approx(0.1) and trips.settled()
        sent = len(ana.of("probe"))
        await kit.advance(1.9)  # the room's next tick: not due again
        assert len(ana.of("probe")) == sent

    asyncio.run(main())


def test_a_room_in_play_sends_a_due_settled_probe_with_its_messages_and_not_at_its_tick(
    tmp_path: Path,
) -> None:
    """A settled probe comes due seven to nine eighths of ``probe_settled_every_s`` after the
    last, and the room ticks an eighth after the first is due: a message the room sends
    meanwhile takes the due probe along, first in its frame, and the tick sends it no other."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=30)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)
        await answering(kit, phones, 8.1, 0.1)  # settled at 6 s
        trips = [room.probes.trips[phone] for phone in phones]
        assert all(t.last + 26.25 <= t.next_due <= t.last + 33.75 for t in trips)
        first = min(phones, key=lambda phone: room.probes.trips[phone].next_due)
        due = room.probes.trips[first].next_due
        tick = room.probe_timer.when
        assert tick == due + 30 * ALONG_GRACE
        sent = len(first.of("probe"))
        await answering(kit, phones, due + 0.05 - kit.clock.now(), 0.1)
        assert len(first.of("probe")) == sent  # due, not probed yet: the tick is to come
        before = len(first.got)
        await phones[phones[0].last("turn")["seat"]].act("draw")  # the look phase is over
        got = first.got[before:]
        assert [m["type"] for m in got][:1] == ["probe"] and len(got) >= 2, got
        await answering(kit, phones, tick + 0.1 - kit.clock.now(), 0.1)
        assert len(first.of("probe")) == sent + 1  # the one that went along: none at the tick
        assert room.probes.trips[first].settled()

    asyncio.run(main())


class Sink:
    """A connection as the probes see it: what it is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)


def test_the_messages_look_for_a_probe_to_take_along_only_once_the_first_is_due() -> None:
    """``Probes.along`` finds the settled connections due a probe, and before the earliest of
    them is due finds none without looking (its bound follows every probe and answer)."""
    clock = ManualClock()
    probes = Probes(clock, 5, 300, settled_every_s=10, rng=random.Random(1), settle=3)
    a, b = Sink(), Sink()
    for _ in range(3):  # three answers that agree: both settled
        for conn in (a, b):
            probes.probe(conn)  # type: ignore[arg-type]
        clock.t += 0.1
        for conn in (a, b):
            probes.answered(conn, probes.trips[conn].next_n - 1)  # type: ignore[index, arg-type]
    first = min((a, b), key=lambda c: probes.trips[c].next_due)  # type: ignore[index]
    due = probes.trips[first].next_due  # type: ignore[index]
    assert probes.along_from <= due  # a bound: the earliest ever set, until a look
    assert probes.along([a, b], due - 0.01) == []  # type: ignore[list-item]
    assert probes.along_from == due  # the look found the earliest
    assert probes.trips[first].next_due == due  # type: ignore[index]
    assert probes.along([a, b], due) == [first]  # type: ignore[list-item]
    assert probes.trips[first].next_due == due + 10  # type: ignore[index]
    assert probes.along_from == min(t.next_due for t in probes.trips.values())


def test_a_settled_room_ticks_an_eighth_after_its_first_due_probe_and_a_stray_brings_it_near(
    tmp_path: Path,
) -> None:
    """Once every connection of a room is settled, its probe tick waits for the first of their
    probes to come due, and an eighth of ``probe_settled_every_s`` more (not every
    ``probe_every_s``); a quiet room gets its due probes at that tick. An answer that strays
    brings the tick back within ``probe_every_s``, and the fast probes with it."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=30)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)
        await answering(kit, phones, 8.1, 0.1)  # 3 each at 2, 4, 6 s; the 8 s tick: all settled
        trips = [room.probes.trips[phone] for phone in phones]
        assert all(t.settled() for t in trips)
        first = min(t.next_due for t in trips)
        assert first >= kit.clock.now() + 20  # 26.25 to 33.75 s after 6 s
        tick = first + 30 * ALONG_GRACE
        assert room.probe_timer.when == tick  # not 2 s away: no wake until then
        sent = sum(len(phone.of("probe")) for phone in phones)
        await answering(kit, phones, tick - kit.clock.now() - 0.05, 0.1)
        assert sum(len(phone.of("probe")) for phone in phones) == sent  # none before the tick
        due = sum(t.next_due <= tick for t in trips)
        assert await answering(kit, phones, 0.7, 0.6) == due >= 1  # the due ones, answered late
        assert any(t.quick() for t in trips)  # a lone stray: asked again at once
        assert room.probe_timer.when <= kit.clock.now() + 2  # the stray brought the tick near
        assert await answering(kit, phones, 2.7, 0.6) >= 1  # and it strays again:
        assert not all(t.settled() for t in trips)  # unsettled, fast probes

    asyncio.run(main())


def test_a_connection_that_says_hello_to_a_settled_room_brings_its_probe_tick_near(
    tmp_path: Path,
) -> None:
    """The room's tick waits for its settled connections' probes; a new connection is probed
    every ``probe_every_s`` from its hello until it settles, not at that far tick."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=30)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)
        await answering(kit, phones, 8.1, 0.1)
        assert room.probe_timer.when >= kit.clock.now() + 10
        tv = await FakePhone(kit, room, None, "tv").connect()  # a watcher, mid-game
        assert len(tv.of("probe")) == 1  # with its welcome
        assert room.probe_timer.when <= kit.clock.now() + 2
        assert await answering(kit, tv, 6.2, 0.1) == 3  # at 2, 4 and 6 s: then settled
        assert room.probes.trips[tv].settled()

    asyncio.run(main())


def test_a_probe_tick_that_finds_the_room_held_leaves_one_probe_timer_whatever_comes_between(
    tmp_path: Path,
) -> None:
    """The probe timer fires while someone holds the room, and a connection needs probes sooner
    before the tick's work runs (a stray answer): afterwards one probe timer is set, not two
    chains of ticks."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=30)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)
        await answering(kit, phones, 8.1, 0.1)  # settled: the tick is far
        fired = room.probe_timer.handle
        assert fired is not None
        fired.cancel()  # taken off the clock, as when it fires
        async with room.lock:
            rest = room._probe_wake()  # as the clock calls it: the room is held, it must wait
            assert rest is not None and not room.probe_timer.is_set()
            room._probe_soon()  # as a stray answer would, meanwhile
        await rest
        live = [e for _, _, e in kit.clock._heap if not e.cancelled and e.wake == room._probe_wake]
        assert len(live) == 1 and room.probe_timer.is_set()

    asyncio.run(main())


def test_a_stray_answer_in_a_settled_room_brings_its_far_probe_tick_near(tmp_path: Path) -> None:
    """A settled connection's answer that strays brings the room's far tick within
    ``probe_every_s`` (in a room whose next message could be long in coming)."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, probe_every_s=2, probe_settled_every_s=30)
        room, phones = await kit.table(["Ana", "Ben"])
        room.probes.rng = random.Random(3)
        ana = phones[0]
        await answering(kit, phones, 8.1, 0.1)
        assert room.probe_timer.when >= kit.clock.now() + 10
        room.probes.probe(ana)  # a settled probe, answered late
        await kit.advance(0.6)
        await ana.say({"type": "probe_ack", "n": ana.of("probe")[-1]["n"]})
        assert room.probes.trips[ana].quick()
        assert room.probe_timer.when <= kit.clock.now() + 2

    asyncio.run(main())
