"""A seated player's reconnections are not charged to the anonymous budgets.
A join (or a room creation) sets the seat token as an HttpOnly, SameSite=Strict cookie
``crisp_seat_CODE``; a browser sends it with the WebSocket handshake of its reconnections, and a
valid one passes the rate limits uncharged (docs/limits.md). Against a real ``crisp serve``, with
the totals made small so that 200 loopback addresses spend them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from limitprobe import NO_EXEMPT, http
from serverproc import ServerProcess
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

SEATED = "127.0.0.30"
SMALL_TOTALS = {
    "CRISP_LOOKUP_TOTAL_BURST": "40",
    "CRISP_LOOKUP_TOTAL_PER_S": "0.1",
    "CRISP_WS_TOTAL_BURST": "40",
    "CRISP_WS_TOTAL_PER_S": "0.1",
}


async def reconnect(server: ServerProcess, code: str, token: str, cookie: str | None) -> bool:
    """One reconnection of the seated player: True when its hello is welcomed."""
    headers = {"Cookie": cookie} if cookie else {}
    try:
        async with connect(
            f"{server.ws_base}/ws/{code}",
            additional_headers=headers,
            local_addr=(SEATED, 0),
            open_timeout=10,
            compression=None,
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            return bool(msg["type"] == "welcome")
    except InvalidStatus as err:
        assert err.response.status_code == 429
        return False


def test_a_seated_players_reconnections_pass_when_the_totals_are_spent(
    tmp_path: Path,
) -> None:
    with ServerProcess(tmp_path, env={**NO_EXEMPT, **SMALL_TOTALS}) as server:
        status, headers, made = http(server, "POST", "/api/rooms", {"name": "Ana"}, src=SEATED)
        assert status == 201
        code, token = made["code"], made["token"]
        cookie = headers["set-cookie"].split(";")[0]
        assert cookie == f"crisp_seat_{code}={token}"
        flags = headers["set-cookie"].lower()
        assert "httponly" in flags and "samesite=strict" in flags and "path=/" in flags

        spent = [
            http(server, "GET", f"/api/rooms/{'QRWX' * 3}", src=f"127.0.4.{i + 1}")[0]
            for i in range(200)
        ]
        assert spent.count(429) >= 150  # the lookup total is spent by 200 addresses

        async def run() -> tuple[int, int, int]:
            with_cookie = [await reconnect(server, code, token, cookie) for _ in range(12)]
            without = [await reconnect(server, code, token, None) for _ in range(12)]
            forged = [
                await reconnect(server, code, token, f"crisp_seat_{code}=not-a-token")
                for _ in range(4)
            ]
            return sum(with_cookie), sum(without), sum(forged)

        passed, anonymous, forged = asyncio.run(run())
        print(
            f"\nreconnections of a seated player with the totals spent: with its cookie "
            f"{passed} of 12 welcomed; without it {anonymous} of 12; a forged cookie {forged} of 4"
        )
        assert passed == 12
        assert anonymous == 0 and forged == 0  # the anonymous budgets still bound everyone else
