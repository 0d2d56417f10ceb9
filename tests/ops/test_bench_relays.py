"""``crisp bench load``'s relay rows (crisp/bench/load_relays.py): a smoke run of each relay, tiny
and bounded, checking that every frame sent reaches the 8 sockets of its room: not a timed test."""

from __future__ import annotations

import pytest

from crisp.bench.load import server_env
from crisp.bench.load_relays import Traffic, body, frame_number, msgpack_str, run_relay, unavailable


def test_a_frame_carries_its_number_and_size() -> None:
    text = body(41, 3, 120)
    assert frame_number(text) == 41
    assert abs(len(text) - 120) <= 2
    assert msgpack_str(b"x" * 10)[0] == 0xAA  # fixstr
    assert msgpack_str(text)[:2] == b"\xd9" + bytes((len(text),))  # str8


@pytest.mark.parametrize("kind", ["fastapi", "colyseus"])
def test_relay_delivers_each_frame_to_the_eight_sockets(kind: str) -> None:
    why = unavailable(kind)
    if why is not None:
        pytest.skip(f"the {kind} relay cannot run here: {why}")
    traffic = Traffic(rooms=3, action_gap_s=0.2, frames_per_action=2.5, frame_bytes=150)
    row = run_relay(kind, traffic, warmup=0.5, seconds=2.0, env=server_env(False), server_core=None)
    assert row["relay"] == kind and row["rooms"] == 3
    # about 3 rooms x 5 actions/s x 2.5 frames, each frame timed once it reached all 8 sockets
    assert row["timed_actions"] > 20
    assert row["msgs_per_s"] >= 7 * row["actions_per_s"]  # 8 receipts per frame, minus the edges
    assert row["p99_ms"] < 2000 and row["kb_per_room"] > 0
