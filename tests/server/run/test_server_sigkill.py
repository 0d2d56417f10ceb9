"""Crash safety with a real SIGKILL on a real ``crisp serve`` process (what only a process shows:
the signal, the restart of the process on the same data directory and port, the SQLite file as
the kernel left it): an action acknowledged (its message received) right before the kill is
there after the restart, and in the finished game's record. The other crash cases (several rooms,
the downtime, versions) run in-process in ``test_server_crash.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
from pathlib import Path
from typing import Any

from seatplayer import Seat
from serverproc import ServerProcess
from wsclient import Client, Player

from crisp.engine.crisp.record import replay
from crisp.engine.crisp.rng import round_deck

SPEED = 20.0  # game seconds per real second
ENV = {"CRISP_BETWEEN_ROUNDS_S": "600"}
GAME_OVER_S = 150.0  # real seconds a whole game may take on a loaded machine
Message = dict[str, Any]


def record_of(srv: ServerProcess, code: str) -> dict[str, Any]:
    status, record = srv.request("GET", f"/api/rooms/{code}/record")
    assert status == 200, (status, record)
    assert isinstance(record, dict)
    return record


async def stop_all(clients: list[Client]) -> None:
    for c in clients:
        if isinstance(c, Player):
            await c.stop_playing()
        with contextlib.suppress(Exception):
            await c.close()


def plain_first_draw_seed(players: int) -> int:
    """A seed whose first round's first draw (after 3 cards each, R-DEAL) is a plain card,
    so a test can draw and discard it."""
    return next(s for s in range(1, 500) if round_deck(s, 1)[3 * players][0] not in "JQK")


def two_seat_room(tmp_path: Path, speed: float = SPEED) -> tuple[ServerProcess, str, list[str]]:
    """A server whose games deal ``plain_first_draw_seed(2)``, and a room of Ana (the host) and
    Ben: the server, the room's code and the two seat tokens."""
    env = {**ENV, "CRISP_FIXED_SEED": str(plain_first_draw_seed(2))}
    srv = ServerProcess(tmp_path, clock_speed=speed, env=env).start()
    try:
        host = srv.create_room("Ana")
        return srv, host["code"], [host["token"], srv.join(host["code"], "Ben")["token"]]
    except BaseException:
        srv.kill()
        raise


async def finish(seats: list[Seat], watch: Client) -> Message:
    """Let the seats play from their current state until the game is over."""
    for s in seats:
        s.play_from(0)
    over = await watch.wait_type("game_over", timeout=GAME_OVER_S)
    await stop_all(list(seats))
    return over


async def play_out(
    srv: ServerProcess, code: str, tokens: list[str], clients: list[Client]
) -> dict[str, Any]:
    """New seats (resuming the game where it stands) and a spectator finish the game; the
    record must replay to the result the spectator was sent. Returns the record; the clients
    go into ``clients`` for the caller's clean-up."""
    seats = [Seat(srv, code, t, f"s{i}", seed=i, resume=True) for i, t in enumerate(tokens)]
    watch = Client(srv, code, None, "watch")
    for c in [*seats, watch]:
        await c.connect()
    clients += [*seats, watch]
    over = await finish(seats, watch)
    record = record_of(srv, code)
    assert_result(record, over)
    return record


def assert_result(record: dict[str, Any], over: Message) -> None:
    result = replay(copy.deepcopy(record)).result
    assert result["over"], "the downloaded record does not replay to a finished game"
    assert (over["totals"], over["winners"]) == (result["totals"], result["winners"])


# -- an acknowledged action survives a SIGKILL -------------------------------------------------


def test_acknowledged_action_survives_a_kill(tmp_path: Path) -> None:
    """Crash safety: a ``ready``, a ``draw`` and a ``discard`` each acknowledged (its message
    received) and the server killed at once: after each restart the state shows the action done
    (R-LOOK-PHASE ready, R-SEE-DRAWN the drawn card held, R-SEE-PUBLIC the card on the pile),
    and the finished game's record holds all three, at the times their messages said."""
    asyncio.run(_acknowledged(tmp_path))


async def _acknowledged(tmp_path: Path) -> None:
    srv, code, tokens = two_seat_room(tmp_path)
    clients: list[Client] = []
    try:

        async def connect() -> list[Client]:
            cs = [Client(srv, code, t, f"c{i}") for i, t in enumerate(tokens)]
            for c in cs:
                await c.connect()
            clients.extend(cs)
            return cs

        async def restart() -> list[Client]:
            nonlocal srv, clients
            port = srv.port
            srv.kill()
            await stop_all(clients)
            clients = []
            srv = ServerProcess(tmp_path, clock_speed=SPEED, env=srv.env, port=port).start()
            return await connect()

        def view_of(c: Client) -> dict[str, Any]:
            state = next(m for m in reversed(c.received) if m["type"] == "state")
            rnd: dict[str, Any] = state["view"]["round"]
            return rnd

        cs = await connect()
        await cs[0].send({"type": "options", "limit": 50, "timer": None, "take_discard": False})
        await cs[0].wait_type("room", options={"limit": 50, "timer": None, "take_discard": False})
        await cs[0].send({"type": "start"})
        deal = await cs[0].wait_type("round", round=1)
        first = deal["first"]

        await cs[0].act("ready")
        ready = await cs[0].wait_type("ready", seat=0)
        cs = await restart()
        assert view_of(cs[0])["ready"][0] is True, "an acknowledged ready was lost"

        await cs[1].act("ready")  # the look phase ends: the first draw is due
        await cs[first].wait_type("turn", seat=first)
        await cs[first].act("draw")
        drawn = await cs[first].wait(lambda m: m["type"] == "draw" and "card" in m)
        cs = await restart()
        rnd = view_of(cs[first])
        assert rnd["turn"]["holding"] and rnd["you"]["card"] == drawn["card"], (
            "an acknowledged draw was lost"
        )

        await cs[first].act("discard")
        discarded = await cs[first].wait_type("discard", seat=first)
        cs = await restart()
        rnd = view_of(cs[first])
        assert rnd["top"] == drawn["card"] and rnd["turn"]["seat"] != first, (
            "an acknowledged discard was lost"
        )
        await stop_all(clients)
        clients = []

        record = await play_out(srv, code, tokens, clients)
        acts = record["rounds"][0]["actions"]
        mine = [
            {"t": ready["t"], "seat": 0, "do": "ready"},
            {"t": drawn["t"], "seat": first, "do": "draw"},
            {"t": discarded["t"], "seat": first, "do": "discard"},
        ]
        assert [a for a in acts if a in mine] == mine
    finally:
        await stop_all(clients)
        srv.kill()
