"""The leak audit through the wire: docs/rules.md §7 (R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC,
R-SEE-REVEAL, R-NO-TRACE) on what each connection of the server received, checked by the
independent ``leakcheck`` against the game's record (downloaded after ``game_over``).

Most games run in-process (``simserver``: the real app, one ``socket.endpoint`` per connection,
exactly the frames the room sends, on a virtual clock); two run on a real ``crisp serve`` process
with real WebSockets (``test_real_socket_games_leak_nothing``: the frames as they cross the wire,
and the access log of uvicorn among the server's output).

Random games (2 to 8 players, every host option) are played by ``Seat`` players that call,
take, let draws time out, try wrong actions, send ``sync`` at random moments, and (some of them)
disconnect and reconnect mid-game. Beside them: a watcher with no token, a member who joined
after the start (a spectator), and for each seat that reconnects a second socket of the same
seat that stays connected the whole game. Then:

- a socket connected the whole game received exactly the engine's own stream of the record for
  its seat (``crisp.engine.crisp.record.stream``, with ``v`` removed), and ``check_stream`` finds no
  leak in it; a socket connected part of the game received, from each ``hello`` on, exactly the
  rest of that stream after the version of its ``state``;
- every ``state`` view (at connect, on ``sync``, after a reconnect) passes ``check_view`` at the
  point it was sent: the view of version V reflects every change up to V, that is the engine
  messages of version V or before;
- ``error``, ``room``, ``welcome`` and ``pong`` messages name no card (an error may name only the
  card the seat holds at that moment), and no socket ever receives another member's token;
- the server's output (its log) names no token and no card.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import inspect
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import leakcheck as lc
import pytest
import seatplayer
import simserver
from serverproc import ServerProcess
from test_server_crash import assert_result, engine, stop_all
from wsclient import ENGINE_TYPES, Client

from crisp.engine.crisp.record import stream as record_stream

SPEED = 20.0
GAME_OVER_S = 180.0
NAMES = ["Ana", "Ben", "Chloé", "Dev", "Eli", "Fay", "Gus", "Hal"]
LATE = "Lou"
OPTION_GRID = [(timer, take) for timer in (None, 30, 45, 60) for take in (False, True)]
SOAK_GAMES = int(os.environ.get("CRISP_SERVER_LEAK_GAMES", "24"))

Message = dict[str, Any]
Record = dict[str, Any]
Server = ServerProcess | simserver.SimServer


class SimSeat(simserver.Client, seatplayer.Seat):
    """``seatplayer.Seat`` in the process."""


class Transport:
    """Where a game is played: a real process and sockets, or the app in this process."""

    def __init__(self, real: bool) -> None:
        self.real = real
        self.server: Callable[..., Server] = ServerProcess if real else simserver.SimServer
        self.seat: type[Any] = seatplayer.Seat if real else SimSeat
        self.client: type[Any] = Client if real else simserver.Client

    def run(self, coro: Any) -> Any:
        return asyncio.run(coro) if self.real else simserver.run(coro)


async def aw(value: Any) -> Any:
    """A ``ServerProcess`` answers at once, a ``SimServer`` is awaited."""
    return await value if inspect.isawaitable(value) else value


async def record_of(srv: Server, code: str) -> dict[str, Any]:
    status, record = await aw(srv.request("GET", f"/api/rooms/{code}/record"))
    assert status == 200, (status, record)
    assert isinstance(record, dict)
    return record


def cases(count: int, salt: int) -> list[tuple[int, int, int | None, bool, float, int]]:
    """(players, limit, timer, take_discard, p_call, seed): the options in turn, 2 to 8
    players; one game in eight with few calls (long rounds: the pile turned over, R-RECYCLE)."""
    out = []
    for i in range(count):
        timer, take = OPTION_GRID[i % len(OPTION_GRID)]
        players = 2 + (3 * i + i // 7) % 7
        limit = 150 if i % 11 == 10 else 100 if i % 5 == 2 and players <= 4 else 50
        p_call = 0.03 if i % 8 == 5 else 0.3
        out.append((players, limit, timer, take, p_call, salt + 7919 * i))
    return out


# -- the games -------------------------------------------------------------------------------


class Game:
    """Everything one game's sockets received, and who they were."""

    def __init__(self) -> None:
        self.code = ""
        self.names: list[str] = []
        self.tokens: dict[str, str] = {}  # name -> token
        self.record: Record = {}
        self.whole: dict[int | None, Client] = {}  # seat -> a socket connected the whole game
        self.partial: list[Client] = []  # sockets connected part of the game
        self.everyone: list[Client] = []
        self.reconnects = 0


