"""Trusted proxies as the settings name them: addresses or CIDR networks, never ``*``
(limits/clientaddr.py says why)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

WILDCARD = (
    "'*' would trust every peer, and a client writes its own X-Forwarded-For: list the "
    'proxy\'s address or network instead (e.g. ["172.30.24.2"] or ["10.0.0.0/24"])'
)


def parse_trusted(entries: Iterable[str]) -> tuple[Network, ...]:
    """The networks of ``entries`` (an address is its /32 or /128); ValueError on ``*`` or on
    anything that is not an address or a network, saying which."""
    nets: list[Network] = []
    for entry in entries:
        text = entry.strip()
        if text == "*":
            raise ValueError(WILDCARD)
        try:
            nets.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or a network (CIDR)") from None
    return tuple(nets)
