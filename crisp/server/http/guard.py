"""HTTP hardening as pure ASGI middleware: a request-body cap and security headers.

- ``BodyLimit``: a body over ``max_bytes`` is answered ``413`` with
  ``{"error": ..., "code": "too_large"}``: at once when ``Content-Length`` says so, else as soon as
  the streamed body passes the cap (the application then sees the client gone, and whatever it
  answers is dropped).
- ``SecurityHeaders``: every HTTP response gets a strict Content-Security-Policy (the client's own
  files only, no inline script or style, no framing) and the headers below, unless the response
  set its own.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; media-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# no-referrer: a page's address holds the room code (/r/CODE); no other site needs to see it.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    def __init__(
        self, app: ASGIApp, headers: tuple[tuple[bytes, bytes], ...] = SECURITY_HEADERS
    ) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.headers if n not in have]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def too_large_body(max_bytes: int) -> bytes:
    return json.dumps(
        {"error": f"request bodies are capped at {max_bytes} bytes", "code": "too_large"}
    ).encode()


async def send_413(send: Send, max_bytes: int) -> None:
    body = too_large_body(max_bytes)
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await send_413(send, self.max_bytes)
            return
        state = {"seen": 0, "refused": False, "started": False}

        async def capped_receive() -> Message:
            if state["refused"]:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                state["seen"] += len(message.get("body", b""))
                if state["seen"] > self.max_bytes:
                    state["refused"] = True
                    if not state["started"]:
                        state["started"] = True
                        await send_413(send, self.max_bytes)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if state["refused"]:
                return  # the 413 is the answer
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        await self.app(scope, capped_receive, guarded_send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