async def play(
    tmp_path: Path,
    players: int,
    limit: int,
    timer: int | None,
    take: bool,
    p_call: float,
    seed: int,
    via: Transport,
) -> tuple[Game, Server]:
    rng = random.Random(seed)
    srv = via.server(tmp_path, clock_speed=SPEED, env={"CRISP_LOG_LEVEL": "info"}).start()
    g = Game()
    flakers: list[asyncio.Task[None]] = []
    try:
        g.names = NAMES[:players]
        host = await aw(srv.create_room(g.names[0]))
        g.code = code = host["code"]
        g.tokens = {g.names[0]: host["token"]}
        for name in g.names[1:]:
            g.tokens[name] = (await aw(srv.join(code, name)))["token"]
        watcher = via.client(srv, code, None, "watcher")
        await watcher.connect()
        g.whole[None] = watcher
        flaky = set(rng.sample(range(players), k=min(players, rng.choice((1, 2)))))
        seats = []
        for s, name in enumerate(g.names):
            seat = via.seat(
                srv,
                code,
                g.tokens[name],
                name,
                seed=seed + s,
                p_call=p_call,
                p_timeout=0.04 if timer else 0.0,
                p_wrong=0.15,
                sync_every=rng.uniform(0.6, 2.0),
            )
            await seat.connect()
            seats.append(seat)
            if s in flaky:  # the same seat on a second socket, connected the whole game
                shadow = via.client(srv, code, g.tokens[name], f"{name}/shadow")
                await shadow.connect()
                g.whole[s] = shadow
                g.partial.append(seat)
            else:
                g.whole[s] = seat
        g.everyone = [watcher, *seats, *(g.whole[s] for s in flaky)]
        await seats[0].send(
            {"type": "options", "limit": limit, "timer": timer, "take_discard": take}
        )
        await seats[0].wait_type(
            "room", options={"limit": limit, "timer": timer, "take_discard": take}
        )
        await seats[0].send({"type": "start"})
        for seat in seats:
            seat.start_playing()
        for s in sorted(flaky):
            flakers.append(
                asyncio.get_running_loop().create_task(
                    reconnect_now_and_then(seats[s], random.Random(seed * 31 + s), g)
                )
            )

        # A member who joins after the start watches the rest; spectators cannot play.
        await watcher.wait_type("turn_end", timeout=60)
        late = via.client(srv, code, (await aw(srv.join(code, LATE)))["token"], LATE)
        g.tokens[LATE] = late.token or ""
        await late.connect()
        g.partial.append(late)
        g.everyone.append(late)
        for spectator in (late, watcher):
            await spectator.act("draw")
            await spectator.send({"type": "sync"})
            await spectator.send({"type": "ping", "n": 7})

        over = await watcher.wait_type("game_over", timeout=GAME_OVER_S)
        for task in flakers:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for seat in seats:
            await seat.stop_playing()
        for c in g.whole.values():
            await c.wait_type("game_over", timeout=30)
        g.record = await record_of(srv, code)
        assert_result(g.record, over)
    finally:
        for task in flakers:
            task.cancel()
        await stop_all(g.everyone)
        srv.stop()
    return g, srv


async def reconnect_now_and_then(seat: seatplayer.Seat, rng: random.Random, g: Game) -> None:
    """Close the seat's socket now and then, mid-game, and connect again with its token. The
    first time is at the first deal: the start look waits for this seat's Ready (R-LOOK-PHASE),
    so every game has a reconnect however fast its turns go (a sleep from the start, before,
    sometimes outlasted a quick game on a loaded machine)."""
    await seat.wait_type("round", timeout=30)
    first = True
    while True:
        await seat.stop_playing()
        await seat.close()
        await asyncio.sleep(rng.uniform(0.05, 0.3 if first else 0.6))
        first = False
        mark = len(seat.received)
        seat.resume = True
        await seat.connect()
        g.reconnects += 1
        seat.play_from(mark)
        await asyncio.sleep(rng.uniform(0.8, 3.0))


