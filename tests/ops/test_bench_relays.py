"""``crisp bench load``'s relay rows (crisp/bench/load_relays.py): a smoke run of each relay, tiny
and bounded, checking that every frame sent reaches the 8 sockets of its room, and that the
durable relay stores each message before it broadcasts it: not a timed test."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from crisp.bench import load, load_relays
from crisp.bench.load import server_env
from crisp.bench.load_relays import (
    DURABLE,
    Traffic,
    body,
    frame_number,
    msgpack_str,
    run_relay,
    unavailable,
)

SMALL = Traffic(rooms=3, action_gap_s=0.2, frames_per_action=2.5, frame_bytes=150)


def runnable(kind: str) -> None:
    why = unavailable(kind)
    if why is not None:
        pytest.skip(f"the {kind} relay cannot run here: {why}")


def test_a_frame_carries_its_number_and_size() -> None:
    text = body(41, 3, 120)
    assert frame_number(text) == 41
    assert abs(len(text) - 120) <= 2
    assert msgpack_str(b"x" * 10)[0] == 0xAA  # fixstr
    assert msgpack_str(text)[:2] == b"\xd9" + bytes((len(text),))  # str8


@pytest.mark.parametrize("kind", ["fastapi", "colyseus", DURABLE])
def test_relay_delivers_each_frame_to_the_eight_sockets(kind: str) -> None:
    runnable(kind)
    row = run_relay(kind, SMALL, warmup=0.5, seconds=2.0, env=server_env(False), server_core=None)
    assert row["relay"] == kind and row["rooms"] == 3
    # about 3 rooms x 5 actions/s x 2.5 frames, each frame timed once it reached all 8 sockets
    assert row["timed_actions"] > 20
    assert row["msgs_per_s"] >= 7 * row["actions_per_s"]  # 8 receipts per frame, minus the edges
    assert row["p99_ms"] < 2000 and row["kb_per_room"] > 0


def stored(db_file: Path) -> tuple[dict[str, int], dict[str, list[int]]]:
    """The durable relay's database: each room's version, and its log's seqs in order."""
    db = sqlite3.connect(db_file)
    try:
        versions = dict(db.execute("SELECT code, version FROM rooms").fetchall())
        seqs: dict[str, list[int]] = {code: [] for code in versions}
        for code, seq, entry in db.execute("SELECT code, seq, entry FROM log ORDER BY code, seq"):
            assert json.loads(entry)["type"] == "relay"  # the message, as the client sent it
            seqs[code].append(seq)
    finally:
        db.close()
    return versions, seqs


def test_durable_relay_stores_one_log_row_per_message_and_updates_the_room(
    tmp_path: Path,
) -> None:
    runnable(DURABLE)
    row = run_relay(
        DURABLE, SMALL, 0.5, 2.0, env=server_env(False), server_core=None, store_dir=tmp_path
    )
    versions, seqs = stored(tmp_path / "relay.sqlite3")
    assert sorted(versions) == ["B0", "B1", "B2"]
    for code, version in versions.items():
        assert seqs[code] == list(range(1, version + 1))  # one row per change, the row's version
    store = row["store"]
    assert store["changes"] == sum(versions.values())  # every change the relay made is stored
    # every frame timed reached its 8 sockets, so it had been stored: at least as many changes
    assert store["changes"] >= row["timed_actions"] > 20
    assert 0 < store["commits"] <= store["changes"] and store["commit_us"] > 0


def test_the_bench_prints_the_durable_row_with_its_store(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runnable(DURABLE)
    game = {
        "rooms": 2,
        "actions_per_s": 10.0,
        "probe_share": 0.0,
        "probe_frames_per_s": 0.0,
        "msgs_per_s": 160.0,
        "frames_per_s": 160.0,
        "bytes_per_frame": 120,
        "game_frame_bytes": 120,
        "server_cpu_pct": 5.0,
        "kb_per_room": 100.0,
    }
    row = load.relay_row(DURABLE, game, 0.5, 1.5, server_core=None, as_json=False)
    out = capsys.readouterr().out
    assert f"relay {DURABLE}, the same traffic" in out
    assert f"its store: {row['store']['commits']} commits of {row['store']['changes']}" in out


def test_the_durable_row_says_why_it_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    monkeypatch.setattr(load_relays, "SQLITE_ADDON", tmp_path / "better_sqlite3.node")
    assert "better-sqlite3 is not built" in (load_relays.sqlite_unavailable() or "")
    (tmp_path / "better_sqlite3.node").write_bytes(b"")
    monkeypatch.setattr(load_relays, "COLYSEUS_DIR", tmp_path)  # no node_modules there
    why = load_relays.sqlite_unavailable() or ""
    assert why.startswith("better-sqlite3 does not load (") and "npm rebuild" in why
