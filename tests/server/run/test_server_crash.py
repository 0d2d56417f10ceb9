"""Crash safety of the game server: every change is written to SQLite before it is sent, so a
server killed (no shutdown code runs, nothing more is written) comes back, on the same data
directory, exactly where its players last saw it. In-process (``simserver``: the real app, its
WebSocket endpoint and SQLite on a virtual clock); ``SimServer.kill`` is the SIGKILL (the real
signal on a real process is ``test_server_sigkill.py``).

- Several rooms at once (two in play, one in the lobby with options set, one between rounds):
  after the restart every room, member, phase and option is there, each token takes its old seat,
  every seat's ``state`` is the view it had before the kill, the players finish their games, and
  each game's record replays to the ``game_over`` the players saw.
- R-TIMER / R-TIMEOUT: no one is timed out by the downtime; the draw clock restarts in full.
- An action acknowledged (its message received) right before the kill is in the record.
- Versions never go back across a restart (a client acts with the last ``v`` it saw).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
from pathlib import Path
from typing import Any

import seatplayer
import simserver
from seeded import fixed_deck
from simserver import Client, SimServer
from wsclient import ENGINE_TYPES, Player

from crisp.engine.crisp.record import replay
from crisp.engine.crisp.record import stream as record_stream

SPEED = 20.0  # game seconds per real second
# Between rounds the next deal waits for every connected seat (or this long): a room whose
# players hold back stays between rounds for the whole test.
ENV = {"CRISP_BETWEEN_ROUNDS_S": "600"}
GAME_OVER_S = 150.0  # real seconds a whole game may take on a loaded machine

Message = dict[str, Any]


class Seat(simserver.Client, seatplayer.Seat):
    """``seatplayer.Seat`` in the process."""


# -- helpers ------------------------------------------------------------------------------------


def engine(received: list[Message]) -> list[Message]:
    """The engine messages of ``received`` without their version stamps."""
    return [
        {k: v for k, v in m.items() if k != "v"} for m in received if m.get("type") in ENGINE_TYPES
    ]


def _stream(record: dict[str, Any], seat: int | None) -> list[Message]:
    """The engine's own stream of ``record`` for ``seat`` (None: a spectator)."""
    messages: list[Message] = record_stream(copy.deepcopy(record), seat)
    return messages


def without_clock(stream: list[Message]) -> list[Message]:
    return [m for m in stream if m["type"] != "clock"]


async def record_of(srv: SimServer, code: str) -> dict[str, Any]:
    status, record = await srv.request("GET", f"/api/rooms/{code}/record")
    assert status == 200, (status, record)
    assert isinstance(record, dict)
    return record


async def summary(srv: SimServer, code: str) -> dict[str, Any]:
    """``GET /api/rooms/{code}`` without who is connected right now."""
    status, body = await srv.request("GET", f"/api/rooms/{code}")
    assert status == 200, (status, body)
    for member in body["members"]:
        member.pop("connected")
    return dict(body)


async def open_room(
    srv: SimServer, names: list[str], options: dict[str, Any], *, salt: int, **kw: Any
) -> tuple[str, list[str], list[Seat]]:
    """A room with ``names`` seated (the first is the host), options set and the game started;
    returns its code, the tokens and the connected (not yet playing) seats."""
    host = await srv.create_room(names[0])
    code = host["code"]
    tokens = [host["token"]] + [(await srv.join(code, name))["token"] for name in names[1:]]
    seats = [
        Seat(srv, code, tok, f"{code}/{name}", seed=salt + i, **kw)
        for i, (tok, name) in enumerate(zip(tokens, names, strict=True))
    ]
    for s in seats:
        await s.connect()
    since = len(seats[0].received)
    await seats[0].send({"type": "options", **options})
    await seats[0].wait_type("room", since=since, options=options)
    await seats[0].send({"type": "start"})
    for s in seats:
        await s.wait_type("round", round=1)
    return code, tokens, seats


async def stop_all(clients: list[Client]) -> None:
    for c in clients:
        if isinstance(c, Player):
            await c.stop_playing()
        with contextlib.suppress(Exception):
            await c.close()


