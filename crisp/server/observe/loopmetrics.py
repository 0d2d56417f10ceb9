"""A counter and a histogram for the hot path: counted by the event loop's thread alone, with no
lock (``prometheus_client``'s metrics take a lock at every ``inc`` and ``observe``, a cost at each
change and each commit), and handed to the registry as metric families when it is scraped, through
its public collector API. Only the loop's thread may count into them."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector


class LoopCounter(Collector):
    """A counter by one label (``<name>_total{label=...}``)."""

    def __init__(self, name: str, documentation: str, label: str) -> None:
        self.name, self.documentation, self.label = name, documentation, label
        self.counts: dict[str, int] = {}

    def inc(self, value: str) -> None:
        counts = self.counts
        counts[value] = counts.get(value, 0) + 1

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.documentation, labels=[self.label])
        for value, count in sorted(self.counts.items()):
            family.add_metric([value], count)
        yield family


class LoopHistogram(Collector):
    """A histogram without labels: a value falls in the first bucket whose bound it does not
    exceed (``le``), as Prometheus counts it."""

    def __init__(self, name: str, documentation: str, buckets: Sequence[float]) -> None:
        self.name, self.documentation = name, documentation
        self.bounds = sorted(float(b) for b in buckets)
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value

    def collect(self) -> Iterator[Metric]:
        cumulative, total = [], 0
        for bound, count in zip([*map(repr, self.bounds), "+Inf"], self.counts, strict=True):
            total += count
            cumulative.append((bound, total))
        yield HistogramMetricFamily(
            self.name, self.documentation, buckets=cumulative, sum_value=self.sum
        )
