"""Bad input: every kind gets a clear typed ``error`` (or a close code), changes nothing, and the
room plays on for everyone else. Through the real app in-process (``simserver``: the HTTP routes,
each connection's WebSocket endpoint with its text and binary frames, the hub, SQLite, on a virtual
clock), except what only a socket shows, on one real ``crisp serve`` process per need: the Origin
check at the handshake (HTTP 403), the frame size cap (close 1009) and the rate limit's floods in
real time (close 1008).

Each case is sent by one connection while the others watch; then the checks are:
- the answer is the expected ``error`` (its ``code``, the field named in ``message``, the rule id
  ``rule`` for an illegal action, ``v`` = the room's version before), or the expected close code;
- nothing follows it: no engine message and no new version reaches any connection (a ``ping``
  barrier on every socket), and every connection's ``state`` (``sync``) and the room summary
  (``GET /api/rooms/{code}``) are exactly as before;
- then a legitimate move by whoever is due (a ``ready``, a draw, the play of the drawn card, or in
  the lobby the host's options) applies at exactly the next version and reaches every connection.

Cases: malformed frames, bad fields, hello and tokens, R-… refusals, forbidden and wrong-phase
messages, the size cap, floods, the Origin check, binary frames, HTTP input, no token in the logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import simserver
import websockets
import wsclient
from seeded import fixed_deck
from serverproc import ServerProcess
from simserver import SimServer
from websockets.exceptions import InvalidStatus
from wsclient import ENGINE_TYPES, Client

Server = ServerProcess | SimServer
Msg = dict[str, Any]
Raw = Msg | str | bytes | Callable[[int], Msg]


def _queen_between_plain_draws(seed: int) -> bool:
    """Round 1's first three draws of a 3-player game are plain, a Queen, plain."""
    kinds = [
        "Q" if c[0] == "Q" else "face" if c[0] in "JK" else "plain"
        for c in fixed_deck(seed, 3)[9:12]
    ]
    return kinds == ["plain", "Q", "plain"]


# the fixed seed: its second draw is a Queen (test_illegal_actions_are_refused_with_their_rule)
SEED = str(next(s for s in range(1, 1000) if _queen_between_plain_draws(s)))
SPEED = 5.0  # the crisp window (3 game s) passes in 0.6 s
CAP = 4096  # the server's default max_message_bytes (left at its default here)
NAMES = ("Ana", "Ben", "Chloé")
NO_ROOM = "NOROOM"  # six letters: room codes have five
# The check helpers send a few messages per connection and per case; a higher rate limit keeps
# them clear of it (the flood test has its own server with a low one).
CALM = {"CRISP_RATE_PER_S": "500", "CRISP_RATE_BURST": "1000"}


def start_server(data_dir: Path, speed: float, **env: str) -> ServerProcess:
    # log level info: the access log and the server's own log lines are in ``output`` too
    base = {"CRISP_FIXED_SEED": SEED, "CRISP_LOG_LEVEL": "info"}
    return ServerProcess(data_dir, clock_speed=speed, env={**base, **env}).start()


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A real process, for what only a socket shows (one for the module)."""
    srv = start_server(tmp_path_factory.mktemp("bad-input"), SPEED, **CALM)
    yield srv
    srv.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SimServer]:
    """The app in-process (its rate limit out of the way: no real time passes)."""
    srv = SimServer(tmp_path, clock_speed=SPEED, env={"CRISP_FIXED_SEED": SEED})
    yield srv
    srv.stop()


def run(server: Server, main: Any) -> None:
    """``main()`` on the server's loop: a virtual one in-process, a real one for a process."""
    if isinstance(server, SimServer):
        simserver.run(main)
    else:
        asyncio.run(main())


async def aw(value: Any) -> Any:
    """A ``ServerProcess`` answers at once, a ``SimServer`` is awaited."""
    return await value if inspect.isawaitable(value) else value


def client_type(server: Server) -> type[Client]:
    return simserver.Client if isinstance(server, SimServer) else wsclient.Client


def assert_clean_output(server: Server, tokens: list[str]) -> None:
    """No seat token in the server's output (access log included), and no traceback."""
    out = "".join(server.output)
    assert tokens
    for token in tokens:
        assert token not in out, "a seat token was written to the server's output"
    assert "Traceback" not in out, out[-3000:]


def timeless(view: Msg | None) -> Msg | None:
    """A state's view without the round's ``t``: the game time the engine last stood at, which
    moves on whenever an action reaches it (time passes), refused or not."""
    if view is None or "round" not in view:
        return view
    return {**view, "round": {k: v for k, v in view["round"].items() if k != "t"}}


def padded(msg: Msg, size: int) -> str:
    """``msg`` as JSON with blanks before its closing brace: exactly ``size`` bytes."""
    text = json.dumps(msg)
    fill = size - len(text.encode())
    assert fill >= 0
    return text[:-1] + " " * fill + "}"


def act(v: int, do: str, **fields: Any) -> Msg:
    return {"type": "act", "v": v, "do": do, **fields}


