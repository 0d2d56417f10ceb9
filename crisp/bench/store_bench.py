"""``crisp bench store``: the cost of one change in each store, as the room pipeline pays it (one
``write``: a room's version, a move's log entry, committed; every 10th change also its lobby
state), over ``rooms`` rooms in turn. SQLite in a temporary directory; PostgreSQL at
``CRISP_DATABASE_URL`` (or ``--database-url``) if given."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from crisp.server.store.sqlite import Storage, Store

STATE = {"phase": "playing", "game_no": 1, "members": {str(i): {"name": f"p{i}"} for i in range(8)}}
ENTRY = {"e": "act", "t": 12.345, "seat": 3, "do": "swap", "slot": "left"}


def run(store: Storage, changes: int, rooms: int) -> dict[str, float]:
    codes = [uuid.uuid4().hex[:12].upper() for _ in range(rooms)]
    for code in codes:
        store.write(code, STATE, [(0, ENTRY)], time.time(), 1)
    seq = dict.fromkeys(codes, 1)
    times = []
    for i in range(changes):
        code = codes[i % rooms]
        state = STATE if i % 10 == 0 else None
        start = time.perf_counter()
        store.write(code, state, [(seq[code], ENTRY)], time.time(), seq[code] + 1)
        times.append(time.perf_counter() - start)
        seq[code] += 1
    times.sort()
    return {
        "changes": changes,
        "mean_us": statistics.fmean(times) * 1e6,
        "p50_us": times[len(times) // 2] * 1e6,
        "p99_us": times[int(len(times) * 0.99)] * 1e6,
        "per_s": changes / sum(times),
    }


def main(changes: int, rooms: int, database_url: str | None, as_json: bool) -> int:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = Store(Path(tmp) / "crisp.sqlite3")
        try:
            results["sqlite"] = run(sqlite, changes, rooms)
        finally:
            sqlite.close()
    if database_url:
        from crisp.server.store.postgres import PgStore

        pg = PgStore(database_url, f"bench-{uuid.uuid4().hex[:6]}")
        try:
            results["postgres"] = run(pg, changes, rooms)
        finally:
            for code in list(pg.held()):
                pg.delete(code)
            pg.close()
    if as_json:
        print(json.dumps(results))
        return 0
    for name, r in results.items():
        print(
            f"{name:9} {r['changes']} changes: mean {r['mean_us']:.0f} us, "
            f"p50 {r['p50_us']:.0f} us, p99 {r['p99_us']:.0f} us "
            f"({r['per_s']:,.0f} a second)"
        )
    return 0
