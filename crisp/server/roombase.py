"""The attributes and methods ``Room`` provides to its parts (``Outbound``, ``LobbyActions``), for
the type checker only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crisp.engine import Options
from crisp.server.connection import Connection
from crisp.server.members import Member
from crisp.server.refused import Refused
from crisp.server.seatbots import SeatBots
from crisp.server.settings import Settings
from crisp.server.table import LogEntry, Table


class RoomBase:
    """What every part of a room may use."""

    if TYPE_CHECKING:  # provided by Room
        code: str
        settings: Settings
        members: dict[int, Member]
        host: int | None
        options: Options
        phase: str
        game_no: int
        seats: list[int]
        table: Table | None
        version: int
        last_record: dict[str, Any] | None
        conns: set[Connection]
        bots: SeatBots
        stand_ins: dict[int, str]
        between_until: float
        next_member: int
        floors: list[int]

        def commit(self, entries: list[LogEntry], state: bool = True) -> int: ...
        def connected(self, member_id: int) -> bool: ...
        def lobby_seats(self) -> list[int]: ...
        def waiting(self) -> list[int]: ...
        def game_now(self) -> float: ...
        def set_absent(self, seat: int, until: float | None) -> None: ...
        def send_room(self) -> None: ...
        def send_state(self, conn: Connection) -> None: ...
        def error(self, conn: Connection, err: Refused, about: str | None) -> None: ...
