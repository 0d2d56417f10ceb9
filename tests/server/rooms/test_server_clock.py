"""The crisp window and the game clock through the real app in-process (``simserver``: the
WebSocket endpoint, the hub, the rooms and SQLite on a virtual clock): R-LOOK-PHASE, R-WINDOW,
R-WINDOW-NONE, R-CRISP, R-CRISP-ONCE, R-TIMER, R-TIMEOUT, the host's grace for an absent seat, and
the time between rounds.

Every game on this module's server uses one fixed seed (``CRISP_FIXED_SEED``), found below by
searching the engine's decks for the situation the King-chain test needs; every expected card is
derived from that seed's deck. The clients are driven by hand (``Client``, not ``Player``) so each
action is sent when the test chooses. The server's clock and these tests read the same virtual
clock, which nothing slows down: rule times are asserted exactly (``SLACK`` is 0), where a real
process needed a tick of slack and a retry on a later turn when the machine was loaded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from seeded import fixed_deck
from simserver import Client, SimServer, run

SPEED = 10.0  # game seconds per real second
BETWEEN_S = 20.0  # game seconds the reveal stays up (CRISP_BETWEEN_ROUNDS_S)
SLACK = 0.0  # real seconds of lag: none on the virtual clock
EXACT = 1e-9  # seconds: two readings of the virtual clock for one moment differ by rounding only
N = 3  # players in most tests
NAMES = ["Ana", "Ben", "Chloé", "Dan"]
Msg = dict[str, Any]


def find_seed(players: int) -> int:
    """The first seed whose round-1 deck gives the first player a King as its first draw (the
    card dealt right after the three passes), and no King right after it."""
    for seed in range(1, 10_000):
        deck = fixed_deck(seed, players)
        if deck[3 * players][0] == "K" and deck[3 * players + 1][0] != "K":
            return seed
    raise AssertionError("no seed found")  # pragma: no cover


SEED = find_seed(N)
DECK1 = fixed_deck(SEED, N)


@pytest.fixture
def server(tmp_path: Path) -> Any:
    env = {"CRISP_FIXED_SEED": str(SEED), "CRISP_BETWEEN_ROUNDS_S": str(BETWEEN_S)}
    srv = SimServer(tmp_path, clock_speed=SPEED, env=env)
    yield srv
    srv.stop()


def now() -> float:
    """The (virtual) monotonic clock the server's loop reads too."""
    return asyncio.get_running_loop().time()


# -- helpers ----------------------------------------------------------------------------------


