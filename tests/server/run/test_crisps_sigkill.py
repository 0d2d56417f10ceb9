"""Crisps! crash safety with a real SIGKILL on a real ``crisp serve`` (after
``test_server_sigkill.py``): a play acknowledged (its message received) right before the kill is
there after the restart on the same data directory and port, the game resumes from it mid-trick
and plays out, and the finished game's record holds the play and replays to the same result."""

from __future__ import annotations

import copy
import json
import random
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from serverproc import ServerProcess
from websockets.sync.client import ClientConnection, connect

from crisp.engine.crisps.record import replay

Msg = dict[str, Any]
ENV = {"CRISP_RATE_PER_S": "1000", "CRISP_RATE_BURST": "1000"}


class Phone:
    """One seat's WebSocket, keeping what it got."""

    def __init__(self, srv: ServerProcess, code: str, token: str, stack: ExitStack) -> None:
        self.ws: ClientConnection = stack.enter_context(connect(f"{srv.ws_base}/ws/{code}"))
        self.got: list[Msg] = []
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.until(lambda m: m["type"] == "state")

    def until(self, pred: Any, limit: int = 20_000) -> Msg:
        for _ in range(limit):
            msg = json.loads(self.ws.recv(timeout=15))
            self.got.append(msg)
            if pred(msg):
                return msg
        raise AssertionError(f"never came; last {self.got[-3:]}")

    def seen_or_next(self, pred: Any) -> Msg:
        return next((m for m in self.got if pred(m)), None) or self.until(pred)

    def due(self) -> tuple[int, int]:
        """The version and the seat of the decision due, by the latest turn or snapshot."""
        m = next(m for m in reversed(self.got) if m["type"] in ("turn", "state"))
        return m["v"], m["view"]["due"]["seat"] if m["type"] == "state" else m["seat"]

    def act(self, v: int, move: Msg) -> None:
        self.ws.send(json.dumps({"type": "act", "v": v, **move}))


def choose(c: Msg, rng: random.Random) -> Msg:
    moves: list[Msg] = [{"do": "play", "cards": p["cards"]} for p in c["legal"]]
    moves += [{"do": "pass"}] if c["can_pass"] else []
    return rng.choice(moves + [{"do": "draw", "take": t} for t in c["take"]])


def test_an_acknowledged_play_survives_a_kill_and_the_game_resumes(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, env=ENV).start()
    stack = ExitStack()
    try:
        status, host = srv.request("POST", "/api/rooms", {"name": "Ana", "game": "crisps"})
        assert status == 201, host
        code = host["code"]
        tokens = [host["token"], srv.join(code, "Ben")["token"]]
        phones = [Phone(srv, code, t, stack) for t in tokens]
        phones[0].ws.send(json.dumps({"type": "start"}))
        turn = phones[0].until(lambda m: m["type"] == "turn")
        lead = phones[turn["seat"]]
        mine = (
            lead.until(lambda m: m["type"] == "turn" and "legal" in m)
            if lead is not (phones[0])
            else turn
        )
        cards = mine["legal"][-1]["cards"]
        lead.act(turn["v"], {"do": "play", "cards": cards})
        played = lead.until(lambda m: m["type"] == "play")  # acknowledged
        srv.kill()
        port = srv.port
        srv = ServerProcess(tmp_path, env=ENV, port=port).start()
        phones = [Phone(srv, code, t, stack) for t in tokens]
        view = phones[0].got[-1]["view"]
        assert view["trick"] == [{k: played[k] for k in ("seat", "cards", "kind", "rank", "size")}]
        assert view["due"]["seat"] == 1 - played["seat"], "an acknowledged play was lost"
        rng = random.Random(3)
        over = None
        for _ in range(3000):
            v, seat = phones[0].due()
            phone = phones[seat]
            choices = phone.seen_or_next(
                lambda m, v=v: (
                    m.get("v") == v
                    and m["type"] in ("turn", "state")
                    and (m["type"] == "state" or "legal" in m)
                )
            )
            phone.act(v, choose(choices["view"] if choices["type"] == "state" else choices, rng))
            nxt = phones[0].until(lambda m: m["type"] in ("turn", "game_over", "error"))
            assert nxt["type"] != "error", nxt
            if nxt["type"] == "game_over":
                over = nxt
                break
        assert over is not None, "the game did not end"
        stack.close()
        status, record = srv.request("GET", f"/api/rooms/{code}/record")
        assert status == 200, record
        assert record["actions"][0] == {
            "seat": played["seat"],
            "do": "play",
            "cards": cards,
            "t": record["actions"][0]["t"],
        }
        result = replay(copy.deepcopy(record)).result
        assert result["over"] and result["scores"] == over["points"]
    finally:
        stack.close()
        srv.kill()
