"""The end-of-turn writes of every connection from one callback (crisp/server/socket/flusher.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from crisp.server.socket.flusher import Flusher


class Conn:
    def __init__(self, name: str, written: list[str], fails: bool = False) -> None:
        self.name = name
        self.written = written
        self.fails = fails

    def flush_due(self) -> None:
        if self.fails:
            raise RuntimeError("a bug")
        self.written.append(self.name)


def test_a_turns_connections_are_written_after_it_in_order_from_one_callback() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        scheduled: list[Any] = []
        call_soon = loop.call_soon

        def counting(callback: Any, *args: Any, **kwargs: Any) -> Any:
            scheduled.append(callback)
            return call_soon(callback, *args, **kwargs)

        loop.call_soon = counting  # type: ignore[method-assign]
        written: list[str] = []
        flusher = Flusher()
        for name in ("a", "b", "c"):
            flusher.add(Conn(name, written), loop)
        assert written == []  # not before the turn is over
        assert [c for c in scheduled if c == flusher.flush] == scheduled  # none other
        assert len(scheduled) == 1  # one callback for the three
        await asyncio.sleep(0)
        assert written == ["a", "b", "c"]
        flusher.add(Conn("d", written), loop)  # a later turn: a callback of its own
        await asyncio.sleep(0)
        assert written == ["a", "b", "c", "d"]
        assert len([c for c in scheduled if c == flusher.flush]) == 2

    asyncio.run(main())


def test_a_connection_whose_write_fails_keeps_no_other_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        written: list[str] = []
        flusher = Flusher()
        for conn in (Conn("a", written), Conn("b", written, fails=True), Conn("c", written)):
            flusher.add(conn, loop)
        await asyncio.sleep(0)
        assert written == ["a", "c"]

    asyncio.run(main())
    assert "a connection's write failed" in caplog.text


def test_a_flush_left_in_a_closed_loop_does_not_stop_the_next_loops() -> None:
    written: list[str] = []
    flusher = Flusher()
    old = asyncio.new_event_loop()
    flusher.add(Conn("lost", written), old)
    old.close()  # with its flush scheduled, never run

    async def queue_and_turn() -> None:
        flusher.add(Conn("next", written), asyncio.get_running_loop())
        await asyncio.sleep(0)

    asyncio.run(queue_and_turn())
    assert written == ["next"]