async def error_or_close(client: Client, since: int, timeout: float = 15.0) -> Msg | None:
    """The first error after ``since``, or None if the connection closed without one."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        errors = [m for m in client.received[since:] if m.get("type") == "error"]
        if errors:
            return errors[0]
        if client.closed.is_set():
            return None
        assert loop.time() < end, f"{client.label}: neither an error nor a close"
        await asyncio.sleep(0.02)


async def closed_with(client: Client, timeout: float = 15.0) -> int | None:
    await asyncio.wait_for(client.closed.wait(), timeout)
    return client.close_code


class Table:
    """A room on a server: its members' connections, a watcher, and the checks."""

    def __init__(self, server: Server, code: str) -> None:
        self.server = server
        self.code = code
        self.tokens: list[str] = []
        self.players: list[Client] = []  # one connection per member, in join order
        self.client = client_type(server)
        self.watcher = self.client(server, code, None, "watcher")
        self.clients: list[Client] = []  # every greeted connection the checks look at
        self.drawn: dict[int, str] = {}  # the card each seat holds (from its private draw)
        self.pings = 0

    # -- setting up ------------------------------------------------------------------------

    async def add(self, name: str, token: str) -> Client:
        client = self.client(self.server, self.code, token, name)
        await client.connect()
        assert not client.errors(), client.received
        self.tokens.append(token)
        self.players.append(client)
        self.clients.append(client)
        return client

    async def start(self, ready: bool = True) -> Msg:
        """The host starts the game; with ``ready`` every seat is ready and the first draw due."""
        mark = len(self.watcher.received)
        await self.players[0].send({"type": "start"})
        deal = await self.watcher.wait_type("round", since=mark)
        for p in self.players:
            await p.wait_type("round", since=0)
            assert p.seat is not None
        if ready:
            for p in self.players:
                await p.act("ready")
            # all ready (or, on a very slow machine, the look phase over): the first draw is due
            await self.watcher.wait_type("turn", since=mark, timeout=30)
            await self.barrier()
        return deal

    def live(self) -> list[Client]:
        return [c for c in self.clients if not c.closed.is_set()]

    @property
    def by_seat(self) -> dict[int, Client]:
        return {p.seat: p for p in self.players if p.seat is not None and not p.closed.is_set()}

    def token_of(self, seat: int) -> str:
        token = self.by_seat[seat].token
        assert token is not None
        return token

    async def extra(self, label: str, token: str | None, greet: bool = True) -> Client:
        """Another connection (of a member, or a watcher): not watched by the checks."""
        client = self.client(self.server, self.code, token, label)
        await client.connect(hello=greet)
        return client

    # -- reading the game ------------------------------------------------------------------

    def phase(self) -> str:
        rooms = [m for m in self.watcher.received if m.get("type") == "room"]
        return str(rooms[-1]["phase"])

    def due(self) -> tuple[str, int]:
        """("look", seat not ready yet) | ("turn", seat to draw) | ("holding", seat to play)."""
        msgs = self.watcher.received
        start = max(i for i, m in enumerate(msgs) if m.get("type") == "round")
        msgs = msgs[start:]
        moves = [m for m in msgs if m.get("type") in ("turn", "draw")]
        if not moves or all(m["type"] != "turn" for m in moves):
            ready = {m["seat"] for m in msgs if m.get("type") == "ready"}
            return "look", min(set(self.by_seat) - ready)
        last = moves[-1]
        return ("turn" if last["type"] == "turn" else "holding"), last["seat"]

    def others(self, *seats: int) -> list[int]:
        return [s for s in sorted(self.by_seat) if s not in seats]

    # -- the checks ------------------------------------------------------------------------

    async def barrier(self) -> None:
        """Everything sent to any connection before now has arrived."""
        waits = []
        for c in self.live():
            self.pings += 1
            waits.append((c, self.pings, len(c.received)))
            await c.send({"type": "ping", "n": self.pings})
        for c, n, mark in waits:
            await c.wait_type("pong", since=mark, n=n)

    async def snapshot(self) -> Msg:
        """Every connection's full state (``sync``) and the room summary."""
        conns = self.live()
        marks = [len(c.received) for c in conns]
        for c in conns:
            await c.send({"type": "sync"})
        states = [await c.wait_type("state", since=m) for c, m in zip(conns, marks, strict=True)]
        versions = {s["v"] for s in states}
        assert len(versions) == 1, versions
        status, summary = await aw(self.server.request("GET", f"/api/rooms/{self.code}"))
        assert status == 200, summary
        views = {
            c.label: (timeless(s["view"]), s["you"]) for c, s in zip(conns, states, strict=True)
        }
        return {"v": versions.pop(), "views": views, "room": summary}

    async def version(self) -> int:
        mark = len(self.watcher.received)
        await self.watcher.send({"type": "sync"})
        state = await self.watcher.wait_type("state", since=mark)
        v: int = state["v"]
        return v

    async def assert_unchanged(self, before: Msg, marks: dict[Client, int]) -> None:
        """No engine message and no new version reached anyone; every state is as it was."""
        await self.barrier()
        for c in self.live():
            for m in c.received[marks.get(c, 0) :]:
                assert m.get("type") not in ENGINE_TYPES, f"{c.label} was sent {m}"
                if m.get("type") in ("room", "state"):
                    assert m["v"] == before["v"], f"{c.label} was sent {m}"
        after = await self.snapshot()
        assert after["v"] == before["v"]
        assert after["room"] == before["room"]
        for label, view in after["views"].items():
            if label in before["views"]:
                assert view == before["views"][label], label

    async def refused(
        self,
        sender: Client,
        raw: Raw,
        code: str,
        *,
        rule: str | None = None,
        field: str | None = None,
        close: int | None = None,
        step: bool = True,
    ) -> Msg | None:
        """Send one bad input; check its answer, that it changed nothing, and (with ``step``)
        that the next legitimate move still applies at the next version."""
        before = await self.snapshot()
        marks = {c: len(c.received) for c in self.live()}
        msg = raw(before["v"]) if callable(raw) else raw
        start = len(sender.received)
        await sender.send(msg)
        if close is None:
            err: Msg | None = await sender.wait_type("error", since=start)
        else:
            assert await closed_with(sender) == close, sender.received[start:]
            errors = [m for m in sender.received[start:] if m.get("type") == "error"]
            err = errors[0] if errors else None
            assert len(errors) <= 1, errors
        if close is None or err is not None:
            assert err is not None
            assert err["code"] == code, err
            assert err["v"] == before["v"], err
            assert isinstance(err["message"], str) and err["message"], err
            if rule is not None:
                assert err.get("rule") == rule, err
            if field is not None:
                # pydantic's "field: …", or the action check's "'swap' needs 'slot'"
                text = err["message"]
                assert text.startswith(f"{field}:") or f"'{field}'" in text, err
            if code in ("forbidden", "bad_phase", "illegal", "stale", "bad_version"):
                assert isinstance(msg, dict) and err.get("about") == msg["type"], err
        await self.assert_unchanged(before, marks)
        if step:
            await self.step()
        return err

    # -- legitimate moves ------------------------------------------------------------------

    async def step(self, by: Client | None = None, size: int | None = None) -> Msg:
        """One legitimate move by whoever is due (``by`` if it is that seat's connection),
        sent padded to ``size`` bytes if given. It must apply at the next version and reach
        every connection; after a play, wait until the crisp window has closed (the game is
        then quiet: no deadline is pending without a per-draw time)."""
        v0 = await self.version()
        marks = {c: len(c.received) for c in self.live()}
        if self.phase() == "lobby":
            return await self._lobby_step(v0, marks)
        kind, seat = self.due()
        fields: Msg = {}
        if kind == "look":
            do = "ready"
        elif kind == "turn":
            do = "draw"
        else:
            do, fields = self._play(seat)
        actor = by if by is not None and by.seat == seat else self.by_seat[seat]
        mark = len(actor.received)
        msg = act(v0, do, **fields)
        await actor.send(msg if size is None else padded(msg, size))
        got = await actor.wait(
            lambda m: m.get("type") == "error" or (m.get("type") == do and m.get("seat") == seat),
            since=mark,
        )
        assert got["type"] == do, f"a legitimate {do} of seat {seat} was refused: {got}"
        assert got["v"] == v0 + 1, got
        for c in self.live():
            seen = await c.wait_type(do, since=marks.get(c, 0), seat=seat)
            assert seen["v"] == v0 + 1, (c.label, seen)
        if do == "draw":
            self.drawn[seat] = got["card"]
        elif do != "ready":
            w = self.watcher
            end = await w.wait(
                lambda m: m.get("type") in ("turn_end", "turn") and m.get("v") == v0 + 1,
                since=marks[w],
            )
            if end["type"] == "turn_end" and end["window_until"] is not None:
                await w.wait_type("window_closed", since=marks[w], seat=seat, timeout=30)
        await self.barrier()  # every connection has it all (``due`` reads the watcher's)
        return got

    def _play(self, seat: int) -> tuple[str, Msg]:
        rank = self.drawn[seat][0]
        if rank == "K":
            return "king", {}
        if rank == "J":
            return "jack", {}
        if rank == "Q":
            target = (seat + 1) % len(self.by_seat)
            return "queen", {"slot": "left", "target": target, "target_slot": "left"}
        return "discard", {}

    async def _lobby_step(self, v0: int, marks: dict[Client, int]) -> Msg:
        """In the lobby: the host changes the score limit."""
        rooms = [m for m in self.watcher.received if m.get("type") == "room"]
        options = dict(rooms[-1]["options"])
        options["limit"] = {50: 100, 100: 150, 150: 50}[options["limit"]]
        await self.players[0].send({"type": "options", **options})
        got: Msg = {}
        for c in self.live():
            got = await c.wait(
                lambda m: m.get("type") in ("room", "error") and m.get("v") == v0 + 1,
                since=marks.get(c, 0),
            )
            assert got["type"] == "room" and got["options"] == options, (c.label, got)
        return got


