"""Crisps!'s records (``crisps-record/1``, docs/record-crisps.md) for ``crisp replay`` and
``crisp verify``."""

from __future__ import annotations

import json
import sys
from typing import Any

from crisp.engine.common.messages import dumps_stream
from crisp.engine.crisps.record import RecordError, ReplayError, replay
from crisp.engine.crisps.verify import CrispsUnverifiable, verify_crisps
from crisp.games.common.records import Unverifiable, Verdict, replayed


class CrispsRecords:
    format = "crisps-record/1"

    def replay(self, data: Any, seat: int | None, spectator: bool) -> int:
        def work() -> int:
            if seat is not None and seat not in (0, 1):
                said = f"crisp replay: --seat {seat}: the record has 2 seats, 0 to 1"
                print(said, file=sys.stderr)
                return 2
            if not isinstance(data, dict):
                raise RecordError("a record is a JSON object")
            done = replay(data)
            if seat is None and not spectator:
                print(json.dumps(done.result, ensure_ascii=False))
            else:
                watcher = None if spectator else seat
                sys.stdout.write(dumps_stream(o.msg for o in done.outs if o.for_seat(watcher)))
            return 0

        return replayed(work, ReplayError, RecordError)

    def verify(self, record: Any) -> Verdict:
        try:
            return Verdict(*verify_crisps(record))
        except (CrispsUnverifiable, ValueError) as err:
            raise Unverifiable(str(err)) from err


RECORDS = CrispsRecords()
