"""Observability: ``GET /metrics`` in Prometheus's text format, one registry
per app, with rooms by phase and game, members and sockets, actions applied and refusals by code,
store write latency, event-loop lag, GC pauses and rate-limit refusals; ``GET /readyz``."""

from __future__ import annotations

import gc
import json
import time
import urllib.error
import urllib.request
from pathlib import Path

from inthread import serving
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

from crisp.server.app import create_app
from crisp.server.settings import Settings


def post(port: int, path: str, body: dict[str, str]) -> int:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return err.code


def scrape(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=")
        text = resp.read().decode()
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"] = sample.value
    return found


def test_metrics_list_what_an_operator_watches(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data"))
    with serving(app) as port:
        for _ in range(7):  # the burst is 5 room creations per IP: two are refused
            post(port, "/api/rooms", {"name": "Ann"})
        with connect(f"ws://127.0.0.1:{port}/ws/ABCDEF") as ws:  # not a room: closed
            pass
        code = next(iter(app.state.hub.rooms))
        with connect(f"ws://127.0.0.1:{port}/ws/{code}", origin=f"http://127.0.0.1:{port}") as ws:
            ws.send("not json")
            ws.recv(timeout=10)
            gc.collect()
            time.sleep(0.6)  # one event-loop lag sample (a real-time measure, not game time)
            m = scrape(port)
    assert m["crisp_rooms{game=crisp,phase=lobby}"] == 5
    assert m["crisp_members{}"] == 5
    assert m["crisp_sockets{}"] >= 1
    assert m["crisp_actions_applied_total{game=crisp}"] == 5  # each join stored
    assert m["crisp_rate_limit_refusals_total{code=rate_limited}"] == 2
    assert any(k.startswith("crisp_refusals_total{code=") for k in m), m
    assert m["crisp_store_write_seconds_count{}"] == 5
    assert m["crisp_event_loop_lag_seconds_count{}"] >= 1
    assert sum(v for k, v in m.items() if k.startswith("crisp_gc_pause_seconds_count")) >= 1
    assert m["crisp_store_up{}"] == 1


def test_each_app_has_its_own_registry(tmp_path: Path) -> None:
    """No module-level registry: two apps in one process count apart."""
    one = create_app(Settings(data_dir=tmp_path / "one"))
    two = create_app(Settings(data_dir=tmp_path / "two"))
    assert one.state.hub.metrics.registry is not two.state.hub.metrics.registry


def test_readyz_is_200_with_a_reachable_store(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data"))
    with serving(app) as port, urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz") as r:
        assert r.status == 200 and json.loads(r.read()) == {"ok": True}
