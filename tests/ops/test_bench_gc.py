"""``crisp bench load`` reads the server's collector pauses from its metrics
(crisp/bench/load_gc.py; the goal: no pause over 20 ms), by generation, against the histogram's
20 ms bucket."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram, generate_latest

from crisp.bench.load_gc import pauses
from crisp.server.observe.metrics import FAST


def metrics_with(seconds_by_generation: dict[str, list[float]]) -> str:
    registry = CollectorRegistry()
    hist = Histogram(
        "crisp_gc_pause_seconds", "pauses", ["generation"], buckets=FAST, registry=registry
    )
    for gen, values in seconds_by_generation.items():
        for value in values:
            hist.labels(gen).observe(value)
    return generate_latest(registry).decode()


def test_pauses_over_20_ms_are_counted_by_generation() -> None:
    text = metrics_with({"0": [0.001, 0.019, 0.021], "2": [0.3], "1": [0.02]})
    got = pauses(text)
    assert got["gc_by_generation"] == {"0": [3, 1], "1": [1, 0], "2": [1, 1]}
    assert got["gc_pauses"] == 5 and got["gc_pauses_over_20ms"] == 2


def test_no_histogram_is_no_pause_and_one_without_the_20_ms_bucket_is_refused() -> None:
    assert pauses("# nothing here\n")["gc_pauses"] == 0
    text = metrics_with({"0": [0.001]}).replace('le="0.02"', 'le="0.03"')
    try:
        pauses(text)
    except ValueError as err:
        assert "0.02" in str(err)
    else:
        raise AssertionError("a histogram without the 20 ms bucket was read")
