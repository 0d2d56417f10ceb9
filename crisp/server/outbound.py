"""What a room sends: the ``room`` message, ``state`` snapshots, the engine's messages to each
connection entitled to them (and to the room's bots), and errors."""

from __future__ import annotations

import asyncio
from typing import Any

from crisp.engine import Out
from crisp.engine.messages import encode
from crisp.server.connection import Connection
from crisp.server.refused import Refused
from crisp.server.roombase import RoomBase


class Outbound(RoomBase):
    """Part of ``Room``: its outbound messages."""

    # -- outbound -----------------------------------------------------------------------------

    def room_message(self) -> dict[str, Any]:
        seats = self.seats if self.phase != "lobby" else self.lobby_seats()
        absent = self.table.game.absent if self.table is not None else []
        members = []
        for m in self.members.values():
            seat = seats.index(m.id) if m.id in seats else None
            members.append({
                "id": m.id, "name": m.name, "seat": seat, "host": m.id == self.host,
                "connected": self.connected(m.id), "bot": m.bot,
                "stand_in": self.stand_ins.get(seat) if seat is not None else None,
                "absent": bool(seat is not None and seat < len(absent) and absent[seat]
                               and self.phase in ("playing", "between")),
            })  # fmt: skip
        msg: dict[str, Any] = {
            "type": "room", "v": self.version, "code": self.code, "phase": self.phase,
            "options": self.options.to_record(), "members": members, "game": self.game_no,
            "between": None, "record": self.last_record is not None,
        }  # fmt: skip
        if self.phase == "between":
            loop_now = asyncio.get_running_loop().time()
            msg["between"] = {
                "waiting": self.waiting(),
                "deal_in": round(max(0.0, self.between_until - loop_now), 3),
            }
        return msg

    def send_room(self) -> None:
        text = encode(self.room_message())
        for conn in self.conns:
            if conn.greeted:
                conn.send(text)

    def you(self, conn: Connection) -> dict[str, Any]:
        member = self.members.get(conn.member) if conn.member is not None else None
        return {
            "member": conn.member,
            "seat": conn.seat,
            "host": conn.member is not None and conn.member == self.host,
            "name": member.name if member else None,
        }

    def state_message(self, conn: Connection) -> dict[str, Any]:
        table = self.table
        view = now = None
        if table is not None and table.game.rounds:
            view = table.game.view(conn.seat)
            now = self.game_now()
        return {"type": "state", "v": self.version, "now": now, "view": view,
                "you": self.you(conn)}  # fmt: skip

    def send_state(self, conn: Connection) -> None:
        conn.send(encode(self.state_message(conn)))

    def broadcast(self, outs: list[Out], v: int) -> None:
        """The engine's messages, each encoded once, to every connection entitled to it."""
        conns = [c for c in self.conns if c.greeted]
        for out in outs:
            text = encode({**out.msg, "v": v})
            for conn in conns:
                if out.for_seat(conn.seat):
                    conn.send(text)
        self.bots.observe(outs)

    def error(self, conn: Connection, err: Refused, about: str | None) -> None:
        msg = {"type": "error", "code": err.code, "message": err.message, "rule": err.rule,
               "about": about, "v": self.version}  # fmt: skip
        conn.send(encode({k: v for k, v in msg.items() if v is not None}))