async def open_table(
    server: Server,
    names: tuple[str, ...] = NAMES,
    *,
    start: bool = True,
    ready: bool = True,
) -> Table:
    host = await aw(server.create_room(names[0]))
    table = Table(server, host["code"])
    await table.add(names[0], host["token"])
    for name in names[1:]:
        await table.add(name, (await aw(server.join(table.code, name)))["token"])
    await table.watcher.connect()
    table.clients.append(table.watcher)
    if start:
        await table.start(ready=ready)
    return table


# -- malformed frames and bad fields ---------------------------------------------------------


def test_malformed_frames_get_bad_json_bad_message_unknown_type(server: SimServer) -> None:
    """Protocol: not JSON → bad_json; a JSON array, string, number, null, an object without a
    "type" or with a non-string one, a binary frame → bad_message; an unknown type →
    unknown_type. From a seated player and from a watcher; nothing changes, play goes on."""

    async def main() -> None:
        t = await open_table(server)
        seated, watcher = t.players[1], t.watcher
        cases: list[tuple[Raw, str]] = [
            ("{nope", "bad_json"),
            ('{"type": "ping"', "bad_json"),
            ("", "bad_json"),
            ("[1, 2]", "bad_message"),
            ('"ping"', "bad_message"),
            ("42", "bad_message"),
            ("null", "bad_message"),
            ('{"n": 1}', "bad_message"),
            ('{"type": 7}', "bad_message"),
            ({"type": "fly"}, "unknown_type"),
            ({"type": "ACT", "v": 0, "do": "draw"}, "unknown_type"),
            (b"\x00\x01binary", "bad_message"),
            (json.dumps({"type": "ping"}).encode(), "bad_message"),  # JSON, but binary
        ]
        for i, (raw, code) in enumerate(cases):
            await t.refused(seated if i % 2 == 0 else watcher, raw, code)
        assert_clean_output(server, t.tokens)

    run(server, main)


