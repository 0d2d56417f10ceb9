"""``crisp bench load``: a smoke run (tiny R, short windows) of the JSON shape, not a timed test."""

from __future__ import annotations

import json
import subprocess
import sys

from crisp.bench.load_ws import frame, mask


def test_masking_round_trips() -> None:
    """A client frame is masked (RFC 6455): XOR with the key again gives the payload back."""
    payload = b'{"type":"act","v":17,"do":"draw"}'
    data = frame(1, payload)
    assert data[0] == 0x81 and data[1] == 0x80 | len(payload)
    key = data[2:6]
    assert mask(data[6:], key) == payload
    assert len(frame(1, b"x" * 300)) == 2 + 2 + 4 + 300  # 16-bit length


def test_bench_load_json_shape() -> None:
    """Two rooms of 8 against a real server and the baseline, plus a tiny human-pace run."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crisp",
            "bench",
            "load",
            "--rooms",
            "2",
            "--seconds",
            "1.5",
            "--warmup",
            "0.5",
            "--human",
            "2",
            "--human-seconds",
            "3",
            "--relays",
            "fastapi",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for key in (
        "rooms",
        "game_msgs_per_s",
        "baseline_msgs_per_s",
        "ratio",
        "p50_ms",
        "p99_ms",
        "baseline_p99_ms",
        "server_peak_rss_mb",
        "game_actions_per_s",
        "kb_per_room",
        "game_generator_cpu_pct",
        "game_server_cpu_pct",
    ):
        assert key in report, key
    assert report["rooms"] == 2 and report["rooms_dealt"] == 2
    for key in (
        "game_msgs_per_s",
        "baseline_msgs_per_s",
        "ratio",
        "p50_ms",
        "p99_ms",
        "baseline_p99_ms",
        "server_peak_rss_mb",
        "game_actions_per_s",
    ):
        assert report[key] > 0, key
    human = report["human"]
    assert human and human[0]["rooms"] == 2 and human[0]["server_peak_rss_mb"] > 0
    assert "human_capacity_rooms" in report
    # the same human-pace traffic through the bare relay, beside the game's figures
    [relay] = human[0]["relays"]
    assert relay["relay"] == "fastapi" and relay["rooms"] == 2
    assert relay.get("timed_actions", 0) > 0 or "skipped" in relay, relay
    # the server's collector pauses, read from its /metrics (the goal: none over 20 ms); a run
    # this short may see none, but the figures were read (None and gc_unread if not)
    for run in (report, human[0]):
        assert "gc_unread" not in run, run.get("gc_unread")
        assert isinstance(run["gc_pauses"], int)
        assert 0 <= run["gc_pauses_over_20ms"] <= run["gc_pauses"]