def seconds_to_next_deadline(state: Message) -> float | None:
    """Game seconds from the state's ``now`` to the room's next deadline (look phase, crisp
    window, draw clock), or None when nothing is due (a reveal, or no per-draw time)."""
    view = state["view"]
    if view is None or view["over"]:
        return None
    rnd = view["round"]
    due: list[float] = []
    if rnd["phase"] == "look":
        due.append(rnd["look_until"])
    elif rnd["phase"] == "play":
        if rnd["turn"]["deadline"] is not None:
            due.append(rnd["turn"]["deadline"])
        if rnd["window"] is not None:
            due.append(rnd["window"]["until"])
    return min(due) - state["now"] if due else None


async def quiet_states(seats: list[Seat], margin_s: float) -> dict[int, Message]:
    """Every seat syncs (so each action it sent is handled: a connection's messages are handled
    in order); repeat until no room has a deadline within ``margin_s`` real seconds. Returns the
    last ``state`` of each seat (by index): what it saw last."""
    while True:
        marks = [len(s.received) for s in seats]
        for s in seats:
            await s.send({"type": "sync"})
        states = {
            i: await s.wait_type("state", since=m, timeout=30)
            for i, (s, m) in enumerate(zip(seats, marks, strict=True))
        }
        soon = [
            (left, i)
            for i, st in states.items()
            if (left := seconds_to_next_deadline(st)) is not None and left / SPEED < margin_s
        ]
        if not soon:
            return states
        _, i = min(soon)
        mark = len(seats[i].received)  # wait for that deadline to pass, then look again
        await seats[i].wait(lambda m: m.get("type") in ENGINE_TYPES, timeout=30, since=mark)


def last_seen(stream: list[Message]) -> tuple[int | None, int | None, str | None]:
    """From a seat's engine messages alone: the round number, the deck count and the top of the
    pile after the last one (R-DRAW, R-RECYCLE, R-TIMEOUT, R-SEE-PUBLIC)."""
    number = deck = top = None
    holding: set[int] = set()
    for m in stream:
        typ = m["type"]
        if typ == "round":
            number, deck, top, holding = m["round"], m["deck"], None, set()
        elif typ == "draw":
            deck = m["deck"]
            holding.add(m["seat"])
        elif typ == "recycle":
            deck, top = m["deck"], None  # the whole pile became the deck
        elif typ in ("swap", "discard", "jack", "queen", "king", "take"):
            top = m["card"]
            holding.discard(m["seat"])
        elif typ == "timeout" and m["card"] is not None:
            if m["seat"] not in holding:  # nothing drawn yet: the deck's top card was discarded
                assert deck is not None
                deck -= 1
            holding.discard(m["seat"])
            top = m["card"]
    return number, deck, top


def view_after_restart(view: dict[str, Any], timer: int | None) -> dict[str, Any]:
    """The view a seat had before the kill, with the draw clock restarted in full from the game
    time where it stopped (R-TIMER): a draw that was due gets its whole per-draw time again (and
    that change of the game ends a Jack's or Queen's look)."""
    want = copy.deepcopy(view)
    rnd = want.get("round")
    if timer is None or rnd is None or rnd["phase"] != "play" or rnd["turn"]["deadline"] is None:
        return want
    deadline = round(max(rnd["turn"]["at"], rnd["t"]) + timer, 3)
    if deadline != rnd["turn"]["deadline"]:
        rnd["turn"]["deadline"] = deadline
        if "you" in rnd:
            rnd["you"]["looks"] = []
    return want


def plain_first_draw_seed(players: int) -> int:
    """A seed whose first round's first draw (after 3 cards each, R-DEAL) is a plain card,
    so a test can draw and discard it."""
    return next(s for s in range(1, 500) if fixed_deck(s, players)[3 * players][0] not in "JQK")