def test_known_types_with_bad_fields_name_the_field(server: SimServer) -> None:
    """Protocol: a known type with a bad field → bad_message whose message starts with the
    field's name (slot "up", an extra field, target 99, wrong types, a missing v, fields the
    action does not take or needs); a version from the future → bad_version, an old one →
    stale (for a draw that is otherwise legal). Sent by the seat that is due, which then
    plays on."""

    async def main() -> None:
        t = await open_table(server)

        def due() -> Client:
            return t.by_seat[t.due()[1]]

        cases: list[tuple[Raw, str, str | None]] = [
            (lambda v: act(v, "swap", slot="up"), "bad_message", "slot"),
            (lambda v: act(v, "swap", slot=0), "bad_message", "slot"),
            (lambda v: act(v, "draw", hack=True), "bad_message", "hack"),
            (
                lambda v: act(v, "queen", slot="left", target=99, target_slot="left"),
                "bad_message",
                "target",
            ),
            (
                lambda v: act(v, "queen", slot="left", target=-1, target_slot="left"),
                "bad_message",
                "target",
            ),
            (
                lambda v: act(v, "queen", slot="left", target=1.5, target_slot="left"),
                "bad_message",
                "target",
            ),
            (lambda v: {"type": "act", "v": "latest", "do": "draw"}, "bad_message", "v"),
            (lambda v: {"type": "act", "v": -1, "do": "draw"}, "bad_message", "v"),
            (lambda v: {"type": "act", "do": "draw"}, "bad_message", "v"),
            (lambda v: act(v, "fly"), "bad_message", "do"),
            (lambda v: act(v, "swap"), "bad_message", "slot"),  # swap needs a slot
            (lambda v: act(v, "draw", slot="left"), "bad_message", "slot"),  # draw takes none
            (lambda v: act(v, "queen", slot="left"), "bad_message", "target"),
            ({"type": "ping", "n": "one"}, "bad_message", "n"),
            (
                {"type": "options", "limit": 75, "timer": None, "take_discard": False},
                "bad_message",
                "limit",
            ),
            ({"type": "grace", "seat": 0, "seconds": 0}, "bad_message", "seconds"),
            ({"type": "kick", "member": "Ben"}, "bad_message", "member"),
            ({"type": "hello", "token": "x" * 200}, "bad_message", "token"),
            (lambda v: act(v + 1000, "draw"), "bad_version", None),
            (lambda v: act(0, "draw"), "stale", None),
        ]
        for raw, code, field in cases:
            await t.refused(due(), raw, code, field=field)
        assert_clean_output(server, t.tokens)

    run(server, main)


# -- hello and tokens --------------------------------------------------------------------------


