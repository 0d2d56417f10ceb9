"""A stand-in for the server in browser tests of the Crisps! table: the real page (the shell's
template and crisp/static, from tests/support/statichost.py under a strict CSP) with its WebSocket
answered in the test by Playwright's ``route_web_socket``, which drives the real engine
(crisp.engine.crisps) and sends each phone the messages of its seat as the contract says
(docs/protocol.md): ``welcome``, ``room``, ``state``, then the engine's messages with a room
version ``v``, and ``error`` (code ``illegal``, ``rule``) for a refused action. A seat may be
played by a random-legal "bot" here. Used until the server's adapter (crisp/games/crisps/) is
merged; the end-to-end tests use the real server."""

from __future__ import annotations

import json
import random
from typing import Any

from paths import ROOT

from crisp.engine.common.messages import Out, stream
from crisp.engine.crisps.errors import CrispsRefusal
from crisp.engine.crisps.game import CrispsGame
from crisp.engine.crisps.options import CrispsOptions

SHELL = (ROOT / "crisp" / "templates" / "index.html").read_text(encoding="utf-8")
MANIFEST = (ROOT / "crisp" / "static" / "manifest.webmanifest").read_text(encoding="utf-8")
CODE = "ACFHJKMNQRWX"

# The stacked decks the browser tests deal: ``DECK`` gives seat 0 ``HAND0`` and seat 1 ``HAND1``
# (CS-DEAL: positions 1-12 and 13-24); with ``ENDS`` seat 0 goes out at once.
HAND0 = "1334555689XX"
HAND1 = "111222234666"
DECK = HAND0 + HAND1 + "7999" + "8" + "344577788XX"
ENDS = "112233445566" * 2 + "789X" + "7" + "77888999XXX"


def pages() -> dict[str, str]:
    """The StaticHost pages: the shell at / and at the room's link."""
    qr = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"></svg>'
    return {
        "/": SHELL,
        f"/r/{CODE}": SHELL,
        "/manifest.webmanifest": MANIFEST,
        f"/api/rooms/{CODE}/qr.svg": qr,
    }


class FakeCrispsRoom:
    """One game of two seats; ``bot``: the seat the fake plays itself (random legal moves)."""

    def __init__(
        self,
        names: tuple[str, str] = ("Ana", "Ben"),
        options: CrispsOptions | None = None,
        seed: int = 7,
        bot: int | None = None,
        decks: list[str] | None = None,
        first_starter: int | None = None,
        present: tuple[int, ...] = (),
    ) -> None:
        self.names = names
        self.present = present  # seats shown connected without a phone here (on another device)
        self.options = options or CrispsOptions()
        self.game = CrispsGame(
            players=list(names),
            options=self.options,
            seed=seed,
            decks=decks,
            first_starter=first_starter,
        )
        self.bot = bot
        self.rnd = random.Random(seed)
        self.v = 1
        self.t = 0.0
        self.sockets: dict[int, Any] = {}
        self.sent: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
        self.started = False

    # -- the wire ------------------------------------------------------------------------------

    def attach(self, page: Any, seat: int) -> None:
        """Answer ``page``'s room WebSocket as seat ``seat`` (its token: ``tok<seat>``)."""
        page.add_init_script(f"localStorage.setItem('crisp.token.{CODE}', 'tok{seat}');")
        page.route_web_socket("**/ws/**", lambda ws: self._connect(ws, seat))

    def _connect(self, ws: Any, seat: int) -> None:
        ws.on_message(lambda text: self._on(ws, seat, text))

    def _send(self, seat: int, msg: dict[str, Any]) -> None:
        self.sent[seat].append(msg)
        ws = self.sockets.get(seat)
        if ws is not None:
            ws.send(json.dumps(msg))

    def members(self) -> list[dict[str, Any]]:
        return [
            {
                "id": s + 1,
                "name": self.names[s],
                "seat": s,
                "host": s == 0,
                "connected": s in self.sockets or s == self.bot or s in self.present,
                "absent": False,
                **({"bot": "random"} if s == self.bot else {}),
            }
            for s in (0, 1)
        ]

    def room(self) -> dict[str, Any]:
        phase = "over" if self.game.over else "playing"
        return {
            "type": "room",
            "v": self.v,
            "code": CODE,
            "game_type": "crisps",
            "phase": phase,
            "options": self.options_dict(),
            "members": self.members(),
            "game": 1,
            "between": None,
            "record": self.game.over,
        }

    def options_dict(self) -> dict[str, Any]:
        o = self.options
        return {
            "no_faceup": o.no_faceup,
            "crisp_runs": o.crisp_runs,
            "auto_skip": o.auto_skip,
            "timer": o.timer,
        }

    def you(self, seat: int) -> dict[str, Any]:
        return {"member": seat + 1, "seat": seat, "host": seat == 0, "name": self.names[seat]}

    def _on(self, ws: Any, seat: int, text: str) -> None:
        msg = json.loads(text)
        kind = msg.get("type")
        if kind == "hello":
            self.sockets[seat] = ws
            if not self.started:
                self.started = True
                self.game.start()
            ws.send(json.dumps({"type": "welcome", "you": self.you(seat), "clock_speed": 1.0}))
            self.broadcast_room()
            ws.send(
                json.dumps(
                    {
                        "type": "state",
                        "v": self.v,
                        "now": self.t,
                        "view": self.game.view(seat),
                        "you": self.you(seat),
                    }
                )
            )
            self.bot_moves()
        elif kind == "ping":
            ws.send(json.dumps({"type": "pong", "n": msg.get("n")}))
        elif kind == "sync":
            ws.send(
                json.dumps(
                    {
                        "type": "state",
                        "v": self.v,
                        "now": self.t,
                        "view": self.game.view(seat),
                        "you": self.you(seat),
                    }
                )
            )
        elif kind == "act":
            action = {k: v for k, v in msg.items() if k not in ("type", "v")}
            self.act(seat, action)

    def broadcast_room(self) -> None:
        for s, ws in self.sockets.items():
            ws.send(json.dumps(self.room()))
            del s

    def deliver(self, outs: list[Out]) -> None:
        self.v += 1
        for seat in (0, 1):
            for m in stream(outs, seat):
                self._send(seat, {**m, "t": self.t, "v": self.v})
        if self.game.over:
            self.broadcast_room()

    def act(self, seat: int, action: dict[str, Any]) -> None:
        self.t += 1.0
        try:
            outs = self.game.apply(seat, action, self.t)
        except CrispsRefusal as err:
            ws = self.sockets.get(seat)
            if ws is not None:
                ws.send(
                    json.dumps(
                        {
                            "type": "error",
                            "code": "illegal",
                            "rule": err.rule,
                            "message": err.message,
                            "about": "act",
                        }
                    )
                )
            return
        self.deliver(outs)
        self.bot_moves()

    def bot_moves(self) -> None:
        while (
            self.bot is not None
            and not self.game.over
            and self.game.due
            and self.game.due[0] == self.bot
        ):
            self.t += 1.0
            self.deliver(
                self.game.apply(self.bot, self.rnd.choice(self.game.legal_moves(self.bot)), self.t)
            )

    def time_out(self) -> None:
        """The decision due times out now (CS-TIMEOUT)."""
        deadline = self.game.next_deadline()
        assert deadline is not None
        self.t = deadline
        self.deliver(self.game.advance(self.t))
        self.bot_moves()
