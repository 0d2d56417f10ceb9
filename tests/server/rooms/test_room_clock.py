"""The room's timers, in-process with a hand-moved clock (no process, no sleep): R-LOOK-PHASE at
exactly 10 s, R-WINDOW's 2 s before the next draw, R-TIMER/R-TIMEOUT, the host's grace for an
absent seat, the pause when no seated player is connected (R-TIMER in full on return), the time
between rounds, the rematch (a spectator gets a seat), reconnect snapshots, recovery from the
store after a crash (downtime times no one out), and a whole game of bots."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from roomkit import FakePhone, Kit

SEED = 5
TIMED = {"limit": 50, "timer": 30, "take_discard": False}
UNTIMED = {"limit": 50, "timer": None, "take_discard": False}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def due(phones: list[FakePhone]) -> FakePhone:
    return phones[phones[0].last("turn")["seat"]]


def test_look_phase_ends_at_exactly_10s_without_ready(tmp_path: Path) -> None:
    """R-LOOK-PHASE: with no ready, the first turn comes at 10 s of game time, not a ms before."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        _room, phones = await kit.table(["Ana", "Ben"])
        await kit.advance(9.999)
        assert phones[0].of("turn") == []
        await kit.advance(0.001)
        turn = phones[0].last("turn")
        assert turn["t"] == 10.0 and turn["at"] == 10.0

    run(main())


def test_clock_speed_scales_game_time(tmp_path: Path) -> None:
    """The room's game clock runs ``clock_speed`` times as fast as the real one."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, clock_speed=10.0)
        _room, phones = await kit.table(["Ana", "Ben"])
        await kit.advance(0.999)
        assert phones[0].of("turn") == []
        await kit.advance(0.001)
        assert phones[0].last("turn")["t"] == 10.0

    run(main())


def test_next_draw_waits_2s_after_a_turn_with_a_window(tmp_path: Path) -> None:
    """R-WINDOW: after a normal turn the next seat may draw from 2 s on; a draw at 1.999 s is
    refused, one at 2 s applies; the window closes at 3 s."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room, phones = await kit.table(["Ana", "Ben"])
        for p in phones:
            await p.act("ready")
        first = due(phones)
        await first.act("draw")
        await first.act("discard")
        end = first.last("turn_end")
        nxt = phones[end["next"]]
        await kit.advance(end["next_at"] - room.game_now() - 0.001)
        early = await nxt.act("draw")
        assert early[-1]["type"] == "error" and early[-1]["rule"] == "R-WINDOW", early
        await kit.advance(0.001)
        ok = await nxt.act("draw")
        assert any(m["type"] == "draw" and "card" in m for m in ok), ok
        await kit.until(lambda: bool(first.of("window_closed")))
        assert first.last("window_closed")["t"] == end["window_until"]

    run(main())


async def first_timed_turn(kit: Kit) -> tuple[Any, list[FakePhone], dict[str, Any]]:
    """Three seats at a 30 s per-draw time, all ready: the room, the phones and the first turn."""
    room, phones = await kit.table(["Ana", "Ben", "Cleo"], options=TIMED)
    for p in phones:
        await p.act("ready")
    return room, phones, phones[0].last("turn")


def test_per_draw_timer_times_out_the_seat(tmp_path: Path) -> None:
    """R-TIMER, R-TIMEOUT: with a 30 s per-draw time, a seat that does nothing times out at 30 s
    after its draw became due; everyone is told, and the next seat plays."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room, phones, turn = await first_timed_turn(kit)
        assert turn["deadline"] == turn["at"] + 30
        await kit.advance(29.999)
        assert phones[1].of("timeout") == []
        await kit.advance(0.001)
        timeout = phones[1].last("timeout")
        assert timeout["seat"] == turn["seat"] and timeout["t"] == turn["deadline"]
        assert phones[2].last("turn")["seat"] == phones[0].last("turn_end")["next"]
        assert room.version == phones[0].last("timeout")["v"]

    run(main())


def test_grace_then_timeouts_until_the_seat_is_back(tmp_path: Path) -> None:
    """The host's grace for an absent seat (no per-draw time): after it, that seat's draws time
    out as soon as they are due (R-TIMEOUT); when it reconnects, they no longer do."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room, phones = await kit.table(["Ana", "Ben", "Cleo"], options=UNTIMED)
        for p in phones:
            await p.act("ready")
        host = phones[0]
        if due(phones) is host:  # the host plays its turn: the absent seat is another one
            await host.act("draw")
            await host.act("discard")
            await kit.advance(2)  # the next seat's draw is due (R-WINDOW)
        absent = due(phones)
        assert absent is not host
        seat = absent.seat
        assert seat is not None
        await absent.drop()
        answer = await host.say({"type": "grace", "seat": seat, "seconds": 5})
        assert not [m for m in answer if m["type"] == "error"], answer
        granted = room.game_now()
        room_msg = host.last("room")
        assert next(m for m in room_msg["members"] if m["seat"] == seat)["absent"] is True
        await kit.advance(4.999)
        assert host.of("timeout") == []
        await kit.advance(0.001)
        timeout = host.last("timeout")
        assert timeout["seat"] == seat and timeout["t"] == round(granted + 5, 3)
        back = FakePhone(kit, room, absent.token, "back")
        await back.connect()
        assert next(m for m in host.last("room")["members"] if m["seat"] == seat)["absent"] is False

    run(main())