def test_hello_rules_and_tokens(server: SimServer) -> None:
    """Messages before hello → unauthorized (and the same connection can then say hello and
    play); a second hello → bad_message; a hello token of a wrong type → bad_message; a wrong
    token, or a token of another room → unauthorized then close 4401; no such room → not_found
    then close 4404. The room plays on after each."""

    async def main() -> None:
        t = await open_table(server)
        kind, seat = t.due()
        assert kind == "turn"
        early = await t.extra("early", t.token_of(seat), greet=False)
        for raw in (
            lambda v: act(v, "draw"),
            {"type": "sync"},
            {"type": "ping", "n": 1},
            {"type": "options", "limit": 50, "timer": None, "take_discard": False},
            {"type": "continue"},
        ):
            await t.refused(early, raw, "unauthorized")
        assert not early.closed.is_set()
        # the same connection says hello now and plays its seat when it is due
        mark = len(early.received)
        await early.send({"type": "hello", "token": early.token})
        welcome = await early.wait_type("welcome", since=mark)
        assert welcome["you"]["seat"] == seat
        await early.wait_type("state", since=mark)
        t.clients.append(early)
        for _ in range(4 * len(t.by_seat)):
            if t.due()[1] == seat:
                break
            await t.step()
        got = await t.step(by=early)
        assert any(m is got for m in early.received)

        again = await t.refused(
            t.players[1], {"type": "hello", "token": t.players[1].token}, "bad_message"
        )
        assert again is not None and "hello" in again["message"], again
        await t.refused(t.watcher, {"type": "hello"}, "bad_message")
        typed = await t.extra("typed", None, greet=False)
        await t.refused(typed, {"type": "hello", "token": 12345}, "bad_message", field="token")
        await typed.close()

        wrong = await t.extra("wrong", None, greet=False)
        await t.refused(
            wrong, {"type": "hello", "token": "not-a-seat-token"}, "unauthorized", close=4401
        )
        assert wrong.errors("unauthorized"), wrong.received
        other_room = await aw(server.create_room("Zed"))
        t.tokens.append(other_room["token"])
        foreign = await t.extra("foreign", None, greet=False)
        await t.refused(
            foreign, {"type": "hello", "token": other_room["token"]}, "unauthorized", close=4401
        )
        assert foreign.errors("unauthorized"), foreign.received

        before = await t.snapshot()
        marks = {c: len(c.received) for c in t.live()}
        lost = t.client(server, NO_ROOM, t.players[0].token, "lost")
        await lost.connect(hello=False)
        assert await closed_with(lost) == 4404
        assert [m["code"] for m in lost.errors()] == ["not_found"], lost.received
        await t.assert_unchanged(before, marks)
        await t.step()
        assert_clean_output(server, t.tokens)

    run(server, main)


def test_foreign_origin_is_refused_at_the_handshake(real_server: ServerProcess) -> None:
    """On a real process (the handshake is uvicorn's). Origin check: a page of another site
    (another host, another port, a look-alike host, "null") cannot open a WebSocket: the
    handshake gets HTTP 403 (close 4403 before accept); the server's own origin and no Origin at
    all are accepted; the room plays on."""

    async def main() -> None:
        t = await open_table(real_server)
        own = f"http://127.0.0.1:{real_server.port}"
        for origin in (
            "https://evil.example",
            f"http://127.0.0.1:{real_server.port + 1}",
            f"http://127.0.0.1:{real_server.port}.evil.example",
            "null",
        ):
            before = await t.snapshot()
            marks = {c: len(c.received) for c in t.live()}
            client = Client(real_server, t.code, t.players[1].token, "foreign")
            with pytest.raises(InvalidStatus) as refused:
                await client.connect(headers={"Origin": origin})
            assert refused.value.response.status_code == 403, origin
            await t.assert_unchanged(before, marks)
            await t.step()
        for accepted in (own, None):
            client = Client(real_server, t.code, t.players[1].token, f"origin {accepted}")
            await client.connect(headers={"Origin": accepted} if accepted else None)
            assert client.received[0]["type"] == "welcome", client.received
            assert client.received[0]["you"]["seat"] == t.players[1].seat
            t.clients.append(client)
            await t.step()
        assert_clean_output(real_server, t.tokens)

    asyncio.run(main())


# -- who may do what -----------------------------------------------------------------------------


def test_watchers_spectators_and_non_hosts_are_forbidden(server: SimServer) -> None:
    """forbidden: a watcher (no token) acting, leaving or sending any host message; a
    spectator (a member who joined after the start: no seat) acting or sending host messages;
    a seated non-host sending host messages (options, start, kick, host, rematch, grace)."""

    async def main() -> None:
        t = await open_table(server)
        joined = await aw(server.join(t.code, "Dora"))
        spectator = await t.add("Dora", joined["token"])
        assert spectator.seat is None
        members = {p.label: p.member for p in t.players}
        host_messages: list[Msg] = [
            {"type": "options", "limit": 50, "timer": None, "take_discard": True},
            {"type": "start"},
            {"type": "kick", "member": members["Ben"]},
            {"type": "host", "member": members["Ben"]},
            {"type": "rematch"},
            {"type": "grace", "seat": 0},
        ]
        watcher_cases: list[Raw] = [act_now(), {"type": "leave"}, *host_messages]
        for raw in watcher_cases:
            await t.refused(t.watcher, raw, "forbidden")
        spectator_cases: list[Raw] = [act_now(), act_now("crisp"), *host_messages[::3]]
        for raw in spectator_cases:
            await t.refused(spectator, raw, "forbidden")
        non_host = t.players[2]
        assert non_host.member != t.players[0].member
        for raw in host_messages:
            await t.refused(non_host, raw, "forbidden")
        assert_clean_output(server, t.tokens)

    run(server, main)


