"""``crisp bench load`` times an action from its send to the 8th seat's copy of its message. A
refused action brings no message; its refusal may come after the player's next action (group
commit sends it behind the commit, with PostgreSQL's writer thread a batch or two later). The
refusal must be matched to the action it answers (the oldest unanswered one), not to the last
sent: matched to the last, the next action of the refused one's kind was timed from the refused
one's send (seconds: the bench showed a p99 of 2.3 s that no server-side delay explained)."""

from __future__ import annotations

import asyncio
import gc
import os

import pytest

from crisp.bench import load


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_late_refusal_is_matched_to_the_action_it_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(load.time, "perf_counter", clock)
    stats = load.Stats()
    stats.begin()
    room = load.GameRoom("ROOM", stats, load.Pace(speed=100.0, human=False))
    players = [load.Player(room, i, f"t{i}") for i in range(8)]
    ana = players[0]
    room.sent(ana, "crisp")  # t=100, to be refused (the window closed)
    clock.t = 101.0
    room.sent(ana, "draw")  # t=101, before the refusal comes back
    room.refused(ana)  # it answers the call, not the draw
    clock.t = 101.5
    for p in players:
        room.arrived(p, "draw", 0)
    clock.t = 110.0
    room.sent(ana, "crisp")  # t=110, accepted
    clock.t = 110.25
    for p in players:
        room.arrived(p, "crisp", 0)
    assert stats.latencies == [0.5, 0.25]  # the draw from 101, the second call from 110
    assert not ana.outstanding


def test_the_generator_collects_no_garbage_in_the_measured_window() -> None:
    """A full collection of the generator's own objects (thousands of sockets) paused it for
    190-260 ms every 9 s at 2,000 rooms, and the messages waiting meanwhile counted as the
    server's latency: its collector is off from the warm-up to the end of the window."""
    seen: list[bool] = []

    async def main() -> None:
        async def look() -> None:
            for _ in range(4):
                seen.append(gc.isenabled())
                await asyncio.sleep(0.01)

        watcher = asyncio.ensure_future(look())
        await load.measure(load.Stats(), os.getpid(), 0.01, 0.05)
        await watcher

    assert gc.isenabled()
    asyncio.run(main())
    assert seen == [False] * 4 and gc.isenabled()


class Socket:
    """The generator's socket as ``on_game_text`` sees it: its player, and what it sends."""

    def __init__(self, owner: load.Player) -> None:
        self.owner = owner
        self.sent: list[bytes] = []

    def send_text(self, data: bytes | str) -> None:
        self.sent.append(data if isinstance(data, bytes) else data.encode())


def test_the_frames_that_hold_probes_only_are_counted_apart_from_the_game_s() -> None:
    """The relays carry the game's frames but not its probes: a frame that holds probes only is
    counted (``probe_frames_per_s``) and its bytes left out of the game's frames' mean size; a
    probe that rides in a frame of the game's messages leaves that frame counted as the game's."""
    stats = load.Stats()
    stats.begin()
    room = load.GameRoom("ROOM", stats, load.Pace(speed=1.0, human=True))
    ana = load.Player(room, 0, "t0")
    sock = Socket(ana)
    ana.conn = sock  # type: ignore[assignment]
    alone = b'{"type":"probe","n":4}'
    two_alone = b'[{"type":"probe","n":5},{"type":"probe","n":6}]'
    along = b'[{"type":"probe","n":7},{"type":"presence","seats":[0],"v":3}]'
    for data in (alone, two_alone, along):
        load.on_game_text(sock, data)  # type: ignore[arg-type]
    assert len(sock.sent) == 4  # every probe answered
    assert (stats.frames, stats.msgs, stats.probes) == (3, 5, 4)
    assert stats.probe_frames == 2
    assert stats.probe_frame_bytes == len(alone) + len(two_alone)
    assert stats.bytes - stats.probe_frame_bytes == len(along)
