"""docs/protocol.md against the server, where the document once said otherwise or nothing.
Each case is checked against the server (in-process rooms on a hand-moved clock, or the app's
HTTP routes) and against the generated document, so that the two agree:

- ``GET /api/rooms/{code}``: exactly the fields the document lists (``game_type`` and
  ``commitment`` were missing);
- ``GET /healthz``: exactly the documented fields (``node``, ``version``);
- a Crisps! ``cards`` (or ``take``) string that is not in the notation: ``illegal``, CS-NOTATION,
  as docs/rules-crisps.md §10 orders (it was ``bad_message``);
- ``grace`` in a Crisps! room: ``bad_phase`` whatever the seat, and the document says so;
- ``GET /api/rooms/{code}/record`` of a Crisps! room: a ``crisps-record/1``, and the document
  names both formats;
- every Crisps! game message carries ``t``, the game time countdowns anchor on;
- ``stale`` is defined in terms of both games."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

from paths import ROOT
from roomkit import FakePhone, Kit
from simserver import SimServer
from simserver import run as sim_run

from crisp.server.rooms.room import Room

Msg = dict[str, Any]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
TIMED = {"no_faceup": False, "crisp_runs": False, "auto_skip": False, "timer": 30}


def section(title: str) -> str:
    """The text of docs/protocol.md's section ``## title`` (up to the next ``## ``)."""
    start = PROTOCOL.index(f"\n## {title}\n")
    end = PROTOCOL.find("\n## ", start + 1)
    return PROTOCOL[start : end if end > 0 else None]


def documented(route: str) -> str:
    """What the HTTP section says of ``route``, up to the next route, its lines joined."""
    http = re.sub(r"\s+", " ", section("Rooms over HTTP"))
    start = http.index(f"**`GET {route}`**")
    end = http.find("**`GET", start + 1)
    return http[start : end if end > 0 else None]


async def crisps_table(kit: Kit, options: Msg | None = None) -> tuple[Room, list[FakePhone]]:
    return await kit.table(["Ana", "Ben"], game="crisps", options=options)


def due(room: Room, phones: list[FakePhone]) -> tuple[FakePhone, Msg]:
    assert room.match is not None
    seat = room.match.view(None)["due"]["seat"]
    phone = phones[seat]
    turn = next(m for m in reversed(phone.got) if m["type"] == "turn" and m["seat"] == seat)
    return phone, turn


def a_move(turn: Msg, rng: random.Random) -> Msg:
    moves: list[Msg] = [{"do": "play", "cards": p["cards"]} for p in turn["legal"]]
    if turn["can_pass"]:
        moves.append({"do": "pass"})
    moves += [{"do": "draw", "take": t} for t in turn["take"]]
    return rng.choice(moves)