# -- the audit -------------------------------------------------------------------------------


def segments(received: list[Message]) -> list[list[Message]]:
    """The messages of each connection of a client: from each ``welcome`` on."""
    out: list[list[Message]] = []
    for m in received:
        if m.get("type") == "welcome":
            out.append([])
        if out:
            out[-1].append(m)
    return out


def canonical(g: Game) -> dict[int | None, list[Message]]:
    """Each seat's (and a spectator's) engine messages with their versions, from a socket that
    was connected the whole game, once they are checked to be exactly the record's stream."""
    players = len(g.record["players"])
    out: dict[int | None, list[Message]] = {}
    for seat in [None, *range(players)]:
        c = g.whole[seat]
        want = record_stream(copy.deepcopy(g.record), seat)
        got = engine(c.received)
        assert got == want, f"{c.label}: received stream differs from the record's stream"
        failures = lc.check_stream(g.record, got, seat)
        assert not failures, f"{c.label}:\n" + "\n".join(failures[:20])
        out[seat] = [m for m in c.received if m.get("type") in ENGINE_TYPES]
    return out


def seat_of(c: Client, msg: Message) -> int | None:
    return msg["you"]["seat"] if "you" in msg else c.seat


def audit(g: Game) -> dict[str, int]:
    """Every check of the module docstring; returns what was checked, by kind."""
    counts = {"views": 0, "errors": 0, "card_errors": 0, "segments": 0, "messages": 0}
    canon = canonical(g)
    names = frozenset(g.names) | {LATE}
    tokens = set(g.tokens.values())
    hashes = {hashlib.sha256(t.encode()).hexdigest() for t in tokens}

    # Partial sockets: from each hello on, exactly the rest of their seat's stream.
    for c in g.partial:
        for seg in segments(c.received):
            state = next(m for m in seg if m["type"] == "state")
            seat = c.seat  # its seat in the game (None in a lobby state)
            got = [m for m in seg if m.get("type") in ENGINE_TYPES]
            rest = [m for m in canon[seat] if m["v"] > state["v"]]
            assert got == rest[: len(got)], f"{c.label}: after reconnecting at v {state['v']}"
            counts["segments"] += 1

    # Every message: no card outside the engine's messages and states (an error may name the
    # held card only, checked below), no other member's token, no token hash.
    events: dict[int | None, list[tuple[int, str, Client, Message]]] = {}
    for c in g.everyone:
        mine = c.token
        for m in c.received:
            counts["messages"] += 1
            text = json.dumps(m, ensure_ascii=False)
            assert not [t for t in tokens if t != mine and t in text], f"{c.label}: a token in {m}"
            assert not [h for h in hashes if h in text], f"{c.label}: a token hash in {m}"
            typ = m.get("type")
            if typ in ENGINE_TYPES:
                continue
            if typ == "state":
                outside = {k: v for k, v in m.items() if k != "view"}
                assert not lc.card_codes(outside, skip=names), f"{c.label}: a card in {outside}"
                if m["view"] is not None:
                    events.setdefault(seat_of(c, m), []).append((m["v"], "view", c, m))
            elif typ == "error":
                counts["errors"] += 1
                events.setdefault(c.seat, []).append((m["v"], "error", c, m))
            else:  # welcome, room, pong, probe (R-WINDOW-LAG)
                assert typ in ("welcome", "room", "pong", "probe"), f"{c.label}: unknown {m}"
                assert not lc.card_codes(m, skip=names), f"{c.label}: a card in {m}"

    # Views and errors, in version order, against each seat's stream up to that version.
    for seat, todo in events.items():
        stream = canon[seat]
        tracker = lc.Tracker(g.record, seat)
        fed = 0
        last: dict[str, str] | None = None
        for v, kind, c, m in sorted(todo, key=lambda e: e[0]):
            batch: list[Message] = []
            while fed < len(stream) and stream[fed]["v"] <= v:
                msg = stream[fed]
                batch = batch if batch and batch[-1]["v"] == msg["v"] else []
                batch.append(msg)
                tracker.feed({k: x for k, x in msg.items() if k != "v"})
                fed += 1
            if batch:  # the last change up to v: a Jack's or Queen's look is open after it
                special = [x["type"] for x in batch if x["type"] in ("jack", "queen")]
                last = {"do": special[-1]} if special else None
            assert not tracker.failures, "\n".join(tracker.failures[:20])
            if kind == "view":
                failures = tracker.check_view(m["view"], last)
                assert not failures, f"{c.label}, state v {v}:\n" + "\n".join(failures[:20])
                counts["views"] += 1
            else:
                rnd = tracker.round
                held = rnd.drawn[seat] if rnd is not None and seat is not None else None
                found = lc.card_codes(m, skip=names)
                assert found <= ({held} if held else set()), (
                    f"{c.label}: error names {sorted(found)} while holding {held}: {m}"
                )
                counts["card_errors"] += bool(found)
    return counts