async def two_seat_room(tmp_path: Path, speed: float = SPEED) -> tuple[SimServer, str, list[str]]:
    """A server whose games deal ``plain_first_draw_seed(2)``, and a room of Ana (the host) and
    Ben: the server, the room's code and the two seat tokens."""
    env = {**ENV, "CRISP_FIXED_SEED": str(plain_first_draw_seed(2))}
    srv = SimServer(tmp_path, clock_speed=speed, env=env).start()
    try:
        host = await srv.create_room("Ana")
        return srv, host["code"], [host["token"], (await srv.join(host["code"], "Ben"))["token"]]
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
    srv: SimServer, code: str, tokens: list[str], clients: list[Client]
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
    record = await record_of(srv, code)
    assert_result(record, over)
    return record


def assert_result(record: dict[str, Any], over: Message) -> None:
    result = replay(copy.deepcopy(record)).result
    assert result["over"], "the downloaded record does not replay to a finished game"
    assert (over["totals"], over["winners"]) == (result["totals"], result["winners"])


# -- (1) several rooms killed mid-game ----------------------------------------------------------


def test_kill_mid_game_every_room_comes_back(tmp_path: Path) -> None:
    """Crash safety: SIGKILL with two rooms in play, one in the lobby with options set and one
    between rounds; restarted on the same data dir, the rooms, members, phases and
    options are the same, each token takes its old seat, each seat's state is the view it last
    had (same round, deck count, top of the pile; the draw clock restarted in full, R-TIMER),
    the games play on to the end and their records replay to the game_over the seats saw."""
    simserver.run(_kill_mid_game(tmp_path))


