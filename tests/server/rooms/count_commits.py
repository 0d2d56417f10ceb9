"""Count store transactions per action, with and without group commit, in-process.

    .venv/bin/python tests/server/rooms/count_commits.py [--rooms 200] [--seconds 60]

R rooms of 8 bots (the host's seat too: a bot stands in for it, the host stays connected so the
game clock runs) play Crisp on a hand-moved clock (roomkit), no real time passing. The clock
moves in *turns* of T ms: every timer due in a turn fires in the same event-loop turn (as on a
server whose loop turn lasts T ms), then the turn's batch is flushed. Printed for each setting:
actions (stored changes), transactions, transactions per action, and both per second of game
time. ``group_commit`` off is the old path (one transaction per change) whatever T is.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))

from roomkit import FakePhone, Kit

from crisp.server.clock import ManualClock
from crisp.server.store.sqlite import Store


class TurnClock(ManualClock):
    """``ManualClock`` whose timers due in one turn fire together (one loop turn)."""

    async def run_turns(self, until: float, turn: float) -> None:
        while self.t < until:
            self.t += turn
            due = []
            while (when := self.next_timer()) is not None and when <= self.t:
                due.append(heapq.heappop(self._heap)[2])
            if due:
                await asyncio.gather(*(entry.wake() for entry in due))


class Counting:
    """A store that counts its transactions and the rooms' changes in them."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.transactions = 0
        self.rows = 0

    def write(self, *row: Any) -> None:
        self.write_many([row])

    def write_many(self, rows: Any) -> None:
        self.transactions += 1
        self.rows += len(rows)
        self.inner.write_many(rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def play(rooms: int, seconds: float, turn_ms: float, group: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Counting(Store(Path(tmp) / "crisp.sqlite3"))
        clock = TurnClock()
        kit = Kit(Path(tmp), store=store, clock=clock, group_commit=group)  # type: ignore[arg-type]
        for _ in range(rooms):
            room = kit.hub.create_room()
            _, token = room.join("Host")
            host = await FakePhone(kit, room, token, "Host").connect()
            for _ in range(7):
                await host.say({"type": "add_bot", "level": "normal"})
            await host.say({"type": "start"})
            room.lobby.stand_ins[0] = "normal"
            room._seat_bot(0, "normal", with_view=True)
            room._plan()
        start_tx, start_rows = store.transactions, store.rows
        changes_before = sum(r.version for r in kit.hub.rooms.values())
        await clock.run_turns(clock.t + seconds, turn_ms / 1000)
        changes = sum(r.version for r in kit.hub.rooms.values()) - changes_before
        tx = store.transactions - start_tx
        kit.store.close()
        return {
            "actions": changes,
            "transactions": tx,
            "rows": store.rows - start_rows,
            "tx_per_action": tx / changes if changes else 0.0,
            "actions_per_s": changes / seconds,
            "tx_per_s": tx / seconds,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--turns", default="1,5,20", help="loop turn lengths in ms")
    args = parser.parse_args()
    print("setting        turn   actions  transactions  tx/action  actions/s  tx/s")
    for turn in [float(t) for t in args.turns.split(",")]:
        for group in (False, True):
            r = asyncio.run(play(args.rooms, args.seconds, turn, group))
            name = "group commit" if group else "one per change"
            print(
                f"{name:14} {turn:4.0f}ms {r['actions']:8.0f} {r['transactions']:12.0f} "
                f"{r['tx_per_action']:10.3f} {r['actions_per_s']:9.1f} {r['tx_per_s']:6.1f}"
            )


if __name__ == "__main__":
    main()