def audit_output(srv: Server, g: Game, tmp_path: Path) -> None:
    """The server's log: no seat token, no card code, no traceback."""
    lines = [line for line in srv.output if str(tmp_path) not in line]
    text = "".join(lines)
    assert text.strip(), "the server said nothing at all"
    for name, token in g.tokens.items():
        assert token not in text, f"{name}'s token is in the server's output"
    cards = sorted({c for line in lines for c in lc.CARD_RE.findall(line)})
    assert not cards, f"card codes in the server's output: {cards}\n{text[-2000:]}"
    assert "Traceback" not in text, text[-4000:]


def run_case(
    tmp_path: Path,
    players: int,
    limit: int,
    timer: int | None,
    take: bool,
    p_call: float,
    seed: int,
    real: bool = False,
) -> dict[str, int]:
    via = Transport(real)
    g, srv = via.run(play(tmp_path, players, limit, timer, take, p_call, seed, via))
    counts = audit(g)
    audit_output(srv, g, tmp_path)
    assert counts["views"] > len(g.names), counts  # at least a state per seat at the start
    assert g.reconnects >= 1, "no seat reconnected mid-game"
    assert counts["segments"] >= len(g.partial) + g.reconnects, counts
    return counts


@pytest.mark.parametrize(("players", "limit", "timer", "take", "p_call", "seed"), cases(8, 11))
def test_server_games_leak_nothing(
    tmp_path: Path,
    players: int,
    limit: int,
    timer: int | None,
    take: bool,
    p_call: float,
    seed: int,
) -> None:
    """R-SEE-DRAWN, R-SEE-LOOK, R-SEE-PUBLIC, R-SEE-REVEAL, R-NO-TRACE through the wire: the
    streams, views, errors and room messages of a real game, and the server's log (in-process)."""
    run_case(tmp_path, players, limit, timer, take, p_call, seed)


@pytest.mark.parametrize(
    ("players", "limit", "timer", "take", "p_call", "seed"), [cases(8, 11)[i] for i in (0, 3)]
)
def test_real_socket_games_leak_nothing(
    tmp_path: Path,
    players: int,
    limit: int,
    timer: int | None,
    take: bool,
    p_call: float,
    seed: int,
) -> None:
    """The same on a real ``crisp serve`` process over real WebSockets (2 and 4 players, with
    and without a per-draw time and takes from the pile): the frames as they cross the wire, and
    the process's whole output (uvicorn's access log included)."""
    run_case(tmp_path, players, limit, timer, take, p_call, seed, real=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("players", "limit", "timer", "take", "p_call", "seed"), cases(SOAK_GAMES, 90001)
)
def test_server_games_leak_nothing_soak(
    tmp_path: Path,
    players: int,
    limit: int,
    timer: int | None,
    take: bool,
    p_call: float,
    seed: int,
) -> None:
    """The same over ``CRISP_SERVER_LEAK_GAMES`` more games (24 by default)."""
    run_case(tmp_path, players, limit, timer, take, p_call, seed)
