"""Rate limits per IP and in total: token buckets with bounded memory and an injectable clock.

Each kind of request (room creation, joins, lookups of a room code, WebSocket opens) has a
``Limit``: a bucket per client IP (at most ``ips_max`` IPs remembered, least recent forgotten
first: a forgotten IP starts again with a full bucket, which the total bucket still bounds) and
one bucket for everyone. A request over either is refused with ``RateLimited`` (HTTP 429, a
``Retry-After`` header and ``{"error": ..., "code": "rate_limited"}``); a WebSocket over its limit
is refused at the handshake with the same 429 response (docs/limits.md).

Lookups of a code that does not exist also spend a per-IP *miss* budget: an IP that has spent it
is refused every lookup (of existing codes too, so that a refusal says nothing about a code) until
it refills. That is what bounds guessing from one address; the total lookup rate bounds it from
many (docs/limits.md has the arithmetic).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.params import Depends
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocket

from crisp.server.settings import Settings

Clock = Callable[[], float]


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; starts full."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = now

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now

    def wait(self, now: float, cost: float = 1.0) -> float:
        """Seconds until ``cost`` tokens are there (0: now). Takes nothing."""
        self._refill(now)
        missing = cost - self.tokens
        return 0.0 if missing <= 0 else missing / self.rate

    def take(self, now: float, cost: float = 1.0) -> bool:
        if self.wait(now, cost) > 0:
            return False
        self.tokens -= cost
        return True

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst


class KeyedBuckets:
    """A bucket per key (an IP), remembering at most ``max_keys`` keys (least recent dropped)."""

    def __init__(self, rate: float, burst: float, max_keys: int) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def get(self, key: str, now: float) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst, now)
            while len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        return bucket

    def __len__(self) -> int:
        return len(self.buckets)


@dataclass(frozen=True)
class Rate:
    per_s: float
    burst: int


class LimitRefused(Exception):
    """A request refused by a limit: ``status`` with ``{"error": message, "code": code}`` (and a
    ``Retry-After`` header when ``retry_after`` is given)."""

    def __init__(
        self, status: int, code: str, message: str, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))

    def response(self) -> JSONResponse:
        body: dict[str, object] = {"error": self.message, "code": self.code}
        headers = {}
        if self.retry_after is not None:
            body["retry_after"] = self.retry_after
            headers["Retry-After"] = str(self.retry_after)
        return JSONResponse(body, status_code=self.status, headers=headers)


class RateLimited(LimitRefused):
    """Over a rate limit: 429 with ``Retry-After`` (whole seconds, at least 1)."""

    def __init__(self, what: str, retry_after: float) -> None:
        wait = max(1, math.ceil(retry_after))
        super().__init__(429, "rate_limited", f"too many {what}: try again in {wait} s", wait)
        self.what = what


class Limit:
    """A per-IP bucket and a total one: a request passes when both have a token (and then takes
    one from each; a refused request takes none)."""

    def __init__(self, what: str, per_ip: Rate, total: Rate, ips_max: int, clock: Clock) -> None:
        self.what = what
        self.clock = clock
        self.per_ip = KeyedBuckets(per_ip.per_s, per_ip.burst, ips_max)
        self.total = TokenBucket(total.per_s, total.burst, clock())

    def check(self, ip: str) -> None:
        """Take a token for ``ip`` or raise ``RateLimited``."""
        now = self.clock()
        mine = self.per_ip.get(ip, now)
        wait = max(mine.wait(now), self.total.wait(now))
        if wait > 0:
            raise RateLimited(self.what, wait)
        mine.take(now)
        self.total.take(now)


def client_ip(conn: Request | WebSocket) -> str:
    """The client's address (uvicorn puts a trusted proxy's X-Forwarded-For there)."""
    return conn.client.host if conn.client is not None else "unknown"


RoomExists = Callable[[str], bool]


class Limiters:
    """Every rate limit of a server, from its settings. ``clock``: monotonic seconds."""

    def __init__(self, settings: Settings, clock: Clock = time.monotonic) -> None:
        s, n = settings, settings.limit_ips_max
        self.clock = clock
        self.create = self._limit(s, "room creations", "create")
        self.join = self._limit(s, "joins", "join")
        self.lookup = self._limit(s, "room lookups", "lookup")
        self.ws = self._limit(s, "WebSocket opens", "ws")
        self.misses = KeyedBuckets(s.miss_ip_per_min / 60, s.miss_ip_burst, n)
        self.exempt = frozenset(s.limit_exempt_ips)

    def _limit(self, s: Settings, what: str, name: str) -> Limit:
        """The limit of the settings ``<name>_ip_per_min``, ``<name>_ip_burst``,
        ``<name>_total_per_s`` and ``<name>_total_burst``."""
        per_ip = Rate(getattr(s, f"{name}_ip_per_min") / 60, getattr(s, f"{name}_ip_burst"))
        total = Rate(getattr(s, f"{name}_total_per_s"), getattr(s, f"{name}_total_burst"))
        return Limit(what, per_ip, total, s.limit_ips_max, self.clock)

    # -- checks -------------------------------------------------------------------------------

    def check_lookup(self, ip: str, code: str, room_exists: RoomExists) -> None:
        """A request naming ``code``: the lookup limit, then the miss budget (checked before the
        code is looked at, spent after, when the code does not exist)."""
        misses = self.misses.get(ip, self.clock())
        wait = misses.wait(self.clock())
        if wait > 0:
            raise RateLimited("lookups of unknown room codes", wait)
        self.lookup.check(ip)
        if not room_exists(code):
            misses.take(self.clock())

    # -- FastAPI dependencies -----------------------------------------------------------------

    def depend(self, *limits: Limit) -> Depends:
        """``dependencies=[limiters.depend(limiters.create)]`` on a route."""

        async def check(request: Request) -> None:
            ip = client_ip(request)
            if ip in self.exempt:
                return
            for limit in limits:
                limit.check(ip)

        return Depends(check)

    def depend_lookup(self, room_exists: RoomExists, *limits: Limit) -> Depends:
        """On a route with a ``{code}`` path parameter: ``limits``, then the lookup limit."""

        async def check(request: Request, code: str) -> None:
            ip = client_ip(request)
            if ip in self.exempt:
                return
            for limit in limits:
                limit.check(ip)
            self.check_lookup(ip, code, room_exists)

        return Depends(check)

    def install(self, app: FastAPI) -> None:
        """Answer a ``LimitRefused`` (a ``RateLimited`` too) with its response."""

        async def refused(_: Request, exc: Exception) -> JSONResponse:
            assert isinstance(exc, LimitRefused)
            return exc.response()

        app.add_exception_handler(LimitRefused, refused)

    async def admit_websocket(self, ws: WebSocket, code: str, room_exists: RoomExists) -> bool:
        """Before ``accept``: False after refusing the handshake with the 429 response."""
        ip = client_ip(ws)
        if ip in self.exempt:
            return True
        try:
            self.ws.check(ip)
            self.check_lookup(ip, code, room_exists)
        except RateLimited as err:
            await deny(ws, err)
            return False
        return True


async def deny(ws: WebSocket, err: RateLimited) -> None:
    """Refuse a WebSocket handshake with an HTTP 429 (the ASGI denial-response extension; a
    server without it closes the handshake, which a client sees as a 403)."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        await ws.send_denial_response(err.response())
    else:  # pragma: no cover - uvicorn has the extension
        await ws.close(1008)
