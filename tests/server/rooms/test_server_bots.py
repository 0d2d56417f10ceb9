"""Bots in rooms, through the real app in-process (``simserver``: the WebSocket endpoint, the hub
and SQLite on a virtual clock): a bot added in the lobby plays a whole game, and a bot stands in
for an absent player, who takes the seat back on return."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simserver import Client, Player, SimServer, run, sleep

SPEED = 20.0


def _member(room: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(m for m in room["members"] if m["name"] == name)
    return found


def test_bots_added_in_the_lobby_play_a_whole_game(tmp_path: Path) -> None:
    """The host adds two bots (marked as bots, with their level, no token); the game is played to
    its end with the host, and no bot action is ever refused (the server logs refusals)."""

    async def main() -> None:
        with SimServer(tmp_path, clock_speed=SPEED) as srv:
            host = await srv.create_room("Ana")
            p = Player(srv, host["code"], host["token"], "host", seed=3)
            await p.connect()
            await p.send({"type": "add_bot", "level": "hard"})
            await p.send({"type": "add_bot", "level": "easy"})
            room = await p.wait(lambda m: m["type"] == "room" and len(m["members"]) == 3)
            bots = [m for m in room["members"] if m["bot"]]
            assert [m["bot"] for m in bots] == ["hard", "easy"]
            assert all(m["name"].endswith("(bot)") and m["seat"] is not None for m in bots)
            await p.send({"type": "start"})
            p.start_playing()
            over = await p.wait_type("game_over", timeout=240)
            await p.stop_playing()
            assert max(over["totals"]) >= 50 or over["winners"]
            status, record = await srv.request("GET", f"/api/rooms/{host['code']}/record")
            assert status == 200
            seats = {a["seat"] for r in record["rounds"] for a in r["actions"]}
            assert {1, 2} <= seats  # both bots acted
            await p.close()
        log = "".join(srv.output)
        assert "game 1 started" in log  # the server's log is read
        assert "bot was refused" not in log and "Traceback" not in log

    run(main)


def test_a_bot_stands_in_for_an_absent_player_who_takes_the_seat_back(tmp_path: Path) -> None:
    """Mid-game, the host hands a disconnected player's seat to a bot: the bot plays that seat
    (its actions appear in the game); when the player reconnects, the seat is theirs again and the
    bot stops. A stand-in for a connected seat, or by a non-host, is refused."""

    async def main() -> None:
        with SimServer(tmp_path, clock_speed=SPEED) as srv:
            host = await srv.create_room("Ana")
            code = host["code"]
            ben = await srv.join(code, "Ben")
            cleo = await srv.join(code, "Cleo")
            p = Player(srv, code, host["token"], "host", seed=5, p_call=0.0)
            b = Client(srv, code, ben["token"], "ben")
            c = Player(srv, code, cleo["token"], "cleo", seed=6, p_call=0.0)
            for client in (p, b, c):
                await client.connect()
            await p.send({"type": "start"})
            p.start_playing()
            c.start_playing()
            await b.wait_type("round")
            seat = b.seat
            assert seat is not None
            mark = len(b.received)
            await b.send({"type": "bot", "seat": seat, "level": "normal"})
            refused = await b.wait_type("error", since=mark)
            assert refused["code"] == "forbidden"
            mark = len(p.received)
            await p.send({"type": "bot", "seat": seat, "level": "normal"})
            refused = await p.wait_type("error", since=mark)
            assert refused["code"] == "bad_phase"  # Ben is connected
            await b.close()
            await p.wait(lambda m: m["type"] == "room" and not _member(m, "Ben")["connected"])
            mark = len(p.received)
            await p.send({"type": "bot", "seat": seat, "level": "normal"})
            room = await p.wait(
                lambda m: m["type"] == "room" and _member(m, "Ben")["stand_in"], since=mark
            )
            assert _member(room, "Ben")["stand_in"] == "normal"
            # The bot plays Ben's seat: it draws and ends a turn; Ben comes back right after it
            # (the two others play before his next turn), and the seat is his again.
            mark = len(p.received)
            await p.wait(
                lambda m: m["type"] == "draw" and m["seat"] == seat, since=mark, timeout=60
            )
            await p.wait(
                lambda m: m["type"] == "turn_end" and m["seat"] == seat, since=mark, timeout=60
            )
            back = Client(srv, code, ben["token"], "ben2")
            await back.connect()
            room = await p.wait(
                lambda m: (
                    m["type"] == "room"
                    and _member(m, "Ben")["connected"]
                    and not _member(m, "Ben")["stand_in"]
                )
            )
            assert back.seat == seat
            mark = len(back.received)
            turn = await back.wait(
                lambda m: m["type"] == "turn" and m["seat"] == seat, since=mark, timeout=60
            )
            # Nobody plays for him now: his draw waits for him (no per-draw time in this game);
            # a bot would have drawn within 2 game seconds.
            await sleep(10 / SPEED)
            assert not any(
                m["type"] == "draw" and m["seat"] == seat
                for m in back.received[back.received.index(turn) :]
            )
            await back.act("draw")
            await back.wait(
                lambda m: m["type"] == "draw" and m["seat"] == seat and "card" in m, since=mark
            )
            for client in (p, c):
                await client.stop_playing()
                await client.close()
            await back.close()

    run(main)
