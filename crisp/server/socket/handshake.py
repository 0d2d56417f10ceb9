"""The ASGI side of a WebSocket's opening handshake: the scope of a parsed request, and the
HTTP response of an app that denies it (the ``websocket.http.response`` extension)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import unquote

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

ASGI = {"version": "3.0", "spec_version": "2.4"}
DENIAL_EXTENSION = "websocket.http.response"


def address(info: Any) -> tuple[str, int] | None:
    """A socket address as ASGI has it (host, port); None for a Unix socket's."""
    if isinstance(info, (tuple, list)) and len(info) >= 2:
        return str(info[0]), int(info[1])
    return None


def websocket_scope(
    request: Request,
    transport: asyncio.BaseTransport,
    root_path: str,
    app_state: dict[str, Any],
    extensions: dict[str, Any],
) -> dict[str, Any]:
    """The ASGI ``websocket`` scope of ``request`` (ASGI 2.4: names in lower case)."""
    raw_path, _, query = request.path.partition("?")
    subprotocols = [
        token.strip()
        for value in request.headers.get_all("Sec-WebSocket-Protocol")
        for token in value.split(",")
        if token.strip()
    ]
    return {
        "type": "websocket",
        "asgi": ASGI,
        "http_version": "1.1",
        "scheme": "wss" if transport.get_extra_info("sslcontext") else "ws",
        "server": address(transport.get_extra_info("sockname")),
        "client": address(transport.get_extra_info("peername")),
        "root_path": root_path,
        "path": root_path + unquote(raw_path),
        "raw_path": (root_path + raw_path).encode("ascii", "replace"),
        "query_string": query.encode("ascii", "replace"),
        "headers": [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in request.headers.raw_items()
        ],
        "subprotocols": subprotocols,
        "state": app_state.copy(),
        "extensions": {DENIAL_EXTENSION: {}, **extensions},
    }


def accepted_headers(response: Response, message: dict[str, Any]) -> None:
    """The app's ``websocket.accept`` into the handshake's response: its subprotocol and
    headers."""
    subprotocol = message.get("subprotocol")
    if subprotocol:
        response.headers["Sec-WebSocket-Protocol"] = subprotocol
    for name, value in message.get("headers") or ():
        response.headers[bytes(name).decode("latin-1")] = bytes(value).decode("latin-1")


class Denial:
    """The app's own HTTP response to a handshake, as it sends it (start, then body parts)."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, message: dict[str, Any]) -> None:
        self.status = int(message["status"])
        self.headers = Headers(
            [
                (bytes(n).decode("latin-1"), bytes(v).decode("latin-1"))
                for n, v in message["headers"]
            ]
            if message.get("headers")
            else []
        )
        self.body: list[bytes] = []

    def response(self) -> Response:
        body = b"".join(self.body)
        if "Content-Length" not in self.headers:
            self.headers["Content-Length"] = str(len(body))
        return Response(self.status, reason_phrase(self.status), self.headers, body)


def reason_phrase(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