class Stamped(list):  # type: ignore[type-arg]
    """A client's ``received`` list that also keeps each message's arrival time (monotonic)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    def append(self, item: Any) -> None:
        self.at.append(now())
        super().append(item)


def ms(t: float) -> int:
    """Game seconds (as sent, whole milliseconds) to milliseconds, for exact sums."""
    return round(t * 1000)


def kind(typ: str, **fields: Any) -> Callable[[Msg], bool]:
    return lambda m: m.get("type") == typ and all(m.get(k) == v for k, v in fields.items())


async def find(
    c: Client, pred: Callable[[Msg], bool], since: int = 0, timeout: float = 15.0
) -> int:
    """The index in ``c.received`` of the first message from ``since`` on that matches."""
    msg = await c.wait(pred, timeout, since)
    return next(i for i in range(since, len(c.received)) if c.received[i] is msg)


async def same(c: Client, msg: Msg, since: int = 0) -> int:
    """The index in ``c.received`` of the copy of ``msg`` (a broadcast: same type, v, seat)."""
    return await find(
        c,
        lambda m: (
            m.get("type") == msg["type"]
            and m.get("v") == msg["v"]
            and m.get("seat") == msg.get("seat")
        ),
        since,
    )


def member(room: Msg, seat: int) -> Msg:
    return next(m for m in room["members"] if m["seat"] == seat)


async def act(
    c: Client, do: str, accepted: Callable[[Msg], bool], **fields: Any
) -> tuple[int, Msg]:
    """Send an action; the index and message of its answer: ``accepted`` or an error."""
    since = len(c.received)
    await c.act(do, **fields)
    i = await find(c, lambda m: m.get("type") == "error" or accepted(m), since)
    return i, c.received[i]


async def refusal(c: Client, do: str) -> Msg:
    """Send an action that must be refused; its error."""
    _, msg = await act(c, do, lambda m: m.get("type") == do and m.get("seat") == c.seat)
    assert msg["type"] == "error", f"{c.label}: {do} was accepted: {msg}"
    assert msg["about"] == "act"
    return msg


async def host_message(c: Client, msg: Msg) -> Msg:
    """Send a host message (grace); the error, or the room message that follows it."""
    since = len(c.received)
    await c.send(msg)
    i = await find(c, lambda m: m.get("type") in ("error", "room"), since)
    return c.received[i]


async def table(srv: SimServer, n: int = N, **options: Any) -> tuple[list[Client], float]:
    """A started game of ``n`` seats (one client each, seat = index; seat 0 is the host), and
    the monotonic time just before the start was sent."""
    host = await srv.create_room(NAMES[0])
    code = host["code"]
    tokens = [host["token"]] + [(await srv.join(code, name))["token"] for name in NAMES[1:n]]
    clients = []
    for i, token in enumerate(tokens):
        c = Client(srv, code, token, f"seat{i}")
        c.received = Stamped()
        clients.append(await c.connect())
    if options:
        await clients[0].send(
            {"type": "options", "limit": 100, "timer": None, "take_discard": False, **options}
        )
    sent = now()
    await clients[0].send({"type": "start"})
    for c in clients:
        await c.wait_type("round")
    assert [c.seat for c in clients] == list(range(n))
    return clients, sent


async def ready_all(clients: list[Client], since: int = 0) -> int:
    """Every seat says it is ready; the index (in seat 0's list) of the first turn, once every
    client has seen it (so that each one's next action carries a current version)."""
    for c in clients:
        await c.act("ready")
    turn = clients[0].received[await find(clients[0], kind("turn", draw=1), since)]
    for c in clients:
        await same(c, turn)
    return await same(clients[0], turn)


async def draw_when_due(c: Client, turn_i: int, ref: Client | None = None) -> int:
    """Draw for ``c``'s seat once the ``turn`` message ``ref.received[turn_i]`` says it may start
    (retrying while the server's clock says it is a little early, R-WINDOW). The index of the
    seat's own ``draw`` message in ``c.received``."""
    ref = ref or c
    turn = ref.received[turn_i]
    assert turn["type"] == "turn" and turn["seat"] == c.seat
    wake = ref.received.at[turn_i] + (turn["at"] - turn["t"]) / SPEED  # type: ignore[attr-defined]
    await asyncio.sleep(max(0.0, wake - now()) + 0.02)
    for _ in range(40):
        i, msg = await act(c, "draw", kind("draw", seat=c.seat))
        if msg["type"] == "draw":
            assert msg["t"] >= turn["at"], (msg, turn)  # R-WINDOW: never before it may start
            return i
        assert (msg["code"], msg.get("rule")) == ("illegal", "R-WINDOW"), msg
        await asyncio.sleep(0.05)
    raise AssertionError(f"{c.label}: the draw never became due")


async def finish_turn(c: Client, since: int, quiet: int = 0) -> int:
    """Play the rest of ``c``'s turn from its ``draw`` message (index ``since``): a King is used,
    any other card discarded, each extra draw drawn at once. The index of the seat's turn_end.
    An error from index ``quiet`` on fails the test."""
    i = since
    while True:
        i = await find(
            c,
            lambda m: (
                m.get("type") == "error"
                or (
                    m.get("seat") == c.seat
                    and (
                        m["type"] == "turn_end"
                        or (m["type"] == "turn" and m["draw"] > 1)
                        or (m["type"] == "draw" and "card" in m)
                    )
                )
            ),
            i,
        )
        msg = c.received[i]
        i += 1
        assert msg["type"] != "error" or i <= quiet, msg
        if msg["type"] == "error":
            continue
        if msg["type"] == "turn_end":
            return i - 1
        if msg["type"] == "draw":
            await c.act("king" if msg["card"][0] == "K" else "discard")
        else:
            await c.act("draw")  # an extra draw (R-KING) is due as soon as the last is resolved


async def play_turn(c: Client, turn_i: int) -> int:
    """``c`` plays the turn announced by ``c.received[turn_i]``; the index of its turn_end."""
    return await finish_turn(c, await draw_when_due(c, turn_i))


def deck_left(msgs: list[Msg]) -> int:
    """Cards left in the deck after one round's messages, from what is public."""
    left, holding = 0, False
    for m in msgs:
        typ = m.get("type")
        if typ == "round":
            left, holding = m["deck"], False
        elif typ == "recycle":
            left = m["deck"]
        elif typ == "draw":
            left, holding = m["deck"], True
        elif typ in ("swap", "discard", "jack", "queen", "king", "take"):
            holding = False
        elif typ == "timeout":
            if not holding and m["card"] is not None:
                left -= 1  # the top card, drawn and discarded for the player (R-TIMEOUT)
            holding = False
    return left


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        await c.close()


# -- 1. the look phase ------------------------------------------------------------------------


def test_look_phase_first_turn_at_10s_or_when_everyone_is_ready(server: SimServer) -> None:
    """R-LOOK-PHASE: with nobody ready, the server's clock starts the first turn at exactly 10 s
    of game time (a draw before is refused); with every seat ready it starts at once."""

    async def main() -> None:
        clients, sent = await table(server)
        host = clients[0]
        try:
            rnd = host.received[await find(host, kind("round"))]
            assert rnd["look_until"] == 10.0
            first = rnd["first"]
            err = await refusal(clients[first], "draw")
            assert (err["code"], err.get("rule")) == ("illegal", "R-LOOK-PHASE")
            i = await find(host, kind("turn"), timeout=20)
            turn = host.received[i]
            assert {
                k: turn[k] for k in ("t", "seat", "draw", "left", "at", "deadline", "final")
            } == {
                "t": 10.0,
                "seat": first,
                "draw": 1,
                "left": 1,
                "at": 10.0,
                "deadline": None,
                "final": False,
            }
            assert not [m for m in host.received if m["type"] == "ready"]
            # No client did anything: the server's own clock, no earlier than 10 game seconds.
            assert host.received.at[i] - sent >= 10.0 / SPEED - SLACK  # type: ignore[attr-defined]
            # ... and no later: at exactly 10 game seconds (nothing lags on the virtual clock)
            assert abs(host.received.at[i] - sent - 10.0 / SPEED) < EXACT  # type: ignore[attr-defined]
        finally:
            await close_all(clients)

        clients, _ = await table(server)
        host = clients[0]
        try:
            i = await ready_all(clients)
            turn = host.received[i]
            readies = [m for m in host.received[:i] if m["type"] == "ready"]
            assert sorted(m["seat"] for m in readies) == list(range(N))
            # The last ready and the first turn are one change of the game, at once.
            assert turn["t"] == turn["at"] == readies[-1]["t"] < 10.0
            assert turn["v"] == readies[-1]["v"]
            assert turn["seat"] == host.received[await find(host, kind("round"))]["first"]
        finally:
            await close_all(clients)

    run(main)


# -- 2. a late call -----------------------------------------------------------------------------


def test_late_call_after_the_next_player_drew(server: SimServer) -> None:
    """R-WINDOW (worked case 5): a turn ends; the next player's draw before 2 s is refused with
    R-WINDOW, at 2 s or later it is allowed; the player whose turn ended calls after that draw and
    before 3 s: the call counts, the next player's turn is the first final turn (R-FINAL-TURNS);
    nobody may call again (R-CRISP-ONCE); final turns open no window and the next one may start
    at once (R-WINDOW-NONE); the round ends after the last final turn."""

    async def main() -> None:
        cs, _ = await table(server)
        try:
            host = cs[0]
            t_i = await ready_all(cs)
            c = cs[host.received[t_i]["seat"]]
            te_i = await play_turn(c, await same(c, host.received[t_i]))
            early_refused = False
            call = None
            for _attempt in range(5):
                ca = c
                te = ca.received[te_i]
                a, b = te["seat"], te["next"]
                assert ms(te["window_until"]) == ms(te["t"]) + 3000
                assert ms(te["next_at"]) == ms(te["t"]) + 2000
                cb = cs[b]
                tb_i = await find(cb, kind("turn", seat=b, draw=1), await same(cb, te))
                draw_i = None
                if not early_refused:  # at once: before the 2 s have passed
                    i, msg = await act(cb, "draw", kind("draw", seat=b))
                    if msg["type"] == "error":
                        assert (msg["code"], msg.get("rule")) == ("illegal", "R-WINDOW"), msg
                        early_refused = True
                    else:  # the server was too slow to see it early; never before 2 s anyway
                        assert msg["t"] >= te["next_at"], msg
                        draw_i = i
                if draw_i is None:
                    draw_i = await draw_when_due(cb, tb_i)
                drew = cb.received[draw_i]
                assert drew["t"] >= te["next_at"]
                # A sees B's draw, then calls.
                await same(ca, drew, te_i)
                i, msg = await act(ca, "crisp", kind("crisp"))
                if msg["type"] == "crisp":
                    call = msg
                    break
                # Too slow under load: refused only because 3 s had passed.
                assert (msg["code"], msg.get("rule")) == ("illegal", "R-WINDOW"), msg
                closed = [m for m in ca.received[te_i:i] if m["type"] == "window_closed"]
                assert [(m["seat"], m["t"]) for m in closed] == [(a, te["window_until"])]
                te_i = await finish_turn(cb, draw_i)
                c = cb
            assert early_refused, "the early draw was never refused (R-WINDOW)"
            assert call is not None, "the late call never landed in time"
            # The call counts: every other seat plays one final turn, B's (already begun) first.
            assert call["seat"] == a
            assert call["final"] == [(a + k) % N for k in range(1, N)]
            assert te["next_at"] <= drew["t"] <= call["t"] < te["window_until"]
            te_b = cb.received[await finish_turn(cb, draw_i)]
            assert te_b["window_until"] is None  # R-WINDOW-NONE: a final turn opens no window
            assert te_b["next"] == call["final"][1] and te_b["next_at"] == te_b["t"]
            err = await refusal(cb, "crisp")
            assert (err["code"], err.get("rule")) == ("illegal", "R-CRISP-ONCE")
            err = await refusal(ca, "crisp")
            assert (err["code"], err.get("rule")) == ("illegal", "R-CRISP-ONCE")
            prev = te_b
            for s in call["final"][1:]:
                cs_ = cs[s]
                t_i = await find(cs_, kind("turn", seat=s, draw=1), await same(cs_, prev))
                turn = cs_.received[t_i]
                assert turn["final"] is True and turn["at"] == prev["t"]  # may start at once
                prev = cs_.received[await play_turn(cs_, t_i)]
                assert prev["window_until"] is None
            assert prev["next"] is None and prev["next_at"] is None
            reveal = host.received[await find(host, kind("reveal"))]
            assert reveal["caller"] == a
            ends = [
                m["seat"] for m in host.received if m["type"] == "turn_end" and m["v"] > call["v"]
            ]
            assert ends == call["final"]
        finally:
            await close_all(cs)

    run(main)


# -- 3. refused calls ----------------------------------------------------------------------------


def test_refused_calls(server: SimServer) -> None:
    """R-CRISP: a call by a seat with no turn just ended, or during its own turn, is refused;
    R-WINDOW: a call after the window closed (``window_closed`` at 3 s), or after the next
    player's turn ended (worked case 6: that player's own window is open and its call counts);
    R-CRISP-ONCE: a second call in the round."""

    async def main() -> None:
        cs, _ = await table(server)
        try:
            host = cs[0]
            f = host.received[await ready_all(cs)]["seat"]
            last = (f + N - 1) % N
            err = await refusal(cs[last], "crisp")  # nobody's turn has ended yet
            assert (err["code"], err.get("rule")) == ("illegal", "R-CRISP")
            cf = cs[f]
            draw_i = await draw_when_due(cf, await find(cf, kind("turn", seat=f, draw=1)))
            err = await refusal(cf, "crisp")  # holding its drawn card: its turn has not ended
            assert (err["code"], err.get("rule")) == ("illegal", "R-CRISP")
            te_i = await finish_turn(cf, draw_i, quiet=len(cf.received))
            te = cf.received[te_i]
            wc = cf.received[await find(cf, kind("window_closed", seat=f), te_i)]
            assert wc["t"] == te["window_until"] and ms(wc["t"]) == ms(te["t"]) + 3000
            err = await refusal(cf, "crisp")
            assert (err["code"], err.get("rule")) == ("illegal", "R-WINDOW")

            # The next player (due since 2 s) plays; then the one after ends its turn before the
            # 3 s of the previous one have passed: that window closes with it.
            c = cs[te["next"]]
            te_i = await play_turn(
                c, await find(c, kind("turn", seat=c.seat, draw=1), await same(c, te))
            )
            for _attempt in range(5):
                ca = c
                te = ca.received[te_i]
                cb = cs[te["next"]]
                tb_i = await find(cb, kind("turn", seat=cb.seat, draw=1), await same(cb, te))
                teb_i = await play_turn(cb, tb_i)
                teb = cb.received[teb_i]
                j = await same(ca, teb, te_i)
                err = await refusal(ca, "crisp")
                assert (err["code"], err.get("rule")) == ("illegal", "R-WINDOW")
                if teb["t"] < te["window_until"]:
                    # Closed by the next turn's end, not by time: window_closed says so, at that
                    # turn's end, just before its turn_end.
                    closed = [
                        m for m in ca.received[te_i:j] if kind("window_closed", seat=ca.seat)(m)
                    ]
                    assert [m["t"] for m in closed] == [teb["t"]], closed
                    assert ca.received[j - 1] == closed[0], ca.received[j - 1]
                    break
                c, te_i = cb, teb_i  # too slow under load: try on the next turn
            else:
                raise AssertionError("the next turn never ended within the 3 s")
            # The player whose turn just ended may call: its window is open.
            _, call = await act(cb, "crisp", kind("crisp"))
            assert call["type"] == "crisp" and call["seat"] == cb.seat, call
            assert teb["t"] <= call["t"] < teb["window_until"]
            for c in (cb, ca):
                err = await refusal(c, "crisp")
                assert (err["code"], err.get("rule")) == ("illegal", "R-CRISP-ONCE")
        finally:
            await close_all(cs)

    run(main)


# -- 4. a timeout in a King chain ----------------------------------------------------------------


def test_timeout_in_a_king_chain(server: SimServer) -> None:
    """R-TIMER, R-TIMEOUT, R-WINDOW-NONE (with a 30 s timer): the first player draws a King (the
    seed deals one there), uses it, then does nothing; 30 s after the extra draw became due the
    server's clock times it out: no card, both extra draws lost, no card drawn for them; the turn
    ends with no window (a call is refused with R-WINDOW-NONE) and the next player may start at
    once, with the deck's next card. A grace is refused in a game with a timer."""

    async def main() -> None:
        cs, _ = await table(server, timer=30)
        try:
            host = cs[0]
            turn = host.received[await ready_all(cs)]
            f = turn["seat"]
            assert ms(turn["deadline"]) == ms(turn["at"]) + 30_000  # R-TIMER: from when due
            cf = cs[f]
            drew = cf.received[await draw_when_due(cf, await same(cf, turn))]
            assert drew["card"] == DECK1[3 * N] and drew["card"][0] == "K"
            sent = now()
            king_i, king = await act(cf, "king", kind("king", seat=f))
            assert king["type"] == "king" and king["card"] == drew["card"] and king["left"] == 2
            t2_i = await find(cf, kind("turn", seat=f, draw=2), king_i)
            t2 = cf.received[t2_i]
            assert t2["left"] == 2 and t2["at"] == king["t"]
            assert ms(t2["deadline"]) == ms(king["t"]) + 30_000
            to_i = await find(cf, kind("timeout", seat=f), t2_i, timeout=40)
            to = cf.received[to_i]
            assert (to["card"], to["lost"], to["t"]) == (None, 2, t2["deadline"])
            assert cf.received.at[to_i] - sent >= 30 / SPEED - SLACK  # type: ignore[attr-defined]
            assert abs(cf.received.at[to_i] - sent - 30 / SPEED) < EXACT  # type: ignore[attr-defined]
            te = cf.received[await find(cf, kind("turn_end", seat=f), to_i)]
            nxt = (f + 1) % N
            assert te["window_until"] is None and te["next"] == nxt and te["next_at"] == to["t"]
            err = await refusal(cf, "crisp")
            assert (err["code"], err.get("rule")) == ("illegal", "R-WINDOW-NONE")
            cn = cs[nxt]
            tn = cn.received[await find(cn, kind("turn", seat=nxt, draw=1), await same(cn, te))]
            assert (tn["at"], tn["final"]) == (to["t"], False)
            assert ms(tn["deadline"]) == ms(to["t"]) + 30_000
            _, dn = await act(cn, "draw", kind("draw", seat=nxt))  # at once: no 2 s to wait
            assert dn["type"] == "draw" and dn["card"] == DECK1[3 * N + 1], dn
            assert dn["deck"] == 52 - 3 * N - 2

            # With a per-draw time the clock already plays for absent seats: no grace.
            away = next(s for s in range(1, N) if s != nxt)
            since = len(host.received)
            await cs[away].close()
            await host.wait(
                lambda m: m["type"] == "room" and not member(m, away)["connected"], since=since
            )
            err = await host_message(host, {"type": "grace", "seat": away})
            assert (err["type"], err["code"], err["about"]) == ("error", "bad_phase", "grace")
        finally:
            await close_all(cs)

    run(main)


# -- 5. an absent player -----------------------------------------------------------------------


def test_absent_seat_times_out_after_the_grace_and_plays_again(server: SimServer) -> None:
    """The host's grace (no per-draw time), R-TIMEOUT: a seat disconnects; a grace for a
    connected seat or from a non-host is refused; after the host's grace the absent seat's draws
    time out (the deck's top card is discarded for it, no window) and the game goes on without
    it; when it reconnects during its turn it is no longer absent (a ``clock`` message with no
    deadline, ``room`` says absent false) and it plays its turn."""

    async def main() -> None:
        cs, _ = await table(server)
        try:
            host = cs[0]
            f = host.received[await ready_all(cs)]["seat"]
            x = next(s for s in range(1, N) if s != f)  # neither the host nor the first player
            y = next(s for s in range(1, N) if s != x)  # the other non-host
            since = len(host.received)
            await cs[x].close()
            room = await host.wait(
                lambda m: m["type"] == "room" and not member(m, x)["connected"], since=since
            )
            assert member(room, x)["absent"] is False
            err = await host_message(cs[y], {"type": "grace", "seat": x})
            assert (err["type"], err["code"], err["about"]) == ("error", "forbidden", "grace")
            err = await host_message(host, {"type": "grace", "seat": y})
            assert (err["type"], err["code"], err["about"]) == ("error", "bad_phase", "grace")
            room = await host_message(host, {"type": "grace", "seat": x, "seconds": 1})
            assert room["type"] == "room" and member(room, x)["absent"] is True, room

            async def play_until_x(i: int) -> int:
                """The present seats play until x's turn; the index of that turn in host."""
                while True:
                    t_i = await find(host, kind("turn", draw=1), i)
                    turn = host.received[t_i]
                    if turn["seat"] == x:
                        return t_i
                    c = cs[turn["seat"]]
                    te = c.received[await play_turn(c, await same(c, turn))]
                    i = await same(host, te, t_i) + 1

            i = 0
            for _ in range(2):  # x's draws time out, twice
                t_i = await play_until_x(i)
                turn = host.received[t_i]
                assert turn["deadline"] is not None and turn["deadline"] >= turn["at"]
                to_i = await find(host, kind("timeout", seat=x), t_i)
                to = host.received[to_i]
                expected = DECK1[52 - deck_left(host.received[:to_i])]
                assert (to["card"], to["lost"], to["t"]) == (expected, 0, turn["deadline"])
                te_i = await find(host, kind("turn_end", seat=x), to_i)
                te = host.received[te_i]
                assert te["window_until"] is None and te["next_at"] == to["t"]
                nt = host.received[await find(host, kind("turn", draw=1), te_i)]
                assert (nt["seat"], nt["at"]) == ((x + 1) % N, to["t"])  # the game goes on
                i = te_i + 1

            # A longer grace, so that x can come back during its own turn.
            room = await host_message(host, {"type": "grace", "seat": x, "seconds": 60})
            assert room["type"] == "room" and member(room, x)["absent"] is True, room
            t_i = await play_until_x(i)
            turn = host.received[t_i]
            assert turn["deadline"] is not None and turn["deadline"] > turn["at"]
            since = len(host.received)
            cx = cs[x]
            await cx.connect()
            clock = host.received[await find(host, kind("clock", seat=x), since)]
            assert clock["deadline"] is None
            await host.wait(
                lambda m: (
                    m["type"] == "room" and member(m, x)["connected"] and not member(m, x)["absent"]
                ),
                since=since,
            )
            assert cx.seat == x
            te = cx.received[await finish_turn(cx, await draw_when_due(cx, t_i, ref=host))]
            assert ms(te["window_until"]) == ms(te["t"]) + 3000  # played in full: a window
            assert not [m for m in host.received[since:] if m["type"] == "timeout"]
        finally:
            await close_all(cs)

    run(main)


# -- 6. between rounds -----------------------------------------------------------------------------


async def quick_round(cs: list[Client], number: int) -> tuple[int, float]:
    """Round ``number``: everyone ready, the first player calls crisp as its turn ends and the
    others play their final turns. The index of the reveal in seat 0's list, and a moment
    (monotonic) before the server ended the round."""
    host = cs[0]
    starts = [await find(c, kind("round", round=number)) for c in cs]
    t_i = await ready_all(cs, starts[0])
    f = host.received[t_i]["seat"]
    cf = cs[f]
    te = cf.received[await play_turn(cf, await same(cf, host.received[t_i], starts[f]))]
    _, call = await act(cf, "crisp", kind("crisp"))
    assert call["type"] == "crisp" and call["seat"] == f, call
    before = 0.0
    for s in call["final"]:
        c = cs[s]
        # the first final turn was announced as the caller's turn ended, before the call
        t_i = await find(c, kind("turn", seat=s, draw=1), await same(c, te, starts[s]))
        end_i = await play_turn(c, t_i)
        own = [
            k
            for k in range(t_i, end_i)
            if c.received[k]["type"] == "draw" and c.received[k].get("card")
        ]
        before = c.received.at[own[-1]]  # type: ignore[attr-defined]  # then it played it
    reveal_i = await find(host, kind("reveal"), starts[0])
    assert host.received[reveal_i]["caller"] == f
    return reveal_i, before


def between_room(m: Msg) -> bool:
    return m.get("type") == "room" and m["phase"] == "between"


def waiting(seats: list[int]) -> Callable[[Msg], bool]:
    """A ``room`` message between rounds that waits for exactly ``seats``."""
    return lambda m: between_room(m) and m["between"]["waiting"] == seats


def test_between_rounds_continue_or_time(server: SimServer) -> None:
    """Between rounds: after the reveal the phase is ``between`` (every connected seat waited
    for); when every connected seat has sent ``continue`` the next round is dealt at once (a seat
    that disconnected is not waited for); if a seat never continues, the next deal comes after
    ``between_rounds_s`` game seconds (the room's ``deal_in`` says so in real seconds)."""
    wait_real = BETWEEN_S / SPEED

    async def main() -> None:
        cs, _ = await table(server, n=2, limit=150)  # 3 rounds stay under 150 points
        host = cs[0]
        try:
            # Round 1: both continue, the next deal comes at once.
            reveal_i, before = await quick_round(cs, 1)
            room_i = await find(host, between_room, reveal_i)
            room = host.received[room_i]
            assert room["between"]["waiting"] == [0, 1]
            assert 0 < room["between"]["deal_in"] <= wait_real
            await cs[0].send({"type": "continue"})
            room = await host.wait(waiting([1]), since=room_i + 1)
            await cs[1].send({"type": "continue"})
            r2 = await find(host, kind("round", round=2), room_i)
            # dealt long before the time between rounds could have passed
            assert host.received.at[r2] < before + wait_real  # type: ignore[attr-defined]

            # Round 2: seat 1 never continues: the deal comes after the time between rounds.
            reveal_i, before = await quick_round(cs, 2)
            room_i = await find(host, between_room, reveal_i)
            await cs[0].send({"type": "continue"})
            room = await host.wait(waiting([1]), since=room_i + 1)
            assert 0 < room["between"]["deal_in"] <= wait_real
            r3 = await find(host, kind("round", round=3), room_i, timeout=10 + 3 * wait_real)
            assert host.received.at[r3] - before >= wait_real - SLACK  # type: ignore[attr-defined]
            # exactly between_rounds_s after the round ended (with the last play)
            assert abs(host.received.at[r3] - before - wait_real) < EXACT  # type: ignore[attr-defined]
            assert room["between"]["deal_in"] == wait_real  # seat 0 continued at once
            assert not [m for m in host.received[room_i:r3] if m["type"] == "error"]

            # Round 3: seat 1 leaves; seat 0 alone is waited for and continues: dealt at once.
            reveal_i, before = await quick_round(cs, 3)
            room_i = await find(host, between_room, reveal_i)
            await cs[1].close()
            room = await host.wait(waiting([0]), since=room_i)
            await cs[0].send({"type": "continue"})
            r4 = await find(host, kind("round", round=4), room_i)
            assert host.received.at[r4] < before + wait_real  # type: ignore[attr-defined]
        finally:
            await close_all(cs)

    run(main)
