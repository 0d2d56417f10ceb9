"""The game server's garbage-collector pauses, read from its ``GET /metrics`` at the end of a
``crisp bench load`` run (the target: no pause over 20 ms at 2,000 rooms).

The server times every collection (``crisp_gc_pause_seconds``, a histogram by generation, from
its start: room setup included); this reads the counts and how many passed 20 ms."""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

PAUSE = "crisp_gc_pause_seconds"
LIMIT_S = 0.02  # one of the histogram's bucket bounds (crisp/server/observe/metrics.py)


async def metrics_text(host: str, port: int) -> str:
    """``GET /metrics`` on a connection of its own, read to its end."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /metrics HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n", 1)[0] + b" ":
        raise RuntimeError(f"GET /metrics: {head[:200]!r}")
    return body.decode()


def pauses(text: str) -> dict[str, Any]:
    """From the metrics' text: ``gc_pauses`` (collections), ``gc_pauses_over_20ms``, and the
    same by generation (``gc_by_generation``: generation → [pauses, over 20 ms])."""
    count: dict[str, float] = {}
    within: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name != PAUSE:
            continue
        for sample in family.samples:
            gen = sample.labels.get("generation", "")
            if sample.name == PAUSE + "_count":
                count[gen] = sample.value
            elif sample.name == PAUSE + "_bucket" and float(sample.labels["le"]) == LIMIT_S:
                within[gen] = sample.value
    if count and set(within) != set(count):
        raise ValueError(f"{PAUSE} has no bucket at {LIMIT_S} s")
    by_gen = {gen: [int(n), int(n - within[gen])] for gen, n in sorted(count.items())}
    return {
        "gc_pauses": sum(n for n, _ in by_gen.values()),
        "gc_pauses_over_20ms": sum(over for _, over in by_gen.values()),
        "gc_by_generation": by_gen,
    }


async def read_pauses(host: str, port: int) -> dict[str, Any]:
    """The server's pauses so far; ``gc_pauses`` None (and why) if its metrics cannot be read."""
    try:
        return pauses(await asyncio.wait_for(metrics_text(host, port), 10))
    except (TimeoutError, OSError, RuntimeError, ValueError) as err:
        return {"gc_pauses": None, "gc_pauses_over_20ms": None, "gc_unread": str(err)}