def act_now(do: str = "draw") -> Callable[[int], Msg]:
    return lambda v: act(v, do)


def test_messages_in_the_wrong_phase_are_bad_phase(server: SimServer) -> None:
    """bad_phase: in the lobby, rematch, grace, continue, and start with one member
    (R-PLAYERS); during the game, the host's options, start, kick, rematch and grace for a
    connected seat, a seated player's leave and continue. The room's phase, options and
    members stay as they were, and play goes on."""

    async def main() -> None:
        solo = await open_table(server, ("Solo",), start=False)
        await solo.refused(solo.players[0], {"type": "start"}, "bad_phase")

        t = await open_table(server, start=False)
        host, guest = t.players[0], t.players[1]
        lobby_cases: list[tuple[Client, Msg]] = [
            (host, {"type": "rematch"}),
            (host, {"type": "grace", "seat": 0}),
            (guest, {"type": "continue"}),
        ]
        for sender, raw in lobby_cases:
            await t.refused(sender, raw, "bad_phase")
        await t.start()
        assert t.phase() == "playing"
        game_cases: list[tuple[Client, Msg]] = [
            (host, {"type": "options", "limit": 150, "timer": 30, "take_discard": True}),
            (host, {"type": "start"}),
            (host, {"type": "kick", "member": guest.member}),
            (host, {"type": "rematch"}),
            (host, {"type": "grace", "seat": guest.seat}),  # connected: nothing to grant
            (guest, {"type": "leave"}),
            (guest, {"type": "continue"}),
        ]
        for sender, raw in game_cases:
            await t.refused(sender, raw, "bad_phase")
        assert_clean_output(server, [*solo.tokens, *t.tokens])

    run(server, main)


# -- illegal actions -------------------------------------------------------------------------


def test_illegal_actions_are_refused_with_their_rule(tmp_path: Path) -> None:
    """illegal + the engine's rule id, and nothing changes (no engine message follows):
    a draw during the look (R-LOOK-PHASE), ready twice (R-LOOK-PHASE), a call when no turn
    has ended (R-CRISP), a swap with nothing drawn (R-SWAP), a second draw (R-DRAW), a draw out
    of turn (R-TURN), take_discard when the host did not allow it (R-OPT-DISCARD), a call
    after one's window closed (R-WINDOW), swapping a drawn face card in (R-SPECIAL), a
    discard with nothing drawn (R-DISCARD). Own server: a slower clock keeps the look open."""

    async def main(srv: SimServer) -> None:
        t = await open_table(srv, start=False)
        deal = await t.start(ready=False)
        first = deal["first"]
        n1, n2 = (first + 1) % 3, (first + 2) % 3
        # the fixed seed's deck (top first): 3 cards to each of the 3 seats, then the draws;
        # the second draw is a face card (that is why this seed is used)
        draws = fixed_deck(int(SEED), 3)[9:12]
        assert draws[1][0] in "JQK"

        def illegal(sender: int, do: str, rule: str, step: bool = True, **fields: Any) -> Any:
            return t.refused(
                t.by_seat[sender], lambda v: act(v, do, **fields), "illegal", rule=rule, step=step
            )

        assert t.due()[0] == "look"
        await illegal(first, "draw", "R-LOOK-PHASE")  # then a first seat says ready
        done = [m["seat"] for m in t.watcher.received if m.get("type") == "ready"]
        assert len(done) == 1
        await illegal(done[0], "ready", "R-LOOK-PHASE")  # then a second one
        await t.step()  # the last ready: the first draw is due
        assert t.due() == ("turn", first)

        await illegal(n1, "crisp", "R-CRISP", step=False)  # no turn has ended yet
        await illegal(first, "swap", "R-SWAP", slot="left")  # then the first player draws
        assert t.due() == ("holding", first)
        await illegal(first, "draw", "R-DRAW")  # then it plays its card; its window closes
        assert t.due() == ("turn", n1)
        await illegal(n2, "draw", "R-TURN", step=False)
        await illegal(n1, "take_discard", "R-OPT-DISCARD", slot="middle")  # then n1 draws
        assert t.due() == ("holding", n1)
        await illegal(first, "crisp", "R-WINDOW", step=False)
        assert t.drawn[n1] == draws[1]  # a face card: it may not go into the hand
        await illegal(n1, "swap", "R-SPECIAL", slot="right")  # then n1 plays it
        assert t.due() == ("turn", n2)
        await illegal(n2, "discard", "R-DISCARD")
        assert t.due() == ("holding", n2)
        assert [t.drawn[s] for s in (first, n1, n2)] == draws
        assert_clean_output(srv, t.tokens)

    # the look phase lasts 4 s, a window 1.2 s
    srv = SimServer(tmp_path, clock_speed=2.5, env={"CRISP_FIXED_SEED": SEED})
    try:
        simserver.run(main(srv))
    finally:
        srv.stop()


