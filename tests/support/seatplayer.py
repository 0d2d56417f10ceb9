"""``Seat``: a ``wsclient.Player`` that can pick its seat up from a ``state`` (after a reconnect or
a restart), hold back after a reveal, ``sync`` at random moments and try wrong actions. Used by the
crash and leak tests, over sockets (``wsclient``) or in-process (``simserver``)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from wsclient import Player

Message = dict[str, Any]


class Seat(Player):
    """A ``Player`` that picks its seat up from a ``state`` (after a reconnect or a restart:
    ready, draw, or play the card it holds), can start from any point of its messages, can hold
    back after a reveal, can send ``sync`` at random moments, and sometimes first tries a wrong
    action with its drawn card (refused with an error naming that card, the one it holds)."""

    def __init__(
        self,
        server: Any,
        code: str,
        token: str,
        label: str,
        *,
        hold_reveal: bool = False,
        resume: bool = False,
        p_wrong: float = 0.0,
        sync_every: float | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(server, code, token, label, **kw)
        self.hold_reveal = hold_reveal
        self.resume = resume
        self.p_wrong = p_wrong
        self.sync_every = sync_every  # real seconds, on average

    def play_from(self, index: int) -> None:
        """Play on from message ``index`` (the messages before it were handled already)."""
        self.playing = True
        loop = asyncio.get_running_loop()
        self.task = loop.create_task(self._play(index))
        if self.sync_every:
            task = loop.create_task(self._syncs())
            self.pending.add(task)
            task.add_done_callback(self.pending.discard)

    def start_playing(self) -> None:
        self.play_from(0)

    async def _syncs(self) -> None:
        assert self.sync_every is not None
        while self.playing and not self.closed.is_set():
            await asyncio.sleep(self.rng.uniform(0.2, 1.8) * self.sync_every)
            if self.playing and not self.closed.is_set():
                with contextlib.suppress(Exception):
                    await self.send({"type": "sync"})

    async def react(self, msg: Message) -> None:
        typ = msg.get("type")
        if typ == "room" and self.hold_reveal and msg["phase"] == "between":
            return
        if typ == "turn" and msg["seat"] != self.seat and self.rng.random() < self.p_wrong:
            await self.act("draw")  # not its turn: refused (R-TURN / R-LOOK-PHASE / R-WINDOW)
        await super().react(msg)
        if typ == "state" and self.resume and msg.get("view"):
            self.resume = False
            await self.pick_up(msg)

    async def pick_up(self, state: Message) -> None:
        rnd = state["view"].get("round")
        me = self.seat
        if rnd is None or me is None or state["view"]["over"]:
            return
        self.top = rnd["top"]
        self.called = rnd["caller"] is not None
        if rnd["phase"] == "look" and not rnd["ready"][me]:
            await self.act("ready")
        elif rnd["phase"] == "play" and rnd["turn"]["seat"] == me:
            if rnd["turn"]["holding"]:
                await self.play_card(rnd["you"]["card"])
            else:
                wait = max(0.0, rnd["turn"]["at"] - state["now"])
                self.later(wait, lambda: self.act("draw"))

    async def play_card(self, card: str) -> None:
        if self.rng.random() < self.p_wrong:
            await self.act("king" if card[0] == "J" else "jack")  # refused: "the drawn card is …"
        await super().play_card(card)
