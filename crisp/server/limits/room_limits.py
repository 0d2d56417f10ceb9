"""The bounds of a room, as pure functions: how many rooms, members and watchers, the hello
deadline of a new socket, and who may be host (always a human). Each check takes counts and the
settings and returns a ``Refused`` (or raises it), so the room code calls it where it decides.

Refusals and close codes are listed in docs/limits.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from crisp.server.settings import Settings
from crisp.server.wire.closecodes import CloseCode
from crisp.server.wire.errors import ErrorCode, Refused

# Close codes of the limits (all of them are in crisp/server/wire/closecodes.py).
CLOSE_HELLO_TIMEOUT = CloseCode.HELLO_TIMEOUT
CLOSE_ROOM_FULL = CloseCode.ROOM_FULL
CLOSE_CONTROL_FLOOD = CloseCode.POLICY  # ping/pong frames far over their budget

SERVER_FULL: ErrorCode = "server_full"  # HTTP 503: rooms_max rooms are open
ROOM_FULL: ErrorCode = "room_full"  # HTTP 409 on a join; an error then 4429 on a watcher's hello
HOST_NOT_HUMAN: ErrorCode = "host_not_human"  # a host role passed to a bot


def check_room_count(open_rooms: int, settings: Settings) -> Refused | None:
    """Before creating a room: refused when ``rooms_max`` are open."""
    if open_rooms >= settings.rooms_max:
        return Refused(
            SERVER_FULL,
            f"this server has {settings.rooms_max} rooms open, its "
            "limit: try again later, or play in a room that exists",
        )
    return None


def check_join(members: int, settings: Settings) -> Refused | None:
    """Before adding a member (a player, a bot, or someone seated at the rematch)."""
    if members >= settings.room_members_max:
        return Refused(ROOM_FULL, f"this room has {settings.room_members_max} members, its limit")
    return None


def check_watcher(watchers: int, settings: Settings) -> Refused | None:
    """Before a tokenless ``hello`` (a watcher): ``watchers`` is how many watch already. The
    caller sends the error, then closes with ``CLOSE_ROOM_FULL``."""
    if watchers >= settings.room_watchers_max:
        return Refused(
            ROOM_FULL,
            f"this room has {settings.room_watchers_max} watchers, its "
            "limit: join it to play, or watch later",
        )
    return None


# -- the host -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A member as the host rule sees it."""

    id: int
    bot: bool


def next_host(members: Iterable[Candidate], current: int | None, leaving: int | None) -> int | None:
    """Who is host after ``leaving`` leaves (``None``: no one leaves): the current host if a
    human who stays, else the first human who stays, in join order; ``None`` if no human stays
    (a room of bots only has no host; the next human to join becomes it). Bots never are."""
    humans = [m.id for m in members if not m.bot and m.id != leaving]
    if current in humans:
        return current
    return humans[0] if humans else None


def check_pass_host(members: Iterable[Candidate], to: int) -> Refused | None:
    """The host passes the role to member ``to``: refused for a bot (or no such member)."""
    found = next((m for m in members if m.id == to), None)
    if found is None:
        return Refused("not_found", f"there is no member {to}")
    if found.bot:
        return Refused(HOST_NOT_HUMAN, "a bot cannot be the host: pass it to a player")
    return None


# -- the hello deadline --------------------------------------------------------------------------


@dataclass
class HelloDeadline:
    """A socket opened at ``opened`` (loop seconds) must say hello by ``opened + timeout``."""

    opened: float
    timeout: float

    @property
    def due(self) -> float:
        return self.opened + self.timeout

    def expired(self, now: float, greeted: bool) -> bool:
        return not greeted and now >= self.due


def close_if_silent(greeted: Callable[[], bool], close: Callable[[int], object]) -> bool:
    """At a socket's hello deadline: close it with ``CLOSE_HELLO_TIMEOUT`` if it has not said
    hello. True if it did."""
    if greeted():
        return False
    close(CLOSE_HELLO_TIMEOUT)
    return True


class HelloTimer:
    """The hello deadline's timer of one socket: ``close_if_silent`` ``hello_timeout_s`` seconds
    after ``accept``, cancelled by the socket's inbox at its hello or its end. It holds nothing
    once it has fired or been cancelled (memory per socket)."""

    __slots__ = ("handle",)

    def __init__(
        self, greeted: Callable[[], bool], close: Callable[[int], object], seconds: float
    ) -> None:
        loop = asyncio.get_running_loop()
        self.handle: asyncio.TimerHandle | None = loop.call_later(
            seconds, self._due, greeted, close
        )

    def _due(self, greeted: Callable[[], bool], close: Callable[[int], object]) -> None:
        self.handle = None
        close_if_silent(greeted, close)

    def when(self) -> float | None:
        """When it fires (loop seconds), or None once it has fired or been cancelled."""
        return None if self.handle is None else self.handle.when()

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


def start_hello_deadline(
    greeted: Callable[[], bool],
    close: Callable[[int], object],
    settings: Settings,
) -> HelloTimer:
    """The timer the WebSocket endpoint starts after ``accept`` (and cancels when the socket
    ends)."""
    return HelloTimer(greeted, close, settings.hello_timeout_s)
