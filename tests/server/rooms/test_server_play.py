"""Playing through the real app in-process (``simserver``: the HTTP routes, the WebSocket endpoint
of each connection, the hub and SQLite, on a virtual clock: no process, no real waiting): a whole
game through the lobby, spectators, lobby management, presence, reconnection (R-LOOK-START,
R-SEE-DRAWN, R-SEE-LOOK) and action versions (stale actions, double taps).

Auto-playing ``Player``s cover the long parts; hand-driven ``Client``s the precise ones. With
``CRISP_FIXED_SEED`` the deal is known: the dealer and the deck come from ``Fairness.from_int``
(tests/support/seeded.py); the hands follow from the deal rule (R-DEAL), computed here from first
principles.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import simserver
from leakcheck import card_codes, check_view
from seeded import fixed_deck, fixed_fairness, fixed_first_dealer
from simserver import Client, Player, SimServer, sleep

from crisp.engine.crisp.record import replay

SLOTS = ("left", "middle", "right")
LONG = 60.0  # seconds: a generous wait for a whole game on a loaded machine


# -- helpers ----------------------------------------------------------------------------------


def run(make: Callable[[], Awaitable[None]], limit: float = 150.0) -> None:
    async def main() -> None:
        await make()

    simserver.run(main, limit)


@contextlib.contextmanager
def server(tmp_path: Path, speed: float, seed: int | None = None) -> Iterator[SimServer]:
    """The app (started inside ``run``'s loop: see ``main``)."""
    env = {} if seed is None else {"CRISP_FIXED_SEED": str(seed)}
    srv = SimServer(tmp_path, clock_speed=speed, env=env)
    try:
        yield srv
    finally:
        srv.stop()


async def close_all(*clients: Client) -> None:
    for c in clients:
        if isinstance(c, Player):
            await c.stop_playing()
        await c.close()


def deal(seed: int, n: int) -> tuple[int, list[str], list[list[str]]]:
    """Round 1 of a seeded game: the first seat (left of the dealer), the deck (top first) and
    each seat's hand, dealt one card at a time starting left of the dealer (R-DEAL)."""
    deck = fixed_deck(seed, n)
    first = (fixed_first_dealer(seed, n) + 1) % n
    hands = [["", "", ""] for _ in range(n)]
    for slot in range(3):
        for k in range(n):
            hands[(first + k) % n][slot] = deck[slot * n + k]
    return first, deck, hands


def seed_with_plain_first_draw(n: int) -> int:
    """A seed whose first card drawn from the deck (right after the 3n dealt) is not a face, so
    it can be swapped or discarded without a special power."""
    return next(s for s in range(1, 10_000) if fixed_deck(s, n)[3 * n][0] not in "JQK")


def partial_record(seed: int, players: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """Enough of a record of round 1 for the independent leak checker (deck and dealer, and the
    public fairness of a game in play: the commitment and the client seeds)."""
    return {
        "players": players,
        "options": options,
        "shuffle": "hmac-sha256/1",
        "fairness": fixed_fairness(seed, len(players)),
        "rounds": [
            {
                "dealer": fixed_first_dealer(seed, len(players)),
                "deck": fixed_deck(seed, len(players)),
                "actions": [],
            }
        ],
    }


def member_row(room_msg: dict[str, Any], member: int) -> dict[str, Any] | None:
    rows = [m for m in room_msg["members"] if m["id"] == member]
    return rows[0] if rows else None


def room_where(member: int, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A ``room`` message in which ``member``'s row has ``fields``."""

    def pred(m: dict[str, Any]) -> bool:
        if m.get("type") != "room":
            return False
        row = member_row(m, member)
        return row is not None and all(row.get(k) == v for k, v in fields.items())

    return pred


def without(member: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") == "room" and member_row(m, member) is None


async def settle(c: Client) -> dict[str, Any]:
    """Ask for a fresh ``state``: everything the server sent before it has arrived by then."""
    mark = len(c.received)
    await c.send({"type": "sync"})
    return await c.wait_type("state", since=mark)


async def error_after(c: Client, mark: int, about: str) -> dict[str, Any]:
    return await c.wait(lambda m: m["type"] == "error" and m.get("about") == about, since=mark)


def engine_since(c: Client, mark: int, typ: str, **fields: Any) -> list[dict[str, Any]]:
    return [
        m
        for m in c.received[mark:]
        if m.get("type") == typ and all(m.get(k) == v for k, v in fields.items())
    ]


async def wait_until_due(c: Client, turn: dict[str, Any]) -> None:
    """Sleep until the game time of a ``turn``'s ``at`` has passed on the server (R-WINDOW)."""
    await sleep(max(0.0, turn["at"] - turn["t"]) / c.server.clock_speed + 0.1)


async def started_pair(srv: SimServer) -> tuple[Client, Client]:
    """A room of two hand-driven seats (Ana hosts), started; both have the round message."""
    host = await srv.create_room("Ana")
    ben = await srv.join(host["code"], "Ben")
    a = await Client(srv, host["code"], host["token"], "Ana").connect()
    b = await Client(srv, host["code"], ben["token"], "Ben").connect()
    await a.send({"type": "start"})
    for c in (a, b):
        await c.wait_type("round", round=1)
    assert {a.seat, b.seat} == {0, 1}
    return a, b


# -- 1. a whole game through the lobby --------------------------------------------------------


def test_whole_game_through_the_lobby(tmp_path: Path) -> None:
    """Lobby → options → start → play to game_over → record (409 then 200, replays to the same
    totals and winners, R-GAME-END) → phase over → rematch back to the lobby. A code typed in
    lower case with spaces is redirected to its canonical spelling (its WebSocket is served as
    typed); only the host may set options, start, rematch."""

    async def main(srv: SimServer) -> None:
        srv.start()
        host = await srv.create_room("Ana")
        code = host["code"]
        assert host["seat"] == 0
        ben = await srv.join(code, "Ben")
        typed = f" {code[:2].lower()} {code[2:].lower()} "  # as someone would type it
        # Another spelling is redirected (308) to the canonical path.
        status, _ = await srv.request("POST", f"/api/rooms/{quote(typed)}/join", {"name": "C"})
        assert status == 308
        chloe = await srv.join(code, "Chloé")
        assert chloe["code"] == code and chloe["seat"] == 2
        assert (await srv.request("GET", f"/api/rooms/{quote(typed)}"))[0] == 308
        status, summary = await srv.request("GET", f"/api/rooms/{code}")
        assert status == 200 and summary["code"] == code
        ps = [
            Player(srv, code, host["token"], "Ana", seed=1),
            Player(srv, code, ben["token"], "Ben", seed=2),
            Player(srv, quote(typed), chloe["token"], "Chloé", seed=3),
        ]
        try:
            for p in ps:
                await p.connect()
            ana, ben_c, chloe_c = ps

            options = {"limit": 50, "timer": 30, "take_discard": True}
            await ana.send({"type": "options", **options})
            for p in ps:
                await p.wait(lambda m: m["type"] == "room" and m["options"] == options)

            # Non-hosts are refused, and nothing changes.
            mark = len(ben_c.received)
            await ben_c.send(
                {"type": "options", "limit": 150, "timer": None, "take_discard": False}
            )
            assert (await error_after(ben_c, mark, "options"))["code"] == "forbidden"
            await chloe_c.send({"type": "start"})
            assert (await error_after(chloe_c, 0, "start"))["code"] == "forbidden"
            status, summary = await srv.request("GET", f"/api/rooms/{code}")
            assert (summary["phase"], summary["options"], summary["game"]) == ("lobby", options, 0)

            await ana.send({"type": "start"})
            for i, p in enumerate(ps):
                game = await p.wait_type("game")
                assert game["options"] == options
                assert game["players"] == ["Ana", "Ben", "Chloé"]
                assert p.seat == i  # seated in join order
            status, body = await srv.request("GET", f"/api/rooms/{code}/record")
            assert status == 409, body  # the record holds the deck order: not before the end

            for p in ps:
                p.start_playing()
            overs = [await p.wait_type("game_over", timeout=LONG) for p in ps]
            for p in ps:
                await p.stop_playing()
            assert overs[0] == overs[1] == overs[2]

            status, record = await srv.request("GET", f"/api/rooms/{code}/record")
            assert status == 200, record
            assert record["players"] == ["Ana", "Ben", "Chloé"] and record["options"] == options
            result = replay(record).result
            assert result["over"] is True
            assert result["totals"] == overs[0]["totals"]
            assert result["winners"] == overs[0]["winners"]
            assert max(result["totals"]) >= options["limit"]  # R-GAME-END

            for p in ps:
                await p.wait(lambda m: m["type"] == "room" and m["phase"] == "over")
            assert (await srv.request("GET", f"/api/rooms/{code}"))[1]["phase"] == "over"

            mark = len(ben_c.received)
            await ben_c.send({"type": "rematch"})
            assert (await error_after(ben_c, mark, "rematch"))["code"] == "forbidden"
            marks = [len(p.received) for p in ps]
            await ana.send({"type": "rematch"})
            for p, mark in zip(ps, marks, strict=True):
                back = await p.wait(
                    lambda m: m["type"] == "room" and m["phase"] == "lobby", since=mark
                )
                assert [m["name"] for m in back["members"]] == ["Ana", "Ben", "Chloé"]
                assert back["options"] == options  # the room keeps its options
            assert (await srv.request("GET", f"/api/rooms/{code}"))[1]["phase"] == "lobby"
        finally:
            await close_all(*ps)

    with server(tmp_path, speed=20) as srv:
        run(lambda: main(srv))


# -- 2. spectators ----------------------------------------------------------------------------


def test_spectator_gets_public_messages_only_then_a_seat_at_the_rematch(tmp_path: Path) -> None:
    """Someone who joins after the start is a spectator (seat null): no ``look``, ``draw``
    without ``card`` (R-SEE-DRAWN, R-SEE-LOOK), only messages the table sees too; a watcher with
    no token likewise. After the game and a rematch the spectator has a seat, and its looks."""

    async def main(srv: SimServer) -> None:
        srv.start()
        host = await srv.create_room("Ana")
        code = host["code"]
        ben = await srv.join(code, "Ben")
        ps = [
            Player(srv, code, host["token"], "Ana", seed=4),
            Player(srv, code, ben["token"], "Ben", seed=5),
        ]
        watchers: list[Client] = []
        try:
            for p in ps:
                await p.connect()
            await ps[0].send({"type": "options", "limit": 50, "timer": None, "take_discard": True})
            await ps[0].send({"type": "start"})
            for p in ps:
                await p.wait_type("game")

            dan = await srv.join(code, "Dan")
            assert dan["seat"] is None
            spec = Client(srv, code, dan["token"], "Dan")
            watch = Client(srv, code, None, "watcher")
            watchers += [spec, watch]
            for c in watchers:
                await c.connect()
                state = await c.wait_type("state")
                assert state["you"]["seat"] is None and c.seat is None
                assert state["view"] is not None and "you" not in state["view"]["round"]
            assert spec.member == dan["member"] and watch.member is None
            room = await spec.wait_type("room")
            assert member_row(room, dan["member"])["seat"] is None  # type: ignore[index]

            for p in ps:
                p.start_playing()
            over = await spec.wait_type("game_over", timeout=LONG)
            await watch.wait_type("game_over", timeout=LONG)
            for p in ps:
                await p.wait_type("game_over", timeout=LONG)
                await p.stop_playing()
            assert ps[0].received.count(over) == 1

            seated = [m for p in ps for m in p.received]
            for c in watchers:
                engine = c.engine_stream()
                assert [m for m in engine if m["type"] == "look"] == []
                draws = [m for m in engine if m["type"] == "draw"]
                assert draws, "the spectator saw no draw at all"
                assert all("card" not in m for m in draws), draws
                for m in c.received:  # nothing the seats were not sent as well (public)
                    if m["type"] in ("turn", "draw", "swap", "discard", "reveal", "game_over"):
                        assert m in seated, m

            # Rematch: the spectator is seated (a non-member watcher is not a member).
            mark = len(spec.received)
            await ps[0].send({"type": "rematch"})
            back = await spec.wait(
                lambda m: m["type"] == "room" and m["phase"] == "lobby", since=mark
            )
            assert member_row(back, dan["member"])["seat"] == 2  # type: ignore[index]
            assert all(m["seat"] is not None for m in back["members"])
            # The rematch sends ``room`` and then a ``state`` (no seat in the lobby): wait for
            # that state too, or it could be taken for the start's (the race of ``room`` then
            # ``state``).
            lobby_state = await spec.wait(
                lambda m: m["type"] == "state" and m["v"] == back["v"], since=mark
            )
            assert lobby_state["view"] is None and lobby_state["you"]["seat"] is None

            # ... and in the next game it plays: it gets its own looks (R-LOOK-START).
            mark = len(spec.received)
            await ps[0].send({"type": "start"})
            state = await spec.wait_type("state", since=mark)
            assert state["you"]["seat"] == 2 == spec.seat
            looks = [await spec.wait_type("look", since=mark, slot=s) for s in ("left", "right")]
            assert all(m["seat"] == 2 and m["why"] == "deal" for m in looks)
        finally:
            await close_all(*ps, *watchers)

    with server(tmp_path, speed=20) as srv:
        run(lambda: main(srv))


# -- 3. lobby management ----------------------------------------------------------------------


def test_lobby_kick_pass_host_leave_and_start_alone(tmp_path: Path) -> None:
    """Host ``kick`` (close 4409, the token stops working: 4401), ``host`` (the role moves: the
    old host is refused, the new one allowed), ``leave`` (a leaving host passes the role on), and
    ``start`` with one member refused (R-PLAYERS: at least 2)."""

    async def main(srv: SimServer) -> None:
        srv.start()
        created = await srv.create_room("Hana")
        code = created["code"]
        joined = [created, *[await srv.join(code, name) for name in ("Bo", "Cy", "Di")]]
        names = ("Hana", "Bo", "Cy", "Di")
        cs = [Client(srv, code, j["token"], nm) for j, nm in zip(joined, names, strict=True)]
        hana, bo, cy, di = cs
        ids = [j["member"] for j in joined]
        try:
            for c in cs:
                await c.connect()

            # Only the host may kick; nobody kicks themselves.
            mark = len(cy.received)
            await cy.send({"type": "kick", "member": ids[1]})
            assert (await error_after(cy, mark, "kick"))["code"] == "forbidden"

            marks = [len(c.received) for c in cs]
            await hana.send({"type": "kick", "member": ids[1]})
            await bo.closed.wait()
            assert bo.close_code == 4409
            assert bo.errors(), "the removed member is told why"
            for c, mark in ((hana, marks[0]), (cy, marks[2]), (di, marks[3])):
                await c.wait(without(ids[1]), since=mark)
            summary = (await srv.request("GET", f"/api/rooms/{code}"))[1]
            assert [m["id"] for m in summary["members"]] == [ids[0], ids[2], ids[3]]
            assert [m["seat"] for m in summary["members"]] == [0, 1, 2]

            again = Client(srv, code, joined[1]["token"], "Bo again")
            await again.connect()
            await again.closed.wait()
            assert again.close_code == 4401
            assert again.errors("unauthorized")

            # Pass the host role to Cy.
            mark = len(hana.received)
            await hana.send({"type": "host", "member": ids[2]})
            room = await hana.wait(room_where(ids[2], host=True), since=mark)
            assert member_row(room, ids[0])["host"] is False  # type: ignore[index]
            mark = len(hana.received)
            await hana.send({"type": "options", "limit": 100, "timer": 45, "take_discard": False})
            assert (await error_after(hana, mark, "options"))["code"] == "forbidden"
            new = {"limit": 150, "timer": 60, "take_discard": True}
            await cy.send({"type": "options", **new})
            for c in (hana, cy, di):
                await c.wait(lambda m: m["type"] == "room" and m["options"] == new)

            # Di leaves; then the host Cy leaves and the role passes to Hana.
            mark = len(hana.received)
            await di.send({"type": "leave"})
            await hana.wait(without(ids[3]), since=mark)
            mark = len(hana.received)
            await cy.send({"type": "leave"})
            room = await hana.wait(without(ids[2]), since=mark)
            assert [(m["id"], m["host"]) for m in room["members"]] == [(ids[0], True)]

            # Alone: start is refused and the room stays in the lobby.
            mark = len(hana.received)
            await hana.send({"type": "start"})
            err = await error_after(hana, mark, "start")
            assert err["code"] == "bad_phase", err
            summary = (await srv.request("GET", f"/api/rooms/{code}"))[1]
            assert (summary["phase"], summary["game"]) == ("lobby", 0)
            assert engine_since(hana, 0, "game") == []
        finally:
            await close_all(*cs)

    with server(tmp_path, speed=5) as srv:
        run(lambda: main(srv))


# -- 4. presence ------------------------------------------------------------------------------


def test_presence_of_a_seat_that_drops_and_comes_back(tmp_path: Path) -> None:
    """Mid-game, a seated player's socket closes: the others get a ``room`` message with that
    member ``connected: false``; it reconnects to the same seat: ``connected: true``."""

    async def main(srv: SimServer) -> None:
        srv.start()
        host = await srv.create_room("Ana")
        code = host["code"]
        joined = [host, await srv.join(code, "Ben"), await srv.join(code, "Chloé")]
        cs = [Client(srv, code, j["token"], f"member {j['member']}") for j in joined]
        try:
            for c in cs:
                await c.connect()
            await cs[0].send({"type": "start"})
            for c in cs:
                await c.wait_type("round", round=1)
            ana, ben, chloe = cs
            seat = ben.seat
            assert seat == 1
            me = joined[1]["member"]
            for c in cs:
                await c.wait(room_where(me, connected=True, seat=1))

            marks = [len(c.received) for c in cs]
            await ben.close()
            for c, mark in ((ana, marks[0]), (chloe, marks[2])):
                room = await c.wait(room_where(me, connected=False), since=mark)
                assert room["phase"] in ("playing", "between")
                assert member_row(room, me)["seat"] == seat  # type: ignore[index]
                assert all(m["connected"] for m in room["members"] if m["id"] != me)

            marks = [len(c.received) for c in cs]
            await ben.connect()
            state = await ben.wait_type("state", since=marks[1])
            assert state["you"]["seat"] == seat and state["view"]["round"]["you"]["seat"] == seat
            for c, mark in zip(cs, marks, strict=True):
                await c.wait(room_where(me, connected=True, seat=seat), since=mark)
        finally:
            await close_all(*cs)

    with server(tmp_path, speed=5) as srv:
        run(lambda: main(srv))


# -- 5. reconnection --------------------------------------------------------------------------


def test_reconnect_mid_look_and_mid_turn(tmp_path: Path) -> None:
    """R-LOOK-START / R-SEE-LOOK: a seat reconnecting in the look phase before it is ready sees
    its left and right cards again (the same as its ``look`` messages); once ready, a ``sync``
    shows no looks. R-SEE-DRAWN: a seat that drew, dropped and came back holds its drawn card in
    the view, with the turn, and can play it. No view shows another seat's cards (checked by the
    independent leak checker)."""
    n = 2
    seed = seed_with_plain_first_draw(n)
    first, deck, hands = deal(seed, n)
    speed = 2.0  # the look lasts 10 game seconds: 5 s of real time for the reconnect

    async def main(srv: SimServer) -> None:
        srv.start()
        a, b = await started_pair(srv)
        me, other = (a, b) if a.seat == first else (b, a)
        try:
            game = await me.wait_type("game")
            record = partial_record(seed, game["players"], game["options"])

            looks = {
                m["slot"]: m["card"]
                for m in [await me.wait_type("look", slot=s) for s in ("left", "right")]
            }
            assert looks == {"left": hands[first][0], "right": hands[first][2]}  # R-LOOK-START

            # Drop and come back before saying ready: the look is still open.
            await me.close()
            mark = len(me.received)
            await me.connect()
            state = await me.wait_type("state", since=mark)
            view = state["view"]
            assert view["round"]["phase"] == "look", "the look phase ended before the reconnect"
            you = view["round"]["you"]
            assert you["seat"] == first and you["card"] is None
            assert {lk["slot"]: lk["card"] for lk in you["looks"]} == looks
            assert all(lk["why"] == "deal" for lk in you["looks"])
            assert check_view(record, me.engine_stream(), first, view) == []

            # Ready: the look is over for this seat, a sync no longer shows it.
            mark = len(me.received)
            await me.act("ready")
            await me.wait_type("ready", since=mark, seat=first)
            assert me.errors() == []  # accepted, so still within the look phase
            view = (await settle(me))["view"]
            assert view["round"]["you"]["looks"] == []
            assert set(card_codes(view)) <= {c for c in [view["round"]["top"]] if c}
            assert check_view(record, me.engine_stream(), first, view) == []

            # The other seat is ready too: the first turn is due at once (R-LOOK-PHASE).
            mark = len(me.received)
            await other.act("ready")
            turn = await me.wait_type("turn", since=mark, seat=first)
            await wait_until_due(me, turn)
            mark_other = len(other.received)
            await me.act("draw")
            drew = await me.wait_type("draw", since=mark, seat=first)
            assert drew["card"] == deck[3 * n]  # the top of the deck after the deal
            public = await other.wait_type("draw", since=mark_other, seat=first)
            assert "card" not in public

            # Drop while holding the drawn card, come back: it is still ours, with the turn.
            await me.close()
            mark = len(me.received)
            await me.connect()
            view = (await me.wait_type("state", since=mark))["view"]
            rnd = view["round"]
            assert rnd["phase"] == "play"
            assert rnd["turn"]["seat"] == first and rnd["turn"]["holding"] is True
            assert rnd["you"]["card"] == drew["card"] and rnd["you"]["looks"] == []
            assert check_view(record, me.engine_stream(), first, view) == []
            assert not set(card_codes(view)) & set(hands[1 - first])
            view_other = (await settle(other))["view"]
            assert view_other["round"]["you"]["card"] is None
            assert drew["card"] not in card_codes(view_other)
            assert check_view(record, other.engine_stream(), 1 - first, view_other) == []

            # It plays the card it holds, and the game goes on with the next seat.
            mark, mark_other = len(me.received), len(other.received)
            await me.act("swap", slot="left")
            swap = await other.wait_type("swap", since=mark_other, seat=first)
            assert swap["slot"] == "left" and swap["card"] == hands[first][0]
            turn = await other.wait_type("turn", since=mark_other, seat=1 - first)
            await me.wait_type("turn", since=mark, seat=1 - first)
            await wait_until_due(other, turn)
            await other.act("draw")
            drew = await other.wait_type("draw", since=mark_other, seat=1 - first)
            assert drew["card"] == deck[3 * n + 1]
            assert me.errors() == [] and other.errors() == []
        finally:
            await close_all(a, b)

    with server(tmp_path, speed=speed, seed=seed) as srv:
        run(lambda: main(srv))


# -- 6. versions ------------------------------------------------------------------------------


def test_action_versions_stale_double_tap_and_bad_version(tmp_path: Path) -> None:
    """An action with a ``v`` older than the seat's last own action, or than the ``turn`` that
    made its draw due, is refused ``stale`` and changes nothing; a double tap (the same action
    twice with the same ``v``) applies once; a ``v`` from the future is ``bad_version``."""
    n = 2
    seed = seed_with_plain_first_draw(n)
    first, deck, hands = deal(seed, n)

    async def main(srv: SimServer) -> None:
        srv.start()
        a, b = await started_pair(srv)
        me, other = (a, b) if a.seat == first else (b, a)
        try:
            # The first seat is ready first, so its floor comes from the turn message alone.
            await me.act("ready")
            await other.wait_type("ready", seat=first)
            await other.act("ready")
            turn = await me.wait_type("turn", seat=first)
            t_v = turn["v"]
            await wait_until_due(me, turn)

            async def unchanged(v: int, holding: bool) -> None:
                for c in (me, other):
                    state = await settle(c)
                    assert state["v"] == v
                    assert state["view"]["round"]["turn"]["holding"] is holding

            # Stale: older than the turn that made the draw due.
            marks = len(me.received), len(other.received)
            await me.act("draw", v=t_v - 1)
            assert (await error_after(me, marks[0], "act"))["code"] == "stale"
            await unchanged(t_v, holding=False)
            assert engine_since(me, marks[0], "draw") == engine_since(other, marks[1], "draw") == []

            # Double tap of draw: one draw.
            marks = len(me.received), len(other.received)
            await me.act("draw", v=t_v)
            await me.act("draw", v=t_v)
            drew = await me.wait_type("draw", since=marks[0], seat=first)
            assert drew["card"] == deck[3 * n]
            second = await error_after(me, marks[0], "act")
            assert second["code"] in ("stale", "illegal"), second
            d_v = drew["v"]
            await unchanged(d_v, holding=True)
            assert len(engine_since(me, marks[0], "draw")) == 1
            assert len(engine_since(other, marks[1], "draw")) == 1

            # Stale: older than the seat's own last action (the draw).
            mark = len(me.received)
            await me.act("discard", v=t_v)
            assert (await error_after(me, mark, "act"))["code"] == "stale"
            # From the future: bad_version.
            mark = len(me.received)
            await me.act("swap", v=d_v + 50, slot="left")
            assert (await error_after(me, mark, "act"))["code"] == "bad_version"
            await unchanged(d_v, holding=True)
            assert engine_since(me, mark, "discard") == engine_since(me, mark, "swap") == []

            # Double tap of swap: one swap, then the turn passes.
            marks = len(me.received), len(other.received)
            await me.act("swap", v=d_v, slot="left")
            await me.act("swap", v=d_v, slot="left")
            swap = await me.wait_type("swap", since=marks[0], seat=first)
            assert swap["card"] == hands[first][0]
            second = await error_after(me, marks[0], "act")
            assert second["code"] in ("stale", "illegal"), second
            turn = await other.wait_type("turn", since=marks[1], seat=1 - first)
            s_v = turn["v"]
            await settle(me)
            await settle(other)
            for c, mark in zip((me, other), marks, strict=True):
                assert len(engine_since(c, mark, "swap")) == 1
                assert len(engine_since(c, mark, "discard")) == 0

            # The other seat: a v older than its turn message is stale, even though it did not
            # act since; the same draw with the current v applies.
            mark = len(other.received)
            await other.act("draw", v=s_v - 1)
            assert (await error_after(other, mark, "act"))["code"] == "stale"
            assert engine_since(other, mark, "draw") == []
            await wait_until_due(other, turn)
            await other.act("draw", v=s_v)
            drew = await other.wait_type("draw", since=mark, seat=1 - first)
            assert drew["card"] == deck[3 * n + 1]
            assert len(engine_since(other, mark, "draw")) == 1
        finally:
            await close_all(a, b)

    with server(tmp_path, speed=5, seed=seed) as srv:
        run(lambda: main(srv))
