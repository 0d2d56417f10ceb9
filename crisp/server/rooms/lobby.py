"""A room's lasting state, apart from its games: members, host, options, seats and phase. A plain
class: ``to_state``/``from_state`` are what the store keeps; every method is a pure change of it
(the room writes, then tells everyone)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from crisp.server.rooms.members import BOT_NAMES, Member, clean_name, token_hash
from crisp.server.rooms.seeds import CLIENT_SEED_MAX, commitment
from crisp.server.wire.errors import Refused


class Phase(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    BETWEEN = "between"
    OVER = "over"


IN_GAME = frozenset({Phase.PLAYING, Phase.BETWEEN})


@dataclass
class Lobby:
    code: str
    created: float
    game_type: str
    options: dict[str, Any]
    max_seats: int
    members: dict[int, Member] = field(default_factory=dict)  # in join order
    next_member: int = 1
    host: int | None = None
    phase: Phase = Phase.LOBBY
    game_no: int = 0
    seats: list[int] = field(default_factory=list)  # member ids by seat, in the current game
    stand_ins: dict[int, str] = field(default_factory=dict)  # seat -> the level of a bot playing
    # The commit–reveal shuffle (seeds.py): the secret seed of the next game (hex; kept through
    # that game, replaced at the rematch; None in a room stored before it), and the client seeds
    # members sent in this lobby. Never sent: the room message carries the commitment only.
    server_seed: str | None = None
    client_seeds: dict[int, str] = field(default_factory=dict)  # member id -> its seed

    # -- storage ------------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "created": self.created,
            "game_type": self.game_type,
            "members": [m.to_json() for m in self.members.values()],
            "next_member": self.next_member,
            "host": self.host,
            "options": dict(self.options),
            "phase": str(self.phase),
            "game_no": self.game_no,
            "seats": list(self.seats),
            "stand_ins": {str(seat): level for seat, level in self.stand_ins.items()},
            "server_seed": self.server_seed,
            "client_seeds": {str(m): seed for m, seed in self.client_seeds.items()},
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], max_seats: int, default_game: str) -> Lobby:
        return cls(
            code=str(state["code"]),
            created=float(state["created"]),
            game_type=str(state.get("game_type", default_game)),
            options=dict(state["options"]),
            max_seats=max_seats,
            members={m["id"]: Member.from_json(m) for m in state["members"]},
            next_member=int(state["next_member"]),
            host=state["host"],
            phase=Phase(state["phase"]),
            game_no=int(state["game_no"]),
            seats=list(state["seats"]),
            stand_ins={int(seat): level for seat, level in state.get("stand_ins", {}).items()},
            server_seed=state.get("server_seed"),
            client_seeds={int(m): str(s) for m, s in state.get("client_seeds", {}).items()},
        )

    # -- queries ------------------------------------------------------------------------------

    def member_of(self, token: str) -> Member | None:
        digest = token_hash(token)
        return next((m for m in self.members.values() if m.token_hash == digest), None)

    def lobby_seats(self) -> list[int]:
        """Who would be seated if the game started now: the first ``max_seats`` members."""
        return list(self.members)[: self.max_seats]

    def current_seats(self) -> list[int]:
        return self.seats if self.phase != Phase.LOBBY else self.lobby_seats()

    def seat_of(self, member_id: int | None) -> int | None:
        if member_id is None or self.phase == Phase.LOBBY or member_id not in self.seats:
            return None
        return self.seats.index(member_id)

    def commitment(self) -> str | None:
        """SHA-256 of the server seed (None: a game dealt before the commit–reveal shuffle)."""
        return commitment(self.server_seed) if self.server_seed is not None else None

    def seeds_of(self, seats: list[int]) -> tuple[str, ...]:
        """The client seeds of ``seats`` (member ids) in seat order; ``""`` for a silent one."""
        return tuple(self.client_seeds.get(m, "") for m in seats)

    def is_bot_seat(self, seat: int) -> bool:
        return self.members[self.seats[seat]].bot is not None or seat in self.stand_ins

    # -- changes ------------------------------------------------------------------------------

    def join(self, raw_name: str, digest: str, now: float) -> Member:
        name = clean_name(raw_name)
        if any(m.name.casefold() == name.casefold() for m in self.members.values()):
            raise Refused("bad_message", f"the name {name!r} is taken in this room")
        member = Member(self.next_member, name, digest, now)
        self._add(member)
        if self.host is None:
            self.host = member.id
        return member

    def add_bot(self, level: str, now: float) -> Member:
        if len(self.lobby_seats()) >= self.max_seats:
            raise Refused("bad_phase", f"the table is full ({self.max_seats} seats)")
        taken = {m.name.casefold() for m in self.members.values()}
        name = next(
            (f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)".casefold() not in taken),
            f"Bot {self.next_member}",
        )
        member = Member(self.next_member, name, f"bot:{self.next_member}", now, level)
        self._add(member)
        return member

    def _add(self, member: Member) -> None:
        self.members[member.id] = member
        self.next_member += 1

    def remove(self, member_id: int) -> Member:
        """Remove a member; a leaving host passes the role to the next human member."""
        member = self.members.pop(member_id)
        self.client_seeds.pop(member_id, None)
        if self.host == member_id:
            self.host = next((m.id for m in self.members.values() if m.bot is None), None)
        return member

    def set_client_seed(self, member_id: int, seed: str) -> None:
        """A member's client seed for the next game (the last one sent counts)."""
        if not 1 <= len(seed) <= CLIENT_SEED_MAX:
            raise Refused("bad_message", f"seed: 1 to {CLIENT_SEED_MAX} characters")
        try:
            seed.encode("utf-8")
        except UnicodeEncodeError:
            raise Refused("bad_message", "seed: not valid Unicode text") from None
        self.client_seeds[member_id] = seed

    def pass_host(self, member_id: int) -> None:
        member = self.members.get(member_id)
        if member is None:
            raise Refused("not_found", f"there is no member {member_id}")
        if member.bot is not None:
            raise Refused("host_not_human", "a bot cannot be the host: pass it to a player")
        self.host = member_id

    def start(self, min_seats: int) -> list[int]:
        seats = self.lobby_seats()
        if len(seats) < min_seats:
            raise Refused("bad_phase", f"a game needs at least {min_seats} players (R-PLAYERS)")
        self.game_no += 1
        self.seats = seats
        self.phase = Phase.PLAYING
        self.stand_ins = {}
        return seats

    def back_to_lobby(self, server_seed: str) -> None:
        """After a game: a new lobby with a new server seed, and no client seed yet (each phone
        sends a new one once it has seen the new commitment)."""
        self.phase = Phase.LOBBY
        self.seats = []
        self.stand_ins = {}
        self.server_seed = server_seed
        self.client_seeds = {}
