"""What a room says about itself: the ``room`` message, ``you``, ``state`` and ``error``. Pure
functions of the room's state, each built in one pass over members and connections."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from crisp.server.rooms.lobby import IN_GAME, Lobby, Phase
from crisp.server.rooms.peer import Peer
from crisp.server.seam import Match
from crisp.server.wire.errors import Refused


def room_message(
    lobby: Lobby,
    version: int,
    online: Collection[int],
    match: Match | None,
    between: dict[str, Any] | None,
    record: bool,
) -> dict[str, Any]:
    """``online``: the ids of the connected members."""
    seats = {member_id: seat for seat, member_id in enumerate(lobby.current_seats())}
    absence = match.absence if match is not None and lobby.phase in IN_GAME else None
    members = []
    for m in lobby.members.values():
        seat = seats.get(m.id)
        members.append(
            {
                "id": m.id,
                "name": m.name,
                "seat": seat,
                "host": m.id == lobby.host,
                "connected": m.id in online,
                "bot": m.bot,
                "seeded": m.id in lobby.client_seeds,
                "stand_in": lobby.stand_ins.get(seat) if seat is not None else None,
                "absent": bool(
                    seat is not None and absence is not None and absence.is_absent(seat)
                ),
            }
        )
    return {
        "type": "room",
        "v": version,
        "code": lobby.code,
        "game_type": lobby.game_type,
        "phase": str(lobby.phase),
        "options": dict(lobby.options),
        "members": members,
        "game": lobby.game_no,
        "between": between if lobby.phase == Phase.BETWEEN else None,
        "record": record,
        "commitment": lobby.commitment(),
    }


def you(lobby: Lobby, conn: Peer) -> dict[str, Any]:
    member = lobby.members.get(conn.member) if conn.member is not None else None
    return {
        "member": conn.member,
        "seat": conn.seat,
        "host": conn.member is not None and conn.member == lobby.host,
        "name": member.name if member else None,
    }


def error_message(err: Refused, about: str | None, version: int) -> dict[str, Any]:
    msg = {
        "type": "error",
        "code": err.code,
        "message": err.message,
        "rule": err.rule,
        "about": about,
        "v": version,
    }
    return {k: v for k, v in msg.items() if v is not None}
