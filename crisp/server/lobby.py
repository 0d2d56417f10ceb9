"""The lobby's changes and the bots of a room: members, options, host, rematch, bot players and
stand-ins. Part of ``Room``; every change is committed, then the new ``room`` message is sent."""

from __future__ import annotations

import logging
import time

from crisp.engine import Options
from crisp.engine.messages import encode
from crisp.server.connection import CLOSE_REMOVED
from crisp.server.members import BOT_NAMES, Member
from crisp.server.refused import Refused
from crisp.server.roombase import RoomBase

log = logging.getLogger("crisp.server")
MAX_SEATS = 8


class LobbyActions(RoomBase):
    """Part of ``Room``: lobby changes and bots."""

    # -- bots ---------------------------------------------------------------------------------

    def add_bot(self, level: str) -> None:
        """Host, lobby: a bot member, seated like a player (no token: no one can take its place)."""
        if len(self.lobby_seats()) >= MAX_SEATS:
            raise Refused("bad_phase", "the table is full (8 seats)")
        taken = {m.name.casefold() for m in self.members.values()}
        name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)".casefold() not in taken),
                    f"Bot {self.next_member}")  # fmt: skip
        member = Member(self.next_member, name, f"bot:{self.next_member}", time.time(), level)
        self.next_member += 1
        self.members[member.id] = member
        self.commit([])
        self.send_room()

    def stand_in(self, seat: int, level: str) -> None:
        """Host, mid-game: a bot plays a disconnected player's seat until they come back."""
        assert self.table is not None
        game = self.table.game
        self.stand_ins[seat] = level
        self.bots.seat(seat, level, list(game.players), game.options.to_record(), game.view(seat))
        if game.absent[seat] and not game.over:
            self.set_absent(seat, None)  # the bot plays: no more timeouts
        self.commit([])
        self.send_room()

    def release_stand_in(self, seat: int) -> None:
        """The player is back: the bot leaves the seat."""
        if self.stand_ins.pop(seat, None) is not None:
            self.bots.release(seat)
            self.commit([])
            self.send_room()

    # -- lobby --------------------------------------------------------------------------------

    def set_options(self, options: Options) -> None:
        self.options = options
        self.commit([])
        self.send_room()

    def remove(self, member_id: int, kicked: bool = True) -> None:
        member = self.members.pop(member_id)
        if self.host == member_id:
            self.host = next(iter(self.members), None)
        self.commit([])
        log.info("room %s: member %d removed", self.code, member.id)
        for conn in list(self.conns):
            if conn.member == member_id:
                if kicked:
                    self.error(conn, Refused("unauthorized", "the host removed you"), None)
                else:
                    conn.send(encode({"type": "left", "code": self.code}))
                conn.close(CLOSE_REMOVED)
        self.send_room()

    def pass_host(self, member_id: int) -> None:
        self.host = member_id
        self.commit([])
        self.send_room()

    def rematch(self) -> None:
        self.bots.clear()
        self.stand_ins = {}
        self.phase = "lobby"
        self.seats = []
        self.table = None
        self.floors = []
        for conn in self.conns:
            conn.seat = None
        self.commit([])
        self.send_room()
        for conn in self.conns:
            if conn.greeted:
                self.send_state(conn)
