"""Who may send which message, in which phases, and what it does: one table.

A message arrives parsed (``parse.py``); ``dispatch`` looks up its handler, refuses it if the
sender or the phase is wrong (``forbidden``, ``bad_phase``), then calls it with the room, the
connection and the message. Handlers are short: the room does the work through its pipeline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from crisp.engine.common.messages import encode
from crisp.server.rooms.lobby import IN_GAME, Phase
from crisp.server.rooms.peer import Peer
from crisp.server.rooms.room import Room
from crisp.server.seam import BadFields, Fields
from crisp.server.wire import protocol as P
from crisp.server.wire.errors import Refused


class Who(Enum):
    ANYONE = "anyone"  # every greeted connection, watchers included
    MEMBER = "member"  # a member of the room (with a seat token)
    HOST = "host"  # the host


ALL_PHASES = frozenset(Phase)


@dataclass(frozen=True)
class Handler:
    run: Callable[[Room, Peer, Any], None]
    who: Who
    phases: frozenset[Phase] = ALL_PHASES
    wrong_phase: str = ""
    shape: Callable[[Room, Any], Any] | None = None  # the game's check of its own fields, first


def _game_fields(check: Callable[[Fields], Fields], msg: Any) -> Fields:
    try:
        return check(dict(msg.model_extra or {}))
    except BadFields as err:
        raise Refused("bad_message", str(err)) from err


def _move_shape(room: Room, msg: P.Act) -> tuple[int, Fields]:
    return msg.v, _game_fields(room.check_move, msg)


def _options_shape(room: Room, msg: P.SetOptions) -> Fields:
    return _game_fields(room.spec.check_options, msg)


def _ping(room: Room, conn: Peer, msg: P.Ping) -> None:
    conn.send(encode({"type": "pong", "n": msg.n}))


def _client_seed(room: Room, conn: Peer, msg: P.ClientSeed) -> None:
    assert conn.member is not None
    room.client_seed(conn.member, msg.seed)


def _probe_ack(room: Room, conn: Peer, msg: P.ProbeAck) -> None:
    room.probe_ack(conn, msg.n)


def _sync(room: Room, conn: Peer, msg: P.Sync) -> None:
    room.send_state(conn)


def _act(room: Room, conn: Peer, move: tuple[int, Fields]) -> None:
    room.move(conn, *move)


def _continue(room: Room, conn: Peer, msg: P.Continue) -> None:
    room.go_on(conn)


def _leave(room: Room, conn: Peer, msg: P.Leave) -> None:
    assert conn.member is not None
    room.remove(conn.member, kicked=False)


def _options(room: Room, conn: Peer, options: Fields) -> None:
    room.set_options(options)


def _start(room: Room, conn: Peer, msg: P.Start) -> None:
    room.start()


def _kick(room: Room, conn: Peer, msg: P.Kick) -> None:
    if msg.member == conn.member and msg.member in room.lobby.members:
        raise Refused("bad_message", "to leave, send leave")
    room.remove(msg.member)


def _host(room: Room, conn: Peer, msg: P.PassHost) -> None:
    room.pass_host(msg.member)


def _rematch(room: Room, conn: Peer, msg: P.Rematch) -> None:
    room.rematch()


def _grace(room: Room, conn: Peer, msg: P.Grace) -> None:
    room.grace(msg.seat, msg.seconds)


def _add_bot(room: Room, conn: Peer, msg: P.AddBot) -> None:
    room.add_bot(msg.level)


def _stand_in(room: Room, conn: Peer, msg: P.StandIn) -> None:
    room.stand_in(msg.seat, msg.level)


LOBBY = frozenset({Phase.LOBBY})

HANDLERS: dict[type[Any], Handler] = {
    P.Ping: Handler(_ping, Who.ANYONE),
    P.Sync: Handler(_sync, Who.ANYONE),
    P.ProbeAck: Handler(_probe_ack, Who.ANYONE),
    P.ClientSeed: Handler(
        _client_seed, Who.MEMBER, LOBBY, "client seeds are sent in the lobby, before the start"
    ),
    P.Act: Handler(_act, Who.ANYONE, shape=_move_shape),  # the room says who may play
    P.Continue: Handler(_continue, Who.ANYONE),
    P.Leave: Handler(
        _leave, Who.MEMBER, LOBBY, "you can leave in the lobby only; your seat waits for you"
    ),
    P.SetOptions: Handler(
        _options, Who.HOST, LOBBY, "options are set in the lobby, before the game", _options_shape
    ),
    P.Start: Handler(_start, Who.HOST, LOBBY, "the game has started already"),
    P.Kick: Handler(_kick, Who.HOST, LOBBY, "players can be removed in the lobby only"),
    P.PassHost: Handler(_host, Who.HOST),
    P.Rematch: Handler(
        _rematch, Who.HOST, frozenset({Phase.OVER}), "a rematch comes after the game is over"
    ),
    P.Grace: Handler(_grace, Who.HOST, IN_GAME, "there is no game in progress"),
    P.AddBot: Handler(
        _add_bot, Who.HOST, LOBBY, "bots join in the lobby; mid-game, a bot can stand in"
    ),
    P.StandIn: Handler(_stand_in, Who.HOST, IN_GAME, "there is no game in progress"),
}


def dispatch(room: Room, conn: Peer, msg: Any) -> None:
    """Run ``msg``'s handler if ``conn`` may send it now (hello is the hub's)."""
    handler = HANDLERS[type(msg)]
    arg = handler.shape(room, msg) if handler.shape is not None else msg
    if handler.who != Who.ANYONE and conn.member is None:
        raise Refused("forbidden", "watchers cannot do that; join the room first")
    if handler.who == Who.HOST and conn.member != room.lobby.host:
        raise Refused("forbidden", "only the host can do that")
    if room.lobby.phase not in handler.phases:
        raise Refused("bad_phase", handler.wrong_phase)
    handler.run(room, conn, arg)
