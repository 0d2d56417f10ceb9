"""A store outage, handled: with PostgreSQL stopped, ``/healthz`` once stayed 200, creating a
room answered a bare 500 and the log had 53 tracebacks in 15 s. Now creating a room answers a typed
503 ``unavailable``, ``/readyz`` is 503 while ``/healthz`` stays 200 (liveness), the log has one
line when the outage starts and one when it ends, and the server recovers by itself."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from inthread import serving
from pgserver import PgServer

from crisp.server.app import create_app
from crisp.server.settings import Settings


def call(port: int, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        text = err.read()
        try:
            return err.code, json.loads(text)
        except ValueError:
            return err.code, {"raw": text.decode(errors="replace")}


@pytest.fixture
def own_pg() -> Any:
    """A PostgreSQL server of this test alone (it is stopped and started again)."""
    server = PgServer().start()
    yield server
    server.stop()


def test_store_outage_is_a_typed_503_logged_once_and_recovers(
    own_pg: PgServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = own_pg.new_database()
    settings = Settings(database_url=url, limit_exempt_ips=["127.0.0.1"], node_id="n1")
    app = create_app(settings)
    caplog.set_level(logging.INFO)
    with serving(app) as port:
        status, joined = call(port, "/api/rooms", {"name": "Ann"})
        assert status == 201, joined
        caplog.clear()
        own_pg.halt()
        answers = []
        deadline = time.monotonic() + 3  # the lease renewals run meanwhile (every 0.2 s)
        while time.monotonic() < deadline:
            answers.append(call(port, "/api/rooms", {"name": "Bob"}))
            answers.append(call(port, f"/api/rooms/{joined['code']}/join", {"name": "Cy"}))
            time.sleep(0.1)
        assert {s for s, _ in answers} == {503}, answers[:3]
        assert {b.get("code") for _, b in answers} == {"unavailable"}, answers[:3]
        assert call(port, "/healthz")[0] == 200
        ready = call(port, "/readyz")
        assert ready[0] == 503 and ready[1]["code"] == "unavailable"
        during = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [r.exc_info for r in during if r.exc_info] == []  # no traceback
        assert [r.getMessage().split(";")[0] for r in during] == ["the database is unreachable"], [
            r.getMessage() for r in during
        ]
        caplog.clear()
        own_pg.resume()
        status, again = call(port, "/api/rooms", {"name": "Dee"})
        assert status == 201, again
        assert call(port, "/readyz")[0] == 200
        status, _ = call(port, f"/api/rooms/{joined['code']}/join", {"name": "Eve"})
        assert status == 201
        after = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(after) == 1 and after[0].startswith("the database is reachable again"), after


class Served:
    """The in-thread server, as ``wsclient.Client`` finds it."""

    def __init__(self, port: int) -> None:
        self.ws_base = f"ws://127.0.0.1:{port}"


def test_postgres_stopped_mid_game_is_two_log_lines_and_the_game_plays_on(
    own_pg: PgServer, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL stopped in the middle of a game: each move is refused ``unavailable`` (nothing
    changed), the log has one line when the outage starts and one when it ends, with the count
    of changes refused meanwhile, and no traceback; once it is back, the same move applies."""
    import asyncio

    from wsclient import Client

    settings = Settings(
        database_url=own_pg.new_database(), limit_exempt_ips=["127.0.0.1"], node_id="n1"
    )
    caplog.set_level(logging.INFO)
    with serving(create_app(settings)) as port:
        status, ann = call(port, "/api/rooms", {"name": "Ann"})
        assert status == 201, ann
        status, bob = call(port, f"/api/rooms/{ann['code']}/join", {"name": "Bob"})
        assert status == 201, bob

        async def main() -> None:
            a = await Client(Served(port), ann["code"], ann["token"], "Ann").connect()  # type: ignore[arg-type]
            b = await Client(Served(port), ann["code"], bob["token"], "Bob").connect()  # type: ignore[arg-type]
            await a.send({"type": "start"})
            await b.wait_type("look")
            caplog.clear()
            own_pg.halt()
            for phone in (a, b):
                mark = len(phone.received)
                await phone.act("ready")
                refused = await phone.wait_type("error", since=mark)
                assert refused["code"] == "unavailable", refused
            during = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert [r.exc_info for r in during if r.exc_info] == []  # no traceback
            assert [r.getMessage().split(";")[0] for r in during] == [
                "the database is unreachable"
            ], [r.getMessage() for r in during]
            caplog.clear()
            own_pg.resume()
            for phone in (a, b):
                mark = len(phone.received)
                for _ in range(50):  # the store reconnects on its next call
                    await phone.act("ready")
                    answer = await phone.wait(lambda m: m["type"] in ("ready", "error"), since=mark)
                    if answer["type"] == "ready":
                        break
                    mark = len(phone.received)
                    await asyncio.sleep(0.1)
                assert answer["type"] == "ready" and answer["seat"] == phone.seat, answer
            after = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(after) == 1 and after[0].startswith("the database is reachable again"), after
            assert after[0].endswith(" changes were refused meanwhile)"), after
            assert int(after[0].split("; ")[1].split()[0]) >= 2, after  # both moves at least
            await a.close()
            await b.close()

        asyncio.run(main())