def test_pause_when_no_seat_is_connected_and_resume_in_full(tmp_path: Path) -> None:
    """With every seated player gone, the game clock stops (an hour passes: no timeout); the
    first one back resumes it and the current draw's time restarts in full (a ``clock``)."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room, phones = await kit.table(["Ana", "Ben"], options=TIMED)
        for p in phones:
            await p.act("ready")
        await kit.advance(10)
        stopped = room.game_now()
        for p in phones:
            await p.drop()
        await kit.advance(3600)
        assert room.game_now() == stopped
        back = await FakePhone(kit, room, phones[0].token, "Ana again").connect()
        clock = back.last("clock")
        assert clock["deadline"] == round(stopped + 30, 3)
        await kit.advance(29.9)
        assert back.of("timeout") == []
        await kit.advance(0.2)
        assert back.of("timeout")

    run(main())


def test_between_rounds_continue_or_time(tmp_path: Path) -> None:
    """After a reveal every connected seat is waited for; when all continue, the next deal comes
    at once; otherwise it comes after ``between_rounds_s``."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED, between_rounds_s=20)
        room, phones = await kit.table(["Ana", "Ben"], options={**UNTIMED, "limit": 150})

        async def quick_round() -> None:
            for p in phones:
                await p.act("ready")
            first = due(phones)
            await first.act("draw")
            await first.act("discard")
            await first.act("crisp")
            await kit.advance(2)
            last = due(phones)
            await last.act("draw")
            await last.act("discard")
            assert room.lobby.phase == "between", room.lobby.phase

        await quick_round()
        assert phones[0].last("room")["between"]["waiting"] == [0, 1]
        await phones[0].say({"type": "continue"})
        assert phones[1].last("room")["between"]["waiting"] == [1]
        await phones[1].say({"type": "continue"})
        assert phones[0].last("round")["round"] == 2
        await quick_round()
        await phones[0].say({"type": "continue"})
        await kit.advance(19.9)
        assert phones[0].last("round")["round"] == 2
        await kit.advance(0.2)
        assert phones[0].last("round")["round"] == 3

    run(main())


def test_rematch_seats_the_spectator_and_reconnect_snapshots(tmp_path: Path) -> None:
    """A whole game of bots and a human who lets the clock play (R-TIMEOUT); a spectator who
    joined mid-game gets public messages only, then a seat at the rematch; a reconnecting seat's
    state is the engine's view for that seat."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room = kit.hub.create_room()
        _, token = room.join("Ana")
        ana = await FakePhone(kit, room, token, "Ana").connect()
        await ana.say({"type": "options", **TIMED})
        await ana.say({"type": "add_bot", "level": "hard"})
        await ana.say({"type": "add_bot", "level": "easy"})
        await ana.say({"type": "start"})
        _, late = room.join("Zed")
        zed = await FakePhone(kit, room, late, "Zed").connect()
        assert zed.seat is None and zed.last("state")["view"] is not None
        again = await FakePhone(kit, room, token, "Ana 2").connect()
        assert again.last("state")["view"] == room.match.view(0)  # type: ignore[union-attr]
        await again.drop()
        elapsed = await kit.jump_until(lambda: room.lobby.phase == "over")
        assert zed.of("look") == [] and all("card" not in m for m in zed.of("draw"))
        assert ana.last("game_over")["winners"]
        await ana.say({"type": "rematch"})
        assert room.lobby.phase == "lobby"
        assert [m["seat"] for m in zed.last("room")["members"] if m["name"] == "Zed"] == [3]
        print(f"a game of 1 timed-out human and 2 bots: {elapsed:.0f} s of game clock")

    run(main())


def test_recovery_after_a_crash_times_no_one_out(tmp_path: Path) -> None:
    """A crash mid-turn (the hub is dropped without closing; a new one loads the store): the
    room comes back at the same version with the same views, its clock paused at the last
    stored change; an hour of downtime times no one out; the first seat back starts the clock
    and the draw has its whole time again."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room, phones = await kit.table(["Ana", "Ben", "Cleo"], options=TIMED)
        for p in phones:
            await p.act("ready")
        await kit.advance(12.5)
        views = [room.match.view(s) for s in (None, 0, 1, 2)]  # type: ignore[union-attr]
        version = room.version
        kit.crash()
        await kit.advance(3600)  # the server is down
        kit2 = kit.reopen()
        back = kit2.hub.rooms[room.code]
        assert back.version == version
        assert [back.match.view(s) for s in (None, 0, 1, 2)] == views  # type: ignore[union-attr]
        ben = await FakePhone(kit2, back, phones[1].token, "Ben").connect()
        assert ben.of("timeout") == []
        # the clock resumes at the last stored change, and the draw's time restarts in full
        last = views[0]["round"]["t"]
        assert ben.last("state")["now"] == last
        assert views[0]["round"]["turn"]["deadline"] <= last + 30
        await kit2.advance(29.9)
        assert ben.of("timeout") == []
        await kit2.advance(0.2)
        assert ben.of("timeout")

    run(main())


def test_a_deadline_due_while_the_room_is_held_is_applied_once_it_is_free(tmp_path: Path) -> None:
    """R-TIMEOUT under the room's lock: a timer that finds the room held (a join awaiting the
    store, say) waits for it, as a message does, and then applies the deadline at its own time."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=SEED)
        room, phones, turn = await first_timed_turn(kit)
        await kit.advance(29.999)
        await room.lock.acquire()
        advancing = asyncio.ensure_future(kit.advance(0.001))
        for _ in range(20):
            await asyncio.sleep(0)
        assert phones[1].of("timeout") == [] and not advancing.done()
        room.lock.release()
        await advancing
        timeout = phones[1].last("timeout")
        assert timeout["seat"] == turn["seat"] and timeout["t"] == turn["deadline"]

    run(main())