# -- size and rate ---------------------------------------------------------------------------


def test_oversized_messages_close_1009_and_the_room_plays_on(real_server: ServerProcess) -> None:
    """On a real process (the frame cap is websockets' max_size in the server's protocol). Size
    cap (max_message_bytes 4096): a message of exactly 4096 bytes is accepted (a ping, and a
    legitimate draw); one byte more closes that connection with 1009 (or answers too_large); the
    cap counts bytes, not characters; the others play on."""

    async def main() -> None:
        t = await open_table(real_server)
        at_cap = await t.extra("at cap", None)
        mark = len(at_cap.received)
        await at_cap.send(padded({"type": "ping", "n": 4096}, CAP))
        await at_cap.wait_type("pong", since=mark, n=4096)
        await at_cap.send(padded({"type": "sync"}, CAP - 1))
        await at_cap.wait_type("state", since=mark)
        t.clients.append(at_cap)
        await t.step(size=CAP)  # a draw sent as exactly 4096 bytes
        await t.step(size=CAP)  # and the play of the drawn card

        seat = t.due()[1]
        bystander = t.others(seat)[0]
        too_big: list[tuple[str, str | None, str]] = [
            ("member", t.token_of(bystander), padded({"type": "ping", "n": 1}, CAP + 1)),
            ("watcher", None, padded({"type": "sync"}, 64 * 1024)),
            # 2,100 characters, 4,200+ bytes
            ("accents", None, json.dumps({"type": "sync", "x": "é" * 2100}, ensure_ascii=False)),
            # the due seat's draw, legal but one byte too long (from a second connection)
            ("act", t.token_of(seat), padded(act(t.watcher.v, "draw"), CAP + 1)),
        ]
        assert len(too_big[2][2]) < CAP
        for label, token, text in too_big:
            assert len(text.encode()) > CAP
            sender = await t.extra(label, token)
            before = await t.snapshot()
            marks = {c: len(c.received) for c in t.live()}
            start = len(sender.received)
            with contextlib.suppress(websockets.ConnectionClosed):
                await sender.send(text)
            err = await error_or_close(sender, start)
            if err is None:
                assert sender.close_code == 1009, label
            else:
                assert err["code"] == "too_large" and err["v"] == before["v"], err
            await t.assert_unchanged(before, marks)
            await t.step()
        assert_clean_output(real_server, t.tokens)

    asyncio.run(main())


def test_floods_are_rate_limited_then_closed_1008(tmp_path: Path) -> None:
    """Rate limit: hundreds of messages at once get rate_limited errors (the connection stays
    and works again once its bucket refills); a sustained flood is closed with 1008. Meanwhile
    every other socket of the room keeps receiving its messages and play goes on. Own server
    with a slow refill (0.5 a second) so that the flood counts do not depend on the machine."""

    async def flood(client: Client, count: int, base: int) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            for k in range(count):
                await client.send({"type": "ping", "n": base + k})

    async def main(srv: ServerProcess, burst: int) -> None:
        t = await open_table(srv)
        seat = t.due()[1]
        flooder = await t.extra("flooder", t.token_of(t.others(seat)[0]))
        before = await t.snapshot()
        marks = {c: len(c.received) for c in t.live()}
        start = len(flooder.received)
        await flood(flooder, burst + 90, 0)  # 90 over the burst: refused, but not 200 in a row
        await flooder.wait_type("error", since=start, code="rate_limited", timeout=20)
        await t.assert_unchanged(before, marks)
        await t.step()  # the others play on
        assert not flooder.closed.is_set()
        pongs = [m for m in flooder.received[start:] if m.get("type") == "pong"]
        assert 0 < len(pongs) < burst + 90
        assert all(e["code"] == "rate_limited" for e in flooder.errors())
        # the flooder is still connected: once its bucket refills, a ping is answered again
        loop = asyncio.get_running_loop()
        end, answered, n = loop.time() + 20, False, 10_000
        while not answered:
            assert loop.time() < end, "the flooding connection never recovered"
            n += 1
            mark = len(flooder.received)
            await flooder.send({"type": "ping", "n": n})
            with contextlib.suppress(AssertionError):
                await flooder.wait_type("pong", since=mark, n=n, timeout=0.7)
                answered = True
        assert not flooder.closed.is_set()

        # a sustained flood from a second connection, while the seat that is due plays
        flooder2 = await t.extra("flooder 2", t.token_of(t.others(t.due()[1])[-1]))
        start2 = len(flooder2.received)
        v0 = await t.version()
        await asyncio.gather(flood(flooder2, burst + 400, 0), t.step())
        assert await closed_with(flooder2, 30) == 1008
        assert flooder2.errors("rate_limited"), flooder2.received[start2:][-5:]
        assert all(e["code"] == "rate_limited" for e in flooder2.errors())
        # every watched socket got the move (and its window's close, after a play), at the
        # versions that follow: the flood changed nothing
        for c in t.live():
            moves = [m for m in c.received if m.get("type") in ENGINE_TYPES and m["v"] > v0]
            assert moves and {m["v"] for m in moves} <= {v0 + 1, v0 + 2}, (c.label, moves)
        assert await t.version() in (v0 + 1, v0 + 2)
        await t.step()
        assert not flooder.closed.is_set()
        assert_clean_output(srv, t.tokens)

    burst = 60
    srv = start_server(tmp_path, SPEED, CRISP_RATE_PER_S="0.5", CRISP_RATE_BURST=str(burst))
    try:
        asyncio.run(main(srv, burst))
    finally:
        srv.stop()


