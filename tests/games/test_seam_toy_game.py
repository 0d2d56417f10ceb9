"""The game seam carries a game the server has never heard of: High Card
(``tests/support/toygame/``: engine, bots and adapter, as a third game is laid out),
registered in this test only, played whole through the real app and WebSocket code (Starlette's
test client: HTTP routes, the WebSocket loop, the hub, the room pipeline, SQLite), with a small
leak check: no seat and no watcher sees a card of the other hand before its trick shows it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import toygame
from inthread import serving
from websockets.sync.client import connect

from crisp.server.app import create_app
from crisp.server.registry import Registry
from crisp.server.seam import Seeds, Status
from crisp.server.settings import Settings

Msg = dict[str, Any]


def post(base: str, path: str, body: Msg) -> tuple[int, Msg]:
    req = urllib.request.Request(
        f"http://{base}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def receive_until(ws: Any, pred: Any, seen: list[Msg], limit: int = 200) -> Msg:
    for _ in range(limit):
        msg = json.loads(ws.recv(timeout=10))
        seen.append(msg)
        if pred(msg):
            return msg
    raise AssertionError(f"never came; last: {seen[-3:]}")


def cards_seen(stream: list[Msg], own_hand: list[int]) -> list[Msg]:
    """The messages of a stream that name a card it may not see: a ``hand`` other than its own,
    or a card anywhere but in a ``trick`` (which shows both cards once both are played) and in
    the seat's own ``state`` view."""
    leaks = []
    for msg in stream:
        if msg["type"] == "hand":
            if msg["cards"] != own_hand:
                leaks.append(msg)
        elif msg["type"] == "state" and msg["view"] is not None:
            if msg["view"].get("hand", own_hand) != [
                c for c in own_hand if c in msg["view"].get("hand", own_hand)
            ]:
                leaks.append(msg)
        elif msg["type"] != "trick" and {"cards", "play", "hand"} & set(msg):
            leaks.append(msg)
    return leaks


def test_high_card_plays_through_the_real_server(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, games=["crisp.games.crisp:SPEC"])
    games = Registry([toygame.SPEC])
    app = create_app(settings, games=games)
    with serving(app) as port:
        base = f"127.0.0.1:{port}"
        status, made = post(base, "/api/rooms", {"name": "Ana", "game": "highcard"})
        assert status == 201, made
        code = made["code"]
        _, ben = post(base, f"/api/rooms/{code}/join", {"name": "Ben"})
        status, unknown = post(base, "/api/rooms", {"name": "Ana", "game": "chess"})
        assert status == 404 and "chess" in unknown["error"]
        tokens = [made["token"], ben["token"]]
        streams: list[list[Msg]] = [[], [], []]
        url = f"ws://{base}/ws/{code}"
        with connect(url) as a, connect(url) as b, connect(url) as w:
            socks = [a, b, w]
            for ws, token, seen in zip(socks, [*tokens, None], streams, strict=True):
                ws.send(json.dumps({"type": "hello", "token": token}))
                room = receive_until(ws, lambda m: m["type"] == "room", seen)
                assert room["game_type"] == "highcard"
            a.send(json.dumps({"type": "start"}))
            hands = [
                receive_until(ws, lambda m: m["type"] == "hand", s)["cards"]
                for ws, s in zip(socks[:2], streams[:2], strict=True)
            ]
            a.send(json.dumps({"type": "act", "v": 100, "play": 99}))
            err = receive_until(a, lambda m: m["type"] == "error", streams[0])
            assert err["code"] == "bad_version"
            b.send(json.dumps({"type": "act", "v": 0, "play": "high"}))
            err = receive_until(b, lambda m: m["type"] == "error", streams[1])
            assert err["code"] == "bad_message" and err["message"].startswith("play:")
            for trick in range(3):
                for seat, ws in enumerate(socks[:2]):
                    v = max(m.get("v", 0) for m in streams[seat])
                    ws.send(json.dumps({"type": "act", "v": v, "play": hands[seat][trick]}))
                    receive_until(ws, lambda m: m["type"] in ("played", "error"), streams[seat])
                    assert streams[seat][-1]["type"] == "played", streams[seat][-1]
                for ws, seen in zip(socks, streams, strict=True):
                    receive_until(ws, lambda m: m["type"] == "trick", seen)
            over = receive_until(
                w, lambda m: m["type"] == "room" and m["phase"] == "over", streams[2]
            )
            assert over["record"] is True
        with urllib.request.urlopen(f"http://{base}/api/rooms/{code}/record") as resp:
            record = json.loads(resp.read())
        assert record["format"] == "highcard/1" and len(record["moves"]) == 6
        tricks = [m for m in streams[2] if m["type"] == "trick"]
        assert len(tricks) == 3 and sum(tricks[-1]["points"]) == 3
    for seat, hand in enumerate(hands):
        assert cards_seen(streams[seat], hand) == [], f"seat {seat} saw the other hand"
    assert cards_seen(streams[2], []) == [], "the watcher saw a hand"
    assert not any(m["type"] == "hand" for m in streams[2])


def test_high_card_bots_play_it_out_and_its_log_rebuilds_the_game() -> None:
    """The toy game's bots (``toygame/bots.py``) at the seam's seats play a whole game; its log
    (head + entries, ``crisp.games.common.logged``) rebuilds the same game."""
    spec = toygame.SPEC
    match, head = spec.new_match(["Ana", "Ben"], {}, 1, Seeds(bytes(range(32)), ("", "")))
    bots = [spec.make_bot("easy", s, ["Ana", "Ben"], {}, None, s) for s in (0, 1)]
    change = match.start_round()
    log = [head, *change.entries]
    while match.status() == Status.PLAYING:
        for out in change.outs:
            for seat, bot in enumerate(bots):
                if out.for_seat(seat):
                    bot.observe(out.msg)
        seat, decision = next((s, d) for s, b in enumerate(bots) if (d := b.decide(0.0)))
        assert decision.move in match.legal_moves(seat) and decision.think is False
        change = match.apply(seat, decision.move, decision.at, 0)
        log += change.entries
    rebuilt = spec.from_log(log)
    assert rebuilt.status() == Status.OVER and rebuilt.record() == match.record()
    assert len(match.record()["moves"]) == 6
