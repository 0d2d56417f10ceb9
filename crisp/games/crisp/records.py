"""Crisp's records (``crisp-record/1``, docs/record.md) for ``crisp replay`` and
``crisp verify``."""

from __future__ import annotations

import json
import sys
from typing import Any

from crisp.engine.crisp import verify
from crisp.engine.crisp.record import RecordError, ReplayError, dumps_stream, load, replay, stream
from crisp.games.common.records import Unverifiable, Verdict, replayed


class CrispRecords:
    format = "crisp-record/1"

    def replay(self, data: Any, seat: int | None, spectator: bool) -> int:
        def work() -> int:
            if not isinstance(data, dict):
                raise RecordError("a record is a JSON object")
            record = load(data)
            if seat is None and not spectator:
                print(json.dumps(replay(record).result, ensure_ascii=False))
                return 0
            n = len(record["players"])
            if seat is not None and not 0 <= seat < n:
                said = f"crisp replay: --seat {seat}: the record has {n} seats, 0 to {n - 1}"
                print(said, file=sys.stderr)
                return 2
            sys.stdout.write(dumps_stream(stream(record, None if spectator else seat)))
            return 0

        return replayed(work, ReplayError, RecordError)

    def verify(self, record: Any) -> Verdict:
        try:
            verdict = verify.verify_record(record)
        except verify.Unverifiable as err:
            raise Unverifiable(str(err)) from err
        return Verdict(verdict.ok, verdict.message, verdict.rounds)


RECORDS = CrispRecords()
