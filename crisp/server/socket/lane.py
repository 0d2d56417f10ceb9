"""WebSockets at ``/ws/{code}`` served straight from the ASGI scope (memory per socket).

A WebSocket lives as long as its phone stays: every layer it passes through keeps a suspended
frame for all that time. Through FastAPI's router (its exception middleware, routing, dependency
solving and exit stacks) that was 11 KB a socket, measured on a bare relay (30.5 KB a socket
through FastAPI, 19.2 KB served from the scope: 90 KB per room of 8). So the lane sits inside
the client-address layer (every limit sees the real client) and takes ``/ws/CODE`` before the
router does: the room code's limit first (``CodeLimit``, as every route naming a code), its
refusal answered as the handshake's denial (the same 429 as a route's), then the handler. Any
other path, or any other scope, goes on to the application."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response
from starlette.websockets import WebSocket

from crisp.server.http.guard import ASGIApp, Receive, Scope, Send
from crisp.server.limits.ratelimit import CodeLimit, LimitRefused

PREFIX = "/ws/"
Handler = Callable[[WebSocket, str], Awaitable[None]]
Refusal = Callable[[LimitRefused], Response]


def code_of(scope: Scope) -> str | None:
    """The code of a WebSocket's ``/ws/CODE`` path (one segment), else None."""
    if scope["type"] != "websocket":
        return None
    path: str = scope["path"]
    if not path.startswith(PREFIX):
        return None
    code = path[len(PREFIX) :]
    return code if code and "/" not in code else None


class WebSocketLane:
    def __init__(
        self, app: ASGIApp, *, limit: CodeLimit, handler: Handler, refusal: Refusal
    ) -> None:
        self.app = app
        self.limit = limit
        self.handler = handler
        self.refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        code = code_of(scope)
        if code is None:
            await self.app(scope, receive, send)
            return
        ws = WebSocket(scope, receive, send)
        try:
            await self.limit(ws, code)
        except LimitRefused as refused:
            await self.refusal(refused)(scope, receive, send)
            return
        await self.handler(ws, code)
