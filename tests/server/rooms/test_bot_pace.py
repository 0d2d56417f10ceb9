"""Bot pace: bots think like people, not slower. In a room of 1 human and 7
bots (Crisp, 8 seats) on the hand-moved clock (tests/support/roomkit.py), the time between the
human's turns is the rules' waits (R-WINDOW: the next player may draw 2 s after a turn ended)
plus about 1 s per bot turn: a bot's decision comes within about 1 s beyond what the rules
impose. The figure (seconds between the human's turns) is printed."""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path
from typing import Any

from roomkit import FakePhone, Kit

SEED = 5
UNTIMED = {"limit": 150, "timer": None, "take_discard": False}
PER_BOT_TURN = 1.0  # game seconds a bot's draw and play may add to the rules' waits, on average
PER_BOT_MOVE = 1.0  # and at most per move a bot makes


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _stretches(kit: Kit, turns: int) -> list[dict[str, float]]:
    """Ana plays at once whenever she may (ready, draw, discard); for each stretch from the end
    of one of her turns to her next draw in the same round: its length, the rules' waits in it
    (each ``turn_end``'s ``next_at - t``), the bot turns and the bot moves made in it."""
    room = kit.hub.create_room()
    _, token = room.join("Ana")
    ana = await FakePhone(kit, room, token, "Ana").connect()
    await ana.say({"type": "options", **UNTIMED})
    for _ in range(7):
        await ana.say({"type": "add_bot", "level": "normal"})
    answer = await ana.say({"type": "start"})
    assert not [m for m in answer if m["type"] == "error"], answer
    me = ana.seat
    assert me is not None and len(room.match.view(None)["players"]) == 8  # type: ignore[union-attr]
    out: list[dict[str, float]] = []
    ended: tuple[float, int] | None = None  # Ana's last turn_end: its time, its index in got
    seen = 0
    continued = False
    for _ in range(20_000):
        if len(out) >= turns or room.lobby.phase not in ("playing", "between"):
            break
        new = ana.got[seen:]
        seen = len(ana.got)
        for m in new:
            if m["type"] == "round":
                ended = None  # a stretch never spans two rounds
                await ana.act("ready")
        if room.lobby.phase == "between" and not continued:
            continued = True
            await ana.say({"type": "continue"})  # Ana is ready for the next round at once
        if room.lobby.phase == "playing":
            continued = False
        turn = next((m for m in reversed(ana.got) if m["type"] == "turn"), None)
        mine = (
            room.lobby.phase == "playing"
            and turn is not None
            and turn["seat"] == me
            and not _acted_since(ana, turn)
        )
        if not mine:
            when = kit.clock.next_timer()
            assert when is not None, "nothing is due while bots play"
            await kit.clock.run_until(when)
            continue
        assert turn is not None
        wait = float(turn["at"]) - room.game_now()
        if wait > 0:
            await kit.advance(wait)
        start = len(ana.got)
        drew = await ana.act("draw")
        assert not [m for m in drew if m["type"] == "error"], drew
        if ended is not None:
            t0, i0 = ended
            between = ana.got[i0:start]
            waits = sum(
                float(m["next_at"]) - float(m["t"])
                for m in between
                if m["type"] == "turn_end" and m["seat"] != me
            )
            bot_turns = sum(1 for m in between if m["type"] == "turn_end" and m["seat"] != me)
            # a draw and its play: a turn, or one of a King's extra draws (R-KING)
            draws = sum(1 for m in between if m["type"] == "draw" and m["seat"] != me)
            moves = sum(
                1
                for m in between
                if m.get("seat") not in (None, me)
                and m["type"] in {"draw", "swap", "discard", "jack", "queen", "king"}
            )
            out.append(
                {
                    "gap": float(turn["at"]) - t0,
                    "waits": waits,
                    "bot_turns": bot_turns,
                    "draws": draws,
                    "moves": moves,
                }
            )
        played = await _play_out(ana, drew)
        end = next((m for m in played if m["type"] == "turn_end" and m["seat"] == me), None)
        # the end of the round: no stretch starts here
        ended = (float(end["t"]), len(ana.got)) if end is not None else None
    return out


async def _play_out(ana: FakePhone, drew: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ana discards what she drew; a drawn King must be used (R-SPECIAL, R-KING): she uses it
    and plays its extra draws the same way. Every message of her turn from its first play."""
    got: list[dict[str, Any]] = []
    for _ in range(50):
        card = next((m.get("card") for m in reversed(drew) if m["type"] == "draw"), None)
        played = await ana.act("king" if card and card[0] == "K" else "discard")
        assert not [m for m in played if m["type"] == "error"], played
        got += played
        if any(m["type"] in {"turn_end", "reveal"} for m in played):
            return got
        drew = await ana.act("draw")
        assert not [m for m in drew if m["type"] == "error"], drew
        got += drew
    raise AssertionError("a turn of more than 50 draws")


def _acted_since(phone: FakePhone, turn: dict[str, Any]) -> bool:
    """Ana's draw of this turn was sent already (a draw message for her seat after it)."""
    i = max(i for i, m in enumerate(phone.got) if m is turn)
    return any(m["type"] == "draw" and m.get("seat") == phone.seat for m in phone.got[i + 1 :])


def test_bots_take_about_a_second_per_turn_beyond_the_rules_waits(tmp_path: Path) -> None:
    """R-WINDOW: with 8 seats, between two of the human's turns each bot
    turn (a draw and its play; a King's extra draws are played the same way, R-KING) adds about
    1 s to the rules' waits (on average at most PER_BOT_TURN), and no stretch is longer than
    the waits plus PER_BOT_MOVE per bot move."""

    async def main() -> list[dict[str, float]]:
        kit = Kit(tmp_path, fixed_seed=SEED)
        return await _stretches(kit, turns=12)

    stretches = run(main())
    assert len(stretches) >= 8, stretches
    gaps = [s["gap"] for s in stretches]
    extra = [s["gap"] - s["waits"] for s in stretches]
    bot_turns = sum(s["bot_turns"] for s in stretches)
    per_turn = sum(extra) / bot_turns
    per_draw = sum(extra) / sum(s["draws"] for s in stretches)
    print(
        f"\n8 seats, 1 human + 7 bots: {statistics.mean(gaps):.1f} s between the human's turns"
        f" (median {statistics.median(gaps):.1f}, max {max(gaps):.1f}); rules' waits"
        f" {statistics.mean(s['waits'] for s in stretches):.1f} s; bots add {per_turn:.2f} s"
        f" per bot turn, {per_draw:.2f} s per draw and play"
    )
    assert bot_turns >= 7 * len(stretches)  # every bot played between two of her turns
    assert per_draw <= PER_BOT_TURN, per_draw
    for s, e in zip(stretches, extra, strict=True):
        assert e <= PER_BOT_MOVE * s["moves"], s