async def _kill_mid_game(tmp_path: Path) -> None:
    srv = SimServer(tmp_path, clock_speed=SPEED, env=ENV).start()
    clients: list[Client] = []
    try:
        playing: dict[str, tuple[list[str], dict[str, Any]]] = {
            "A": (["Ana", "Ben", "Chloé"], {"limit": 100, "timer": None, "take_discard": True}),
            "B": (["Dev", "Eli", "Fay", "Gus"], {"limit": 100, "timer": 45, "take_discard": False}),
            "D": (["Hal", "Ivy"], {"limit": 50, "timer": 30, "take_discard": True}),
        }
        rooms: dict[str, tuple[str, list[str], list[Seat]]] = {}
        for i, (key, (names, options)) in enumerate(playing.items()):
            # D's seats call crisp at once and hold back after the reveal: that room reaches
            # its first reveal early and waits there, between rounds, while A and B play on.
            d = key == "D"
            rooms[key] = await open_room(
                srv,
                names,
                options,
                salt=100 * i,
                hold_reveal=d,
                p_call=1.0 if d else 0.25,
                p_timeout=0.1 if key == "B" else 0.0,
            )
            clients += rooms[key][2]
        # C: a lobby with options set, a member removed and the host passed on.
        c_host = await srv.create_room("Jo")
        c_code = c_host["code"]
        c_tokens = [c_host["token"]] + [
            (await srv.join(c_code, n))["token"] for n in ("Kim", "Lou", "Max")
        ]
        jo = Client(srv, c_code, c_tokens[0], "C/Jo")
        await jo.connect()
        clients.append(jo)
        c_options = {"limit": 150, "timer": 60, "take_discard": True}
        await jo.send({"type": "options", **c_options})
        c_members = (await summary(srv, c_code))["members"]
        max_id = next(m["id"] for m in c_members if m["name"] == "Max")
        kim_id = next(m["id"] for m in c_members if m["name"] == "Kim")
        await jo.send({"type": "kick", "member": max_id})
        await jo.send({"type": "host", "member": kim_id})
        await jo.wait(
            lambda m: (
                m["type"] == "room"
                and m["options"] == c_options
                and any(x["host"] and x["id"] == kim_id for x in m["members"])
                and all(x["id"] != max_id for x in m["members"])
            )
        )

        for key in "ABD":
            for s in rooms[key][2]:
                s.start_playing()
        d_seats = rooms["D"][2]
        await d_seats[0].wait(
            lambda m: m["type"] == "room" and m["phase"] == "between", timeout=GAME_OVER_S
        )
        for key in "AB":  # the others are well into their game
            await rooms[key][2][0].wait(lambda m: m["type"] == "turn_end", timeout=60)
        seats = [s for key in "ABD" for s in rooms[key][2]]
        for s in seats:  # no new action from now on; deadlines still run on the server
            await s.stop_playing()
        last = dict(zip(seats, (await quiet_states(seats, margin_s=1.5)).values(), strict=True))
        before = {code: await summary(srv, code) for code, _, _ in rooms.values()}
        before[c_code] = await summary(srv, c_code)
        assert {before[rooms[k][0]]["phase"] for k in "AB"} <= {"playing", "between"}
        assert before[rooms["D"][0]]["phase"] == "between"
        assert before[c_code]["phase"] == "lobby" and before[c_code]["options"] == c_options
        srv.kill()
        pre = {s: engine(s.received) for s in seats}
        await stop_all(clients)
        clients = []

        srv = SimServer(tmp_path, clock_speed=SPEED, env=ENV).start()
        for code, room in before.items():
            assert await summary(srv, code) == room, f"room {code} changed across the restart"

        # The lobby: each token is its member again, the removed one's token is refused.
        for tok, name in zip(c_tokens[:3], ("Jo", "Kim", "Lou"), strict=True):
            c = Client(srv, c_code, tok, f"C/{name}")
            await c.connect()
            clients.append(c)
            welcome = next(m for m in c.received if m["type"] == "welcome")
            member = next(m for m in before[c_code]["members"] if m["name"] == name)
            assert welcome["you"]["member"] == member["id"]
            assert welcome["you"]["host"] == (name == "Kim")
        gone = Client(srv, c_code, c_tokens[3], "C/Max")
        await gone.connect()
        await asyncio.wait_for(gone.closed.wait(), 10)
        assert gone.close_code == 4401 and gone.errors("unauthorized")

        # The games: the same seats, the same views; then they play on to the end.
        resumed: dict[str, tuple[list[Seat], Client]] = {}
        for key in "ABD":
            code, tokens, old = rooms[key]
            new = [
                Seat(srv, code, tok, f"{o.label}'", seed=1000 + i, resume=True)
                for i, (tok, o) in enumerate(zip(tokens, old, strict=True))
            ]
            watch = Client(srv, code, None, f"{code}/watch")
            for c in [*new, watch]:
                await c.connect()
            clients += [*new, watch]
            resumed[key] = new, watch
            for s, o in zip(new, old, strict=True):
                welcome = next(m for m in s.received if m["type"] == "welcome")
                assert welcome["you"] == last[o]["you"], f"{s.label} has another seat"
        for key in "ABD":
            timer = playing[key][1]["timer"]
            for s, o in zip(resumed[key][0], rooms[key][2], strict=True):
                mark = len(s.received)
                await s.send({"type": "sync"})
                view = (await s.wait_type("state", since=mark))["view"]
                assert view == view_after_restart(last[o]["view"], timer), (
                    f"{s.label}: the view after the restart is not the view before the kill"
                )
                assert last_seen(pre[o]) == (
                    view["round"]["round"],
                    view["round"]["deck"],
                    view["round"]["top"],
                )
        overs = await asyncio.gather(*(finish(*resumed[key]) for key in "ABD"))
        for key, over in zip("ABD", overs, strict=True):
            code, _, old = rooms[key]
            record = await record_of(srv, code)
            assert_result(record, over)
            assert (await summary(srv, code))["phase"] == "over"
            for seat, (s, o) in enumerate(zip(resumed[key][0], old, strict=True)):
                # Nothing seen was lost or changed, nothing is repeated: before the kill and
                # after the restart, the seat's messages are its stream of the whole record
                # (a clock restart is sent to whoever is connected at that moment).
                want = without_clock(_stream(record, seat))
                assert without_clock(pre[o] + engine(s.received)) == want, s.label
            restarts = [c for r in record["rounds"] for c in r.get("clock", [])]
            assert all(c["do"] == "restart" for c in restarts), restarts
            assert len(restarts) <= 1, restarts
            assert not restarts or playing[key][1]["timer"] is not None
    finally:
        await stop_all(clients)
        srv.kill()


