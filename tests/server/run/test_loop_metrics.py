"""The hot path's lock-free counter and histogram (crisp/server/observe/loopmetrics.py) expose
exactly what prometheus_client's own ``Counter`` and ``Histogram`` expose for the same counts
(the ``_created`` samples aside, which they do not keep)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from crisp.server.observe.loopmetrics import LoopCounter, LoopHistogram
from crisp.server.observe.metrics import FAST


def exposed(registry: CollectorRegistry) -> list[str]:
    lines = generate_latest(registry).decode().splitlines()
    return [line for line in lines if "_created" not in line]


def test_the_loop_histogram_exposes_what_prometheus_clients_histogram_does() -> None:
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    mine = LoopHistogram("crisp_x_seconds", "a doc", FAST)
    ours.register(mine)
    reference = Histogram("crisp_x_seconds", "a doc", buckets=FAST, registry=theirs)
    # values on a bound (le counts it), between bounds, below the first and above the last
    for value in (0.0, 0.0001, 0.00011, 0.0025, 0.003, 0.1, 1.0, 4.99, 5.0, 7.5, 120.0):
        mine.observe(value)
        reference.observe(value)
    assert exposed(ours) == exposed(theirs)
    assert 'crisp_x_seconds_bucket{le="0.0001"} 2.0' in exposed(ours)


def test_the_loop_counter_exposes_what_prometheus_clients_counter_does() -> None:
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    mine = LoopCounter("crisp_things", "a doc", "game")
    ours.register(mine)
    reference = Counter("crisp_things", "a doc", ["game"], registry=theirs)
    for game in ("crisp", "crisps", "crisp"):
        mine.inc(game)
        reference.labels(game).inc()
    assert exposed(ours) == exposed(theirs)
    assert 'crisp_things_total{game="crisp"} 2.0' in exposed(ours)