# -- HTTP --------------------------------------------------------------------------------------


async def post_raw(server: Server, path: str, data: bytes) -> tuple[int, Any]:
    if isinstance(server, SimServer):
        return await server.request("POST", path, data=data)
    req = urllib.request.Request(
        server.base + path, data=data, method="POST", headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_http_bad_input(server: SimServer) -> None:
    """HTTP: an empty, blank or invisible name → 422 (and no room is left behind); a
    200-character name is capped at 20; a duplicate name in a room (any case, any spacing)
    → 409; a name with HTML is stored as plain text; the room page never echoes markup from its
    URL; an unknown room → 404; a malformed or mistyped JSON body → 422; the room works after."""

    async def main() -> None:

        async def rooms() -> int:
            count: int = (await aw(server.request("GET", "/healthz")))[1]["rooms"]
            return count

        count = await rooms()
        for name in ("", "   ", "\t\n ", "\u200b\u200b", "\x00\x07"):
            status, body = await aw(server.request("POST", "/api/rooms", {"name": name}))
            assert status == 422, (name, body)
        for data in (b"{bad", b"", b'["Ana"]', b'{"name": 5}', b"{}", b'{"name": null}'):
            status, body = await post_raw(server, "/api/rooms", data)
            assert status == 422, (data, body)
        assert await rooms() == count

        long_name = "Maximilian" * 20
        assert len(long_name) == 200
        host = await aw(server.create_room(long_name))
        code, tokens = host["code"], [host["token"]]
        status, summary = await aw(server.request("GET", f"/api/rooms/{code}"))
        assert status == 200
        assert [m["name"] for m in summary["members"]] == [long_name[:20]]
        assert await rooms() == count + 1

        for dup in (long_name, long_name[:20].upper(), f"  {long_name[:20]}\t"):
            status, body = await server.request("POST", f"/api/rooms/{code}/join", {"name": dup})
            assert status == 409, (dup, body)
        html_name = "<b>Bo</b>"
        joined = await aw(server.join(code, html_name))
        tokens.append(joined["token"])
        status, body = await server.request("POST", f"/api/rooms/{code}/join", {"name": html_name})
        assert status == 409, body
        for data in (b"{bad", b'{"name": ["x"]}', b'{"nom": "x"}'):
            status, body = await post_raw(server, f"/api/rooms/{code}/join", data)
            assert status == 422, (data, body)

        status, summary = await aw(server.request("GET", f"/api/rooms/{code}"))
        names = [m["name"] for m in summary["members"]]
        assert html_name in names and len(names) == len(tokens)
        # over the WebSocket too the name is the same text
        client = client_type(server)(server, code, joined["token"], "Bo")
        await client.connect()
        assert client.received[0]["you"]["name"] == html_name
        room = await client.wait_type("room")
        assert html_name in [m["name"] for m in room["members"]]
        await client.close()

        # The room page is the client's shell: it never echoes the path or a member's name.
        status, page = await aw(server.request("GET", "/r/%3Cscript%3Ealert(1)"))
        assert status == 404 and isinstance(page, str)
        assert "alert(1)" not in page and "%3Cscript" not in page
        status, page = await aw(server.request("GET", f"/r/{code}"))
        assert status == 200 and "<b>" not in page and "Bo" not in page

        unknown: list[tuple[str, str, Msg | None]] = [
            ("POST", f"/api/rooms/{NO_ROOM}/join", {"name": "Eve"}),
            ("GET", f"/api/rooms/{NO_ROOM}", None),
            ("GET", f"/api/rooms/{NO_ROOM}/record", None),
            ("GET", f"/r/{NO_ROOM}", None),
        ]
        for method, path, payload in unknown:
            status, body = await aw(server.request(method, path, payload))
            assert status == 404, (path, body)
        status, body = await aw(server.request("GET", f"/api/rooms/{code}/record"))
        assert status == 409, body  # no game is over yet

        # the room still works: one more join, and its members are exactly those who joined
        tokens.append((await aw(server.join(code, "Eve")))["token"])
        status, summary = await aw(server.request("GET", f"/api/rooms/{code}"))
        assert len(summary["members"]) == len(tokens) and summary["phase"] == "lobby"
        assert await rooms() == count + 1
        assert_clean_output(server, tokens)

    run(server, main)