# -- (2) the downtime times no one out ----------------------------------------------------------


def test_downtime_times_no_one_out(tmp_path: Path) -> None:
    """R-TIMER, R-TIMEOUT: killed while a seat's draw is due (per-draw time 30 s), down longer
    than those 30 s last at this clock speed, restarted: no timeout, and the draw clock runs
    in full from where the game time stopped (the deadline is the resume time + 30 s); the
    record keeps the restart and the seat's draw after it."""
    simserver.run(_downtime(tmp_path))


async def _downtime(tmp_path: Path) -> None:
    speed = 10.0
    srv, code, tokens = await two_seat_room(tmp_path, speed)
    clients: list[Client] = []
    try:
        cs = [Client(srv, code, t, f"c{i}") for i, t in enumerate(tokens)]
        for c in cs:
            await c.connect()
        clients += cs
        await cs[0].send({"type": "options", "limit": 50, "timer": 30, "take_discard": False})
        await cs[0].wait_type("room", options={"limit": 50, "timer": 30, "take_discard": False})
        await cs[0].send({"type": "start"})
        deal = await cs[0].wait_type("round", round=1)
        first, other = deal["first"], 1 - deal["first"]
        for c in cs:
            await c.act("ready")
        mover = cs[first]
        await mover.wait_type("turn", seat=first)  # its v is the turn's: not stale
        await mover.act("draw")
        drawn = await mover.wait(lambda m: m["type"] == "draw" and "card" in m)
        assert drawn["card"] == fixed_deck(plain_first_draw_seed(2), 2)[6]
        await mover.act("discard")
        discarded = await mover.wait_type("discard", seat=first)
        ended = await mover.wait_type("turn_end", seat=first)
        due = await mover.wait_type("turn", seat=other)
        assert due["deadline"] == round(due["at"] + 30, 3)
        # The previous player's crisp window closes 1 s after the draw became due: a change of
        # the game after which the draw clock, restarted in full, ends later than it would have.
        closed = await mover.wait_type("window_closed", seat=first)
        assert closed["t"] == ended["window_until"] > due["at"]
        srv.kill()
        before = engine(cs[0].received)
        assert not [m for m in before if m["type"] == "timeout"]
        await stop_all(clients)
        clients = []
        await asyncio.sleep(1.5 * 30 / speed)  # longer than the whole per-draw time, real time

        srv = SimServer(tmp_path, clock_speed=speed, env=srv.env).start()
        cs = [Client(srv, code, t, f"c{i}'") for i, t in enumerate(tokens)]
        for c in cs:
            await c.connect()
        clients += cs
        mark = len(cs[other].received)
        await cs[other].send({"type": "sync"})
        state = await cs[other].wait_type("state", since=mark)
        rnd = state["view"]["round"]
        # The game time resumes where it stopped: the last change before the kill (the window
        # closing, applied by the server at or a little after its time), not 45 s later.
        resumed = rnd["t"]
        assert closed["t"] <= resumed < closed["t"] + 5, "the downtime counted as game time"
        assert rnd["turn"]["seat"] == other and not rnd["turn"]["holding"]
        assert rnd["turn"]["deadline"] == round(resumed + 30, 3) > due["deadline"]
        for c in cs:
            assert not [m for m in c.received if m["type"] == "timeout"], c.label
            for m in c.received:
                if m["type"] == "clock":  # the restart, sent to whoever is connected
                    assert (m["seat"], m["deadline"]) == (other, round(resumed + 30, 3))
        mark = len(cs[other].received)
        await cs[other].act("draw")
        got = await cs[other].wait(lambda m: m["type"] in ("draw", "timeout", "error"), since=mark)
        assert got["type"] == "draw" and got["seat"] == other, got
        await stop_all(clients)
        clients = []

        record = await play_out(srv, code, tokens, clients)
        round1 = record["rounds"][0]
        acts = round1["actions"]
        restart = [c for c in round1.get("clock", []) if c["do"] == "restart"]
        assert restart and restart[0]["t"] == resumed
        after = restart[0]["after"]
        assert acts[after - 1] == {"t": discarded["t"], "seat": first, "do": "discard"}
        assert {k: acts[after][k] for k in ("seat", "do")} == {"seat": other, "do": "draw"}
        assert acts[after]["t"] >= closed["t"]
        # In the record too: from the window's close to that draw, no timeout (R-TIMEOUT).
        public = _stream(record, None)
        start = next(i for i, m in enumerate(public) if m["type"] == "window_closed")
        stop = next(i for i, m in enumerate(public) if m["type"] == "draw" and m["seat"] == other)
        assert start < stop and not [m for m in public[start:stop] if m["type"] == "timeout"]
    finally:
        await stop_all(clients)
        srv.kill()


