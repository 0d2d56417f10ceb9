"""The client's address behind a trusted proxy, and the key its rate limits are counted under.

``CRISP_FORWARDED_ALLOW_IPS`` lists the proxies (addresses or CIDR networks) in front of the
server. A request whose peer is one of them has its client address taken from
``X-Forwarded-For``: the RIGHTMOST entry that is not itself a trusted proxy. Each proxy appends
the address it was reached from, so the entries right of the client are the proxies' own and
every entry left of it is whatever the client wrote (uvicorn's ``'*'`` took the leftmost: a
client could name itself anyone). A request from any other peer keeps the
peer's address, whatever headers it sends. ``'*'`` is refused when the settings are read.

The rate limits count an IPv4 address as itself and an IPv6 address by its /64 network (one
phone or one home gets a whole /64 and may use any address in it), so rotating addresses inside
a /64 gains nothing (docs/limits.md).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from crisp.server.networks import parse_trusted

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
ASGIApp = Any  # the next application: (scope, receive, send) -> None

#: The longest X-Forwarded-For entry looked at (an address with a port is at most ~47).
ENTRY_MAX = 64


def _address(entry: str) -> Address | None:
    """The address of one X-Forwarded-For entry (``1.2.3.4``, ``1.2.3.4:5678``, ``::1``,
    ``[::1]:5678``), or None."""
    text = entry.strip()
    if len(text) > ENTRY_MAX:
        return None
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else text
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        found = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


class Trusted:
    """The trusted proxies of a server and the rightmost-untrusted rule."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.nets = parse_trusted(entries)

    def __bool__(self) -> bool:
        return bool(self.nets)

    def trusts(self, host: str) -> bool:
        found = _address(host)
        return found is not None and any(found in net for net in self.nets)

    def client(self, peer: str, forwarded_for: list[str]) -> str:
        """The client's address: ``peer`` unless it is trusted; then the rightmost entry of the
        X-Forwarded-For values (in header order) that is not trusted. An entry that is no address
        (``unknown``, garbage) ends the walk: the hop that wrote it is the client as far as we
        can tell, and the trusted proxy right of it is who we can vouch for."""
        if not self.trusts(peer):
            return peer
        hops = [h for value in forwarded_for for h in value.split(",") if h.strip()]
        last = peer
        for hop in reversed(hops):
            found = _address(hop)
            if found is None:
                return last
            if not any(found in net for net in self.nets):
                return str(found)
            last = str(found)
        return last  # every hop a trusted proxy: the leftmost of them


class ClientAddress:
    """ASGI middleware: ``scope["client"]`` (and ``scheme``, from ``X-Forwarded-Proto``) are the
    client's when the peer is a trusted proxy (``Trusted.client``); otherwise left as they are."""

    def __init__(self, app: ASGIApp, trusted: list[str]) -> None:
        self.app = app
        self.trusted = Trusted(trusted)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self.trusted and scope["type"] in ("http", "websocket"):
            peer = scope.get("client")
            if peer is not None and self.trusted.trusts(peer[0]):
                forwarded: list[str] = []
                proto: str | None = None
                for name, value in scope.get("headers", ()):
                    if name == b"x-forwarded-for":
                        forwarded.append(value.decode("latin-1"))
                    elif name == b"x-forwarded-proto":
                        proto = value.decode("latin-1").split(",")[-1].strip().lower()
                # in place, as uvicorn's own middleware does: its access log reads this scope
                host = self.trusted.client(peer[0], forwarded)
                if host != peer[0]:
                    scope["client"] = (host, 0)
                if proto in ("http", "https"):
                    ws = scope["type"] == "websocket"
                    scope["scheme"] = proto.replace("http", "ws") if ws else proto
        await self.app(scope, receive, send)


def rate_key(host: str) -> str:
    """What the per-IP limits count ``host`` under: an IPv4 address itself, an IPv6 address its
    /64 network (``2001:db8:1:2::/64``), an IPv4-mapped IPv6 address its IPv4 address; anything
    else (a unix socket's name, ``unknown``) as it is."""
    found = _address(host)
    if found is None:
        return host
    if isinstance(found, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((found, 64), strict=False))
    return str(found)