async def play_to_the_end(room: Room, phones: list[FakePhone], seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(5000):
        if room.lobby.phase == "over":
            return
        phone, turn = due(room, phones)
        answer = await phone.act(**a_move(turn, rng))
        assert not [m for m in answer if m["type"] == "error"], answer
    raise AssertionError("the game did not end")


def test_room_summary_has_exactly_the_documented_fields(tmp_path: Path) -> None:
    """``GET /api/rooms/{code}`` answers `commitment` and `game_type` besides the six
    fields the document listed "only": the document lists all eight, and the answer has exactly
    them, each with the value of the `room` message."""
    para = documented("/api/rooms/{code}")
    listed = re.findall(r"`([a-z_]+)`", para.split("fields only")[0].split("these")[-1])
    listed += re.findall(r"`([a-z_]+)`", para.split("same values:")[-1])

    async def main() -> None:
        with SimServer(tmp_path) as server:
            for game in ("crisp", "crisps"):
                status, made = await server.request(
                    "POST", "/api/rooms", {"name": "Ana", "game": game}
                )
                assert status == 201, made
                status, body = await server.request("GET", f"/api/rooms/{made['code']}")
                assert status == 200, body
                assert sorted(body) == sorted(set(listed)), (sorted(body), listed)
                assert body["game_type"] == game
                room = server.hub.rooms[made["code"]]
                assert body == {k: room.room_message()[k] for k in body}

    sim_run(main)


def test_healthz_has_exactly_the_documented_fields(tmp_path: Path) -> None:
    """``GET /healthz`` has `node` (and `version`): the document gives every field,
    `node` null for a server on its own SQLite file."""
    para = documented("/healthz")
    shown = re.search(r"`(\{\"ok\".*?\})`", para, re.S)
    assert shown is not None, para
    listed = re.findall(r'"([a-z_]+)":', shown.group(1))

    async def main() -> None:
        with SimServer(tmp_path) as server:
            status, body = await server.request("GET", "/healthz")
            assert status == 200
            assert sorted(body) == sorted(listed), (body, listed)
            assert body["node"] is None and isinstance(body["version"], str)

    sim_run(main)


def test_cs_notation_a_malformed_cards_or_take_string_is_illegal(tmp_path: Path) -> None:
    """CS-NOTATION (docs/rules-crisps.md §10: "not well formed" is the first check):
    a `cards` string that is empty or holds another character, and a `take` that is neither
    `faceup` nor `blind`, are refused `illegal` with rule CS-NOTATION, from the due seat and
    from the other one alike (the notation is checked before CS-TURN); a field that is not a
    string stays the message's shape, `bad_message`."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        room, phones = await crisps_table(kit)
        phone, _ = due(room, phones)
        other = phones[1 - phones.index(phone)]
        version = room.version
        for who in (phone, other):
            for cards in ("", "0", "3a", "x", "12 3", "\u0661"):
                err = (await who.act("play", cards=cards))[-1]
                assert err["type"] == "error", err
                assert (err["code"], err.get("rule")) == ("illegal", "CS-NOTATION"), (cards, err)
            err = (await who.act("draw", take="both"))[-1]
            assert (err["code"], err.get("rule")) == ("illegal", "CS-NOTATION"), err
            err = (await who.act("play", cards="X" * 41))[-1]  # well formed: the hand's rule
            assert err["code"] == "illegal" and err["rule"] in ("CS-HAND", "CS-TURN"), err
            err = (await who.act("play", cards=33))[-1]
            assert err["code"] == "bad_message", err
        assert room.version == version  # nothing changed
        assert "CS-NOTATION" in section("Crisps!, the second game")

    asyncio.run(main())


def test_grace_in_a_crisps_room_is_bad_phase_as_documented(tmp_path: Path) -> None:
    """`grace` in a Crisps! room is `bad_phase` for a disconnected seat and for a
    seat that does not exist alike (the game has no grace); the document's `grace` gives that
    order and its Crisps! section says so (it read as if `not_found` came first)."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        _, phones = await crisps_table(kit)
        await phones[1].drop()
        for seat in (1, 5):
            err = (await phones[0].say({"type": "grace", "seat": seat}))[-1]
            assert (err["type"], err["code"]) == ("error", "bad_phase"), err
        err = (await phones[0].say({"type": "continue"}))[-1]
        assert (err["type"], err["code"]) == ("error", "bad_phase"), err

    asyncio.run(main())
    crisps = section("Crisps!, the second game")
    assert re.search(r"\*\*`grace`\*\* is refused\s+`bad_phase` in a Crisps! room", crisps)
    grace = PROTOCOL[PROTOCOL.index('<a id="msg-grace">') :]
    grace = re.sub(r"\s+", " ", grace[: grace.index("<a id=", 1)])
    refused = grace[grace.index("**Refused:**") :]
    assert (
        refused.index("`bad_phase`") < refused.index("`not_found`") < refused.rindex("`bad_phase`")
    )
    assert "Crisps!" in refused


def test_a_crisps_room_serves_a_crisps_record_and_the_document_says_so(
    tmp_path: Path,
) -> None:
    """The HTTP section named `crisp-record/1` only; a Crisps! room's record is a
    `crisps-record/1`, served by `GET /api/rooms/{code}/record` once the game is over."""

    async def main() -> str:
        kit = Kit(tmp_path, fixed_seed=5)
        room, phones = await crisps_table(kit)
        await play_to_the_end(room, phones, 5)
        kit.store.close()
        return room.code

    code = asyncio.run(main())

    async def fetch() -> None:
        with SimServer(tmp_path) as server:
            status, body = await server.request("GET", f"/api/rooms/{code}/record")
            assert status == 200, body
            assert body["format"] == "crisps-record/1"

    sim_run(fetch)
    para = documented("/api/rooms/{code}/record")
    assert "`crisp-record/1`" in para and "`crisps-record/1`" in para


def test_every_crisps_game_message_carries_t(tmp_path: Path) -> None:
    """The document's "Time and countdowns": every game message of a Crisps! room has `t`, the game
    time it was made at (never decreasing along a phone's stream); a fresh `turn`'s deadline is
    its `t` plus the timer (CS-TIMER), and a timeout's messages carry the deadline's time."""

    async def main() -> None:
        kit = Kit(tmp_path, fixed_seed=7)
        room, phones = await crisps_table(kit, TIMED)
        rng = random.Random(3)
        for _ in range(6):
            phone, turn = due(room, phones)
            await kit.advance(2)
            await phone.act(**a_move(turn, rng))
        phone, turn = due(room, phones)
        deadline = turn["deadline"]
        await kit.jump_until(lambda: due(room, phones)[1] is not turn)
        kinds = {"game", "round", "turn", "play", "pass", "draw", "round_end", "game_over"}
        for p in phones:
            game = [m for m in p.got if m["type"] in kinds | {"clock"}]
            assert game and all(isinstance(m.get("t"), float | int) for m in game), game[:3]
            times = [m["t"] for m in game]
            assert times == sorted(times)
            for m in game:
                if m["type"] == "turn" and m["deadline"] is not None and not m.get("timeout"):
                    assert m["deadline"] >= m["t"]
            timed_out = [m for m in game if m.get("timeout")]
            assert timed_out and timed_out[0]["t"] == deadline
        assert "Every game message has `t`" in section("Crisps!, the second game")

    asyncio.run(main())


def test_stale_is_defined_for_every_game() -> None:
    """`stale` (the seat's floor) was defined in Crisp's terms only (`turn` giving a
    draw); the definition names what makes a seat's move stale in a Crisps! room too."""
    versions = PROTOCOL[PROTOCOL.index('<a id="versions"></a>') :].split("\n### ")[1]
    assert "whatever the game" in versions
    assert "in a Crisps! room a `turn` or a `clock`" in versions