# -- (3) an acknowledged action survives a kill ---------------------------------------------------


def test_acknowledged_action_survives_a_kill(tmp_path: Path) -> None:
    """Crash safety (in-process; the same with a real SIGKILL: ``test_server_sigkill.py``): a
    ``ready``, a ``draw`` and a ``discard`` each acknowledged (its message received) and the server
    killed at once: after each restart the state shows the action done
    (R-LOOK-PHASE ready, R-SEE-DRAWN the drawn card held, R-SEE-PUBLIC the card on the pile),
    and the finished game's record holds all three, at the times their messages said."""
    simserver.run(_acknowledged(tmp_path))


async def _acknowledged(tmp_path: Path) -> None:
    srv, code, tokens = await two_seat_room(tmp_path)
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
            srv.kill()
            await stop_all(clients)
            clients = []
            srv = SimServer(tmp_path, clock_speed=SPEED, env=srv.env).start()
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


# -- (4) versions never go back -------------------------------------------------------------------


def test_versions_never_go_back_across_a_restart(tmp_path: Path) -> None:
    """Crash safety of the protocol's versions: a client acts with the last ``v`` it saw (a
    phone that reconnects keeps it). After a SIGKILL and a restart the room's version is not
    older than any version sent before the kill, and an action with that ``v`` is not refused
    as ``bad_version`` (the game goes on, R-TURN)."""
    simserver.run(_versions(tmp_path))


async def _versions(tmp_path: Path) -> None:
    srv, code, tokens = await two_seat_room(tmp_path)
    cs: list[Client] = []
    try:
        cs = [Client(srv, code, t, f"c{i}") for i, t in enumerate(tokens)]
        for c in cs:
            await c.connect()
        await cs[0].send({"type": "options", "limit": 50, "timer": None, "take_discard": False})
        await cs[0].send({"type": "start"})
        deal = await cs[0].wait_type("round", round=1)
        first = deal["first"]
        for c in cs:
            await c.act("ready")
        await cs[first].wait_type("turn", seat=first)
        await cs[first].act("draw")
        await cs[first].wait(lambda m: m["type"] == "draw" and "card" in m)
        await cs[first].act("discard")
        await cs[1 - first].wait_type("turn", seat=1 - first)
        seen = max(c.v for c in cs)
        srv.kill()
        for c in cs:
            await asyncio.wait_for(c.closed.wait(), 10)
        srv = SimServer(tmp_path, clock_speed=SPEED, env=srv.env).start()
        for c in cs:  # the same client objects: each keeps the last v it saw
            c.server = srv  # the same address, in a process
            await c.connect()
        mover = cs[1 - first]
        state = next(m for m in reversed(mover.received) if m["type"] == "state")
        assert state["v"] >= seen, (
            f"the room's version went back from {seen} to {state['v']} across the restart"
        )
        turn = state["view"]["round"]["turn"]
        assert turn["seat"] == 1 - first
        await asyncio.sleep(max(0.0, turn["at"] - state["now"]) / SPEED + 0.05)  # due by then
        mark = len(mover.received)
        await mover.act("draw")
        got = await mover.wait(lambda m: m["type"] in ("draw", "error"), since=mark)
        assert got["type"] == "draw", f"an action with the last version seen was refused: {got}"
    finally:
        await stop_all(cs)
        srv.kill()
