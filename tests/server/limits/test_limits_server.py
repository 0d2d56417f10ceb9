"""The limits against a real ``crisp serve``: under each limit everything works, over it
the typed refusal (docs/limits.md); another room's ping round trip during the abuse is printed
(and only held to a generous sanity bound). Clients come from distinct loopback addresses
(127.0.0.x), which the server sees as distinct IPs."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
import websockets
from limitprobe import NO_EXEMPT, Probe, http, summary, ws_connect
from serverproc import ServerProcess
from websockets.exceptions import InvalidStatus

SANE_P99_S = 2.0  # another room's ping during abuse: a sanity bound, not a performance goal


def serve(tmp_path: Path, **env: str) -> ServerProcess:
    return ServerProcess(
        tmp_path, env={**NO_EXEMPT, **{f"CRISP_{k.upper()}": v for k, v in env.items()}}
    )


def check_sane(label: str, rtts: list[float]) -> None:
    print("\n" + summary(label, rtts))
    assert sorted(rtts)[int(0.99 * (len(rtts) - 1))] < SANE_P99_S


def test_room_creation_per_ip_and_total(tmp_path: Path) -> None:
    with serve(
        tmp_path,
        create_ip_burst="3",
        create_ip_per_min="1",
        create_total_burst="6",
        create_total_per_s="0.01",
    ) as server:
        for _ in range(3):
            assert http(server, "POST", "/api/rooms", {"name": "Ana"})[0] == 201
        status, headers, body = http(server, "POST", "/api/rooms", {"name": "Ana"})
        assert status == 429 and body["code"] == "rate_limited"
        assert int(headers["retry-after"]) == body["retry_after"] >= 1
        assert "room creations" in body["error"]
        # Another IP still may (per IP), until the total is spent (2 more, 1 left for the probe).
        assert http(server, "POST", "/api/rooms", {"name": "Bo"}, src="127.0.0.2")[0] == 201
        assert http(server, "POST", "/api/rooms", {"name": "Bo"}, src="127.0.0.3")[0] == 201

        async def run() -> None:
            async with Probe(server) as probe:

                async def abuse() -> list[int]:
                    return [
                        (
                            await asyncio.to_thread(
                                http,
                                server,
                                "POST",
                                "/api/rooms",
                                {"name": "X"},
                                src=f"127.0.1.{i % 200}",
                            )
                        )[0]
                        for i in range(300)
                    ]

                rtts, statuses = await probe.during(abuse())
                assert set(statuses) == {429}  # the total is spent: every address is refused
                check_sane("another room during 300 refused creations", rtts)

        asyncio.run(run())
        assert http(server, "GET", "/healthz", src="127.0.0.4")[0] == 200


def test_open_rooms_cap_refuses_creation_with_503(tmp_path: Path) -> None:
    with serve(tmp_path, rooms_max="3") as server:
        for i in range(3):
            src = f"127.0.0.{i + 2}"
            assert http(server, "POST", "/api/rooms", {"name": "A"}, src=src)[0] == 201
        status, headers, body = http(server, "POST", "/api/rooms", {"name": "A"}, src="127.0.0.8")
        assert status == 503 and body["code"] == "server_full" and "3 rooms" in body["error"]
        assert headers["retry-after"] == "60"


def test_members_cap_and_join_rate(tmp_path: Path) -> None:
    with serve(tmp_path, room_members_max="4", join_ip_burst="5", join_ip_per_min="1") as server:
        code = http(server, "POST", "/api/rooms", {"name": "Host"})[2]["code"]
        for i in range(3):  # 4 members with the host
            assert http(server, "POST", f"/api/rooms/{code}/join", {"name": f"P{i}"})[0] == 201
        status, _, body = http(server, "POST", f"/api/rooms/{code}/join", {"name": "P9"})
        assert status == 409 and body["code"] == "room_full" and "4 members" in body["error"]
        assert http(server, "POST", f"/api/rooms/{code}/join", {"name": "P9"})[0] == 409
        status, headers, body = http(server, "POST", f"/api/rooms/{code}/join", {"name": "P9"})
        assert status == 429 and body["code"] == "rate_limited" and "retry-after" in headers


def test_lookups_per_ip_and_the_miss_budget(tmp_path: Path) -> None:
    with serve(tmp_path, lookup_ip_burst="12", lookup_ip_per_min="1", miss_ip_burst="3") as server:
        code = http(server, "POST", "/api/rooms", {"name": "Host"}, src="127.0.0.5")[2]["code"]
        paths = [f"/api/rooms/{code}", f"/r/{code}", f"/api/rooms/{code}/qr.svg"]
        for i in range(12):  # every kind of lookup counts
            assert http(server, "GET", paths[i % 3])[0] == 200
        status, headers, body = http(server, "GET", paths[0])
        assert status == 429 and body["code"] == "rate_limited" and "lookups" in body["error"]
        assert "retry-after" in headers
        # A guesser: three misses, then even a real code is refused (no oracle).
        for _ in range(3):
            assert http(server, "GET", "/api/rooms/QQQQQQQQQQQQ", src="127.0.0.6")[0] == 404
        status, _, body = http(server, "GET", paths[0], src="127.0.0.6")
        assert status == 429 and "unknown room codes" in body["error"]
        assert http(server, "GET", paths[1], src="127.0.0.7")[0] == 200  # others are served


def test_websocket_opens_over_the_limit_are_refused_at_the_handshake(tmp_path: Path) -> None:
    with serve(tmp_path, ws_ip_burst="3", ws_ip_per_min="1") as server:
        code = http(server, "POST", "/api/rooms", {"name": "Host"})[2]["code"]

        async def run() -> None:
            opened = [await ws_connect(server, code) for _ in range(3)]
            with pytest.raises(InvalidStatus) as refused:
                await ws_connect(server, code)
            response = refused.value.response
            assert response.status_code == 429
            assert int(response.headers["Retry-After"]) >= 1
            assert json.loads(response.body)["code"] == "rate_limited"
            other = await ws_connect(server, code, src="127.0.0.2")  # another IP may
            for ws in [*opened, other]:
                await ws.close()

        asyncio.run(run())


def test_a_socket_that_never_says_hello_is_closed_with_4410(tmp_path: Path) -> None:
    with serve(tmp_path, hello_timeout_s="0.5") as server:
        code = http(server, "POST", "/api/rooms", {"name": "Host"})[2]["code"]

        async def run() -> None:
            silent = await ws_connect(server, code)
            greeted = await ws_connect(server, code, src="127.0.0.2")
            await greeted.send(json.dumps({"type": "hello"}))
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await asyncio.wait_for(silent.recv(), 5)
            assert silent.close_code == 4410
            await asyncio.sleep(0.6)  # past the deadline: the greeted socket is still served
            await greeted.send(json.dumps({"type": "ping", "n": 1}))
            while json.loads(await asyncio.wait_for(greeted.recv(), 5))["type"] != "pong":
                pass
            await greeted.close()

        asyncio.run(run())


def test_request_bodies_are_capped_and_every_response_has_security_headers(tmp_path: Path) -> None:
    with serve(tmp_path, http_body_max_bytes="2048") as server:
        name = {"name": "A" * 1500}
        assert http(server, "POST", "/api/rooms", name)[0] in (201, 422)  # under: served
        status, _, body = http(server, "POST", "/api/rooms", {"name": "A" * 3000})
        assert status == 413 and body["code"] == "too_large"
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in [b'{"name":"' + b"A" * 1500] * 3)
        status, _, body = http(
            server,
            "POST",
            "/api/rooms",
            raw=chunked + b"0\r\n\r\n",
            headers={"transfer-encoding": "chunked"},
        )
        assert status == 413 and body["code"] == "too_large"
        for path in ("/", "/r/QQQQQQQQQQQQ", "/static/app.js", "/healthz", "/nope"):
            _, headers, _ = http(server, "GET", path, src="127.0.0.3")
            assert "frame-ancestors 'none'" in headers["content-security-policy"], path
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["x-frame-options"] == "DENY"
            assert headers["referrer-policy"] == "no-referrer"
            assert headers["cross-origin-opener-policy"] == "same-origin"


def test_a_room_with_an_old_five_letter_code_loads_and_is_joinable(tmp_path: Path) -> None:
    with serve(tmp_path) as server:
        made = http(server, "POST", "/api/rooms", {"name": "Host"})[2]
    assert len(made["code"]) == 12
    db = sqlite3.connect(tmp_path / "crisp.sqlite3")
    with db:  # the room as an older server stored it
        state = json.loads(db.execute("SELECT state FROM rooms").fetchone()[0])
        state["code"] = "JAKNK"
        db.execute("UPDATE rooms SET code = 'JAKNK', state = ?", (json.dumps(state),))
        db.execute("UPDATE log SET code = 'JAKNK'")
    db.close()
    with serve(tmp_path) as server:
        # Another spelling is redirected to the canonical path.
        status, got, _ = http(server, "GET", "/api/rooms/jaknk")
        assert status == 308 and got["location"] == "/api/rooms/JAKNK"
        status, _, summary_ = http(server, "GET", got["location"])
        assert status == 200 and summary_["code"] == "JAKNK"
        assert http(server, "GET", "/r/JAKNK")[0] == 200
        status, got, _ = http(server, "POST", "/api/rooms/jak%20nk/join", {"name": "Bo"})
        assert status == 308 and got["location"] == "/api/rooms/JAKNK/join"
        joined = http(server, "POST", got["location"], {"name": "Bo"})
        assert joined[0] == 201 and joined[2]["code"] == "JAKNK"

        async def run() -> None:
            ws = await ws_connect(server, "JAKNK")
            await ws.send(json.dumps({"type": "hello", "token": joined[2]["token"]}))
            welcome = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert welcome["type"] == "welcome" and welcome["you"]["member"] == joined[2]["member"]
            await ws.close()

        asyncio.run(run())


def test_another_room_plays_while_every_limit_is_hammered(tmp_path: Path) -> None:
    """For 3 s, 40 addresses guess codes, fill the probe's room with joins, open WebSockets and
    create rooms, with the default limits: every answer is a typed one (never a 500), the room's
    member cap holds, and the probe's own room keeps answering its pings (p50/p99 printed)."""
    with serve(tmp_path) as server:

        async def run() -> None:
            async with Probe(server) as probe:
                code = probe.code
                statuses: dict[str, list[int]] = {"guess": [], "join": [], "create": [], "ws": []}

                async def one(i: int) -> None:
                    src = f"127.0.3.{i % 40 + 1}"
                    kind = ("guess", "join", "create", "ws")[i % 4]
                    if kind == "ws":
                        try:
                            ws = await ws_connect(server, code, src)
                            statuses["ws"].append(101)
                            await ws.close()
                        except InvalidStatus as err:
                            statuses["ws"].append(err.response.status_code)
                        return
                    method, path, body = {
                        "guess": ("GET", f"/api/rooms/{'QRWX' * 2}{i % 9999:04d}", None),
                        "join": ("POST", f"/api/rooms/{code}/join", {"name": f"J{i}"}),
                        "create": ("POST", "/api/rooms", {"name": f"C{i}"}),
                    }[kind]
                    got = await asyncio.to_thread(http, server, method, path, body, src=src)
                    statuses[kind].append(got[0])

                async def abuse() -> None:
                    end = asyncio.get_running_loop().time() + 3.0
                    i = 0
                    while asyncio.get_running_loop().time() < end:
                        await asyncio.gather(*(one(i + k) for k in range(8)))
                        i += 8

                rtts, _ = await probe.during(abuse())
                counts = {k: {s: v.count(s) for s in sorted(set(v))} for k, v in statuses.items()}
                print(f"\nanswers during the abuse: {counts}")
                check_sane("the probe's room during the abuse", rtts)
                assert set(statuses["guess"]) <= {404, 429} and 429 in statuses["guess"]
                assert set(statuses["join"]) <= {201, 409, 429} and 409 in statuses["join"]
                assert statuses["join"].count(201) == 23  # 24 members with the probe's host
                assert set(statuses["create"]) <= {201, 429, 503}
                assert set(statuses["ws"]) <= {101, 429}

        asyncio.run(run())


def test_log_lines_of_one_kind_are_bounded(tmp_path: Path) -> None:
    """200 malformed HTTP requests, each a warning of uvicorn's: at most
    CRISP_LOG_TEMPLATE_PER_MIN of them reach the log (the rest are counted)."""
    import socket

    with serve(tmp_path, log_template_per_min="5") as server:
        for _ in range(200):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
                s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
                assert s.recv(100).startswith(b"HTTP/1.1 400")
        assert http(server, "GET", "/healthz")[0] == 200
        lines = [line for line in server.output if "Invalid HTTP request" in line]
        assert len(lines) == 5, lines
