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
from urllib.parse import quote, unquote

from fastapi import FastAPI, Request
from fastapi.params import Depends
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket

from crisp.server.limits.bucket import TokenBucket
from crisp.server.limits.clientaddr import rate_key
from crisp.server.settings import Settings
from crisp.server.wire.errors import ErrorCode
from crisp.server.wire.roomcode import is_code, normalize_code

Clock = Callable[[], float]


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
        self, status: int, code: ErrorCode, message: str, retry_after: float | None = None
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


def client_ip(conn: Request | WebSocket | HTTPConnection) -> str:
    """The client's address (``clientaddr.ClientAddress`` puts a trusted proxy's
    X-Forwarded-For there)."""
    return conn.client.host if conn.client is not None else "unknown"


RoomExists = Callable[[str], bool]
#: ``seated(code, token)``: the token is a member's of the room of ``code`` (served here).
Seated = Callable[[str, str], bool]
#: The cookie a join or a room creation sets (``crisp_seat_CODE``, HttpOnly, SameSite=Strict):
#: the phone's reconnections carry it, so a seated player is not charged to the anonymous budgets.
SEAT_COOKIE = "crisp_seat_"


class NotCanonical(Exception):
    """A path spelling a room code otherwise than the nodes use (lower case, ``%20``, ``%2D``,
    a hyphen…): answered with a 308 redirect to ``location`` before the room is claimed."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


def canonical_path(conn: HTTPConnection, code: str) -> str | None:
    """The path of ``conn`` with its code segment spelled canonically, or None when it already
    is. The raw path is read (``%41`` for ``A`` is another spelling too: a balancer that hashes
    the raw path would send it elsewhere)."""
    raw: bytes = conn.scope.get("raw_path") or conn.scope["path"].encode()
    segments = raw.decode("latin-1").split("/")
    template = getattr(conn.scope.get("route"), "path", "")
    at = template.split("/").index("{code}") if "{code}" in template else -1
    canonical = normalize_code(code)
    if not is_code(canonical):
        return None  # not a code in any spelling: the route answers (404), nothing is echoed
    if not 0 < at < len(segments) or unquote(segments[at]) != code or segments[at] == canonical:
        return None
    segments[at] = quote(canonical, safe="")
    query = conn.scope.get("query_string", b"").decode("latin-1")
    path = "/".join(segments)
    return f"{path}?{query}" if query else path


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
                limit.check(rate_key(ip))

        return Depends(check)

    def code_limit(
        self, room_exists: RoomExists, *limits: Limit, seated: Seated | None = None
    ) -> Depends:
        """THE dependency of every route naming a room code (a test walks the routes):
        ``CodeLimit``."""
        return Depends(self.code_limit_of(room_exists, *limits, seated=seated))

    def code_limit_of(
        self, room_exists: RoomExists, *limits: Limit, seated: Seated | None = None
    ) -> CodeLimit:
        """The ``CodeLimit`` itself, for what is not a route (the WebSocket lane)."""
        return CodeLimit(self, room_exists, limits, seated)

    def install(self, app: FastAPI) -> None:
        """Answer a ``LimitRefused`` (a ``RateLimited`` too) with its response."""

        async def refused(_: Request, exc: Exception) -> JSONResponse:
            assert isinstance(exc, LimitRefused)
            return exc.response()

        async def redirect(_: Request, exc: Exception) -> RedirectResponse:
            assert isinstance(exc, NotCanonical)
            return RedirectResponse(exc.location, status_code=308)

        app.add_exception_handler(LimitRefused, refused)
        app.add_exception_handler(NotCanonical, redirect)


class CodeLimit:
    """The dependency of every route with a ``{code}`` path parameter, before its room is
    claimed: (1) an HTTP request spelling the code otherwise than canonically is redirected
    (308); (2) an exempt client, or one bearing a valid seat token of the room in its
    ``crisp_seat_CODE`` cookie (a seated player reconnecting), passes uncharged; (3) else
    ``limits`` (joins, WebSocket opens), then the lookup limit and the miss budget, counted under
    the client's rate key (an IPv6 address by its /64). A refusal is a ``LimitRefused``: a 429
    response, or on a WebSocket the same 429 as the handshake's denial."""

    def __init__(
        self,
        limiters: Limiters,
        room_exists: RoomExists,
        limits: tuple[Limit, ...],
        seated: Seated | None,
    ) -> None:
        self.limiters = limiters
        self.room_exists = room_exists
        self.limits = limits
        self.seated = seated

    async def __call__(self, conn: HTTPConnection, code: str) -> None:
        if conn.scope["type"] == "http" and (to := canonical_path(conn, code)) is not None:
            raise NotCanonical(to)
        ip = client_ip(conn)
        if ip in self.limiters.exempt:
            return
        if self.seated is not None:
            canonical = normalize_code(code)
            token = conn.cookies.get(SEAT_COOKIE + canonical)
            if token and self.seated(canonical, token):
                return
        key = rate_key(ip)
        for limit in self.limits:
            limit.check(key)
        self.limiters.check_lookup(key, code, self.room_exists)
