"""The per-socket stand-ins for uvicorn's asyncio.Queue and Event (issue 22, memory:
crisp/server/http/lightsync.py): the same behaviour the WebSocket protocol relies on, in a
fraction of the memory; and the guarded protocol uses them."""

from __future__ import annotations

import asyncio
import tracemalloc
from typing import Any

import pytest

from crisp.server.http.lightsync import Flag, ReceiveQueue, Routed
from crisp.server.http.uvguard import guarded_ws
from crisp.server.settings import Settings


def test_the_queue_gives_its_items_in_order_and_a_waiting_get_wakes_on_a_put() -> None:
    async def main() -> None:
        queue: ReceiveQueue[int] = ReceiveQueue(asyncio.get_running_loop())
        assert queue.empty()
        queue.put_nowait(1)
        queue.put_nowait(2)
        assert queue.qsize() == 2 and await queue.get() == 1 and await queue.get() == 2
        getter = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        assert not getter.done()
        queue.put_nowait(3)
        assert await getter == 3 and queue.empty()

    asyncio.run(main())


def test_get_nowait_takes_the_oldest_at_once() -> None:
    async def main() -> list[int]:
        queue: ReceiveQueue[int] = ReceiveQueue(asyncio.get_running_loop())
        for item in (4, 5, 6):
            queue.put_nowait(item)
        return [queue.get_nowait() for _ in range(3)]

    assert asyncio.run(main()) == [4, 5, 6]


def test_a_detached_sockets_queue_hands_each_item_over_as_it_is_put() -> None:
    routed: list[int] = []
    queue: Routed[int] = Routed(routed.append)
    queue.put_nowait(1)
    queue.put_nowait(2)
    assert routed == [1, 2] and queue.empty() and queue.qsize() == 0
    with pytest.raises(RuntimeError, match="detached"):
        asyncio.run(queue.get())


def test_a_cancelled_get_loses_nothing() -> None:
    async def main() -> None:
        queue: ReceiveQueue[str] = ReceiveQueue(asyncio.get_running_loop())
        getter = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        getter.cancel()
        await asyncio.gather(getter, return_exceptions=True)
        queue.put_nowait("a")
        assert await queue.get() == "a"

    asyncio.run(main())


def test_the_flag_wakes_every_waiter_when_set_and_waits_again_once_cleared() -> None:
    async def main() -> None:
        flag = Flag(asyncio.get_running_loop())
        waiters = [asyncio.create_task(flag.wait()) for _ in range(3)]
        await asyncio.sleep(0)
        assert not flag.is_set() and not any(w.done() for w in waiters)
        flag.set()
        assert await asyncio.gather(*waiters) == [True, True, True]
        assert await flag.wait()  # set: at once
        flag.clear()
        late = asyncio.create_task(flag.wait())
        await asyncio.sleep(0)
        assert not late.done()
        late.cancel()
        await asyncio.gather(late, return_exceptions=True)
        flag.set()

    asyncio.run(main())


def size_of(make: Any, n: int = 200) -> float:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [make() for _ in range(n)]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(kept) == n
    return (after - before) / n


def test_they_cost_a_small_part_of_what_they_replace() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        light = size_of(lambda: ReceiveQueue(loop)) + size_of(lambda: Flag(loop, True))
        heavy = size_of(asyncio.Queue) + size_of(asyncio.Event)
        assert light * 5 < heavy, (light, heavy)

    asyncio.run(main())


def test_the_guarded_websocket_protocol_uses_them(tmp_path: Any) -> None:
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("not called")

    async def main() -> None:
        config = Config(app, ws="websockets-sansio", lifespan="off")
        config.load()
        proto = guarded_ws(Settings(data_dir=tmp_path))(config, ServerState(), {})
        assert isinstance(proto.queue, ReceiveQueue)
        assert isinstance(proto.writable, Flag) and proto.writable.is_set()

    asyncio.run(main())
