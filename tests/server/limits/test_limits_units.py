"""The limits as pure code, with fake clocks (no sleep): token buckets and their bounded
memory, the lookup and miss budgets, room bounds, the human-host rule, the hello deadline, JSON
depth, the log budget, room codes, the HTTP middlewares and the header-pending registry."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import ROOT

from crisp.server.http.guard import CSP, BodyLimit, SecurityHeaders
from crisp.server.limits import room_limits
from crisp.server.limits.bucket import TokenBucket
from crisp.server.limits.logbudget import LogBudget
from crisp.server.limits.ratelimit import (
    KeyedBuckets,
    Limit,
    Limiters,
    Rate,
    RateLimited,
)
from crisp.server.limits.room_limits import Candidate, HelloDeadline, close_if_silent, next_host
from crisp.server.settings import Settings
from crisp.server.socket import files
from crisp.server.socket.pending import PendingHeaders
from crisp.server.wire import roomcode
from crisp.server.wire.safejson import BadJSON, depth, loads_bounded


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# -- token buckets --------------------------------------------------------------------------------


def test_bucket_gives_its_burst_then_its_rate() -> None:
    b = TokenBucket(rate=2, burst=3, now=0)
    assert [b.take(0) for _ in range(4)] == [True, True, True, False]
    assert b.wait(0) == pytest.approx(0.5)  # one token comes in 1/rate s
    assert not b.take(0.4)
    assert b.take(0.5)
    assert b.full(100)  # refills to its burst, no further
    assert b.tokens == 3


def test_a_retuned_bucket_refills_at_the_old_rate_until_then_and_keeps_its_new_burst() -> None:
    b = TokenBucket(rate=10, burst=10, now=0)
    assert all(b.take(0) for _ in range(10))
    b.retune(0.5, rate=2, burst=4)  # 5 tokens came at 10 a second; 4 kept
    assert b.tokens == 4
    assert [b.take(0.5) for _ in range(5)] == [True] * 4 + [False]
    assert b.wait(0.5) == pytest.approx(0.5)  # now one in 1/2 s


def test_keyed_buckets_remember_at_most_max_keys_least_recent_first() -> None:
    kb = KeyedBuckets(rate=1, burst=1, max_keys=3)
    for ip in ("a", "b", "c"):
        kb.get(ip, 0).take(0)
    kb.get("a", 0)  # a is used again: b is now the least recent
    kb.get("d", 0)
    assert len(kb) == 3
    assert set(kb.buckets) == {"a", "c", "d"}
    assert kb.get("b", 0).tokens == 1  # b was forgotten: a full bucket again (the total bounds it)


def test_memory_is_bounded_under_ten_thousand_addresses() -> None:
    clock = FakeClock()
    limit = Limit("joins", Rate(1, 2), Rate(1e9, 10**9), ips_max=100, clock=clock)
    for i in range(10_000):
        limit.check(f"10.0.{i // 256}.{i % 256}")
    assert len(limit.per_ip) == 100


def test_limit_per_ip_then_total_and_a_refused_request_takes_nothing() -> None:
    clock = FakeClock()
    limit = Limit("room creations", Rate(1 / 60, 2), Rate(10, 3), ips_max=10, clock=clock)
    limit.check("1.1.1.1")
    limit.check("1.1.1.1")
    with pytest.raises(RateLimited) as over_ip:
        limit.check("1.1.1.1")
    assert over_ip.value.retry_after == 60 and over_ip.value.status == 429
    limit.check("2.2.2.2")  # another IP: the total has one token left
    with pytest.raises(RateLimited) as over_total:
        limit.check("3.3.3.3")
    assert over_total.value.retry_after == 1  # whole seconds, at least 1
    clock.t += 0.1  # one total token is back: 3.3.3.3 was not charged for its refusal
    limit.check("3.3.3.3")


def test_rate_limited_answers_429_with_retry_after_and_a_typed_body() -> None:
    response = RateLimited("joins", 2.2).response()
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    body = json.loads(bytes(response.body))
    assert body["code"] == "rate_limited" and body["retry_after"] == 3
    assert "joins" in body["error"]


def test_misses_spend_a_budget_that_then_refuses_every_lookup_of_that_ip() -> None:
    """R-LIMIT-GUESS: once an IP has spent its misses, a lookup of a real code is refused too, so
    a refusal says nothing about whether a code exists."""
    clock = FakeClock()
    settings = Settings(miss_ip_burst=3, miss_ip_per_min=1, lookup_ip_burst=1000)
    limits = Limiters(settings, clock)
    real = "ACFHJKMNQRWX"

    def exists(code: str) -> bool:
        return code == real

    for _ in range(3):
        limits.check_lookup("6.6.6.6", "QQQQQQQQQQQQ", exists)
    with pytest.raises(RateLimited) as refused:
        limits.check_lookup("6.6.6.6", real, exists)
    assert refused.value.retry_after == 60
    limits.check_lookup("7.7.7.7", real, exists)  # others are not affected
    for _ in range(50):  # hits never spend the miss budget
        limits.check_lookup("7.7.7.7", real, exists)
    clock.t += 60
    limits.check_lookup("6.6.6.6", real, exists)


# -- room bounds and the host ---------------------------------------------------------------------


def test_room_count_members_and_watchers_under_and_over_their_limits() -> None:
    s = Settings(rooms_max=3, room_members_max=4, room_watchers_max=2)
    assert room_limits.check_room_count(2, s) is None
    full = room_limits.check_room_count(3, s)
    assert full is not None and full.code == "server_full" and "3 rooms" in full.message
    assert room_limits.check_join(3, s) is None
    refused = room_limits.check_join(4, s)
    assert refused is not None and refused.code == "room_full"
    assert room_limits.check_watcher(1, s) is None
    watchers = room_limits.check_watcher(2, s)
    assert watchers is not None and watchers.code == "room_full" and "watchers" in watchers.message


def test_next_host_skips_bots_and_keeps_a_staying_human_host() -> None:
    room = [Candidate(1, False), Candidate(2, True), Candidate(3, False)]
    assert next_host(room, current=1, leaving=None) == 1
    assert next_host(room, current=1, leaving=1) == 3  # member 2 is a bot
    assert next_host(room, current=3, leaving=1) == 3
    assert next_host([Candidate(2, True)], current=1, leaving=1) is None  # bots only: no host


@given(st.lists(st.booleans(), max_size=12), st.integers(0, 13), st.integers(0, 13))
def test_next_host_is_always_a_staying_human_or_none(bots: list[bool], cur: int, gone: int) -> None:
    room = [Candidate(i, bot) for i, bot in enumerate(bots)]
    host = next_host(room, cur, gone)
    humans = [m.id for m in room if not m.bot and m.id != gone]
    if humans:
        assert host in humans
        assert host == (cur if cur in humans else humans[0])
    else:
        assert host is None


def test_passing_the_host_to_a_bot_is_refused_typed() -> None:
    room = [Candidate(1, False), Candidate(2, True), Candidate(3, False)]
    assert room_limits.check_pass_host(room, 3) is None
    refused = room_limits.check_pass_host(room, 2)
    assert refused is not None and refused.code == "host_not_human"
    missing = room_limits.check_pass_host(room, 9)
    assert missing is not None and missing.code == "not_found"


def test_hello_deadline_with_a_fake_clock() -> None:
    d = HelloDeadline(opened=100.0, timeout=10.0)
    assert not d.expired(109.9, greeted=False)
    assert d.expired(110.0, greeted=False)
    assert not d.expired(500.0, greeted=True)


def test_a_silent_socket_is_closed_with_4410_at_its_deadline_and_a_greeted_one_spared() -> None:
    closed: list[int] = []
    assert close_if_silent(lambda: False, closed.append)
    assert closed == [room_limits.CLOSE_HELLO_TIMEOUT]
    closed.clear()
    assert not close_if_silent(lambda: True, closed.append)
    assert closed == []


def test_the_hello_deadline_is_a_timer_due_after_the_setting() -> None:
    async def run() -> tuple[float, float]:
        settings = Settings(hello_timeout_s=7.5)
        loop = asyncio.get_running_loop()
        timer = room_limits.start_hello_deadline(lambda: True, print, settings)
        due, now = timer.when(), loop.time()
        assert due is not None
        timer.cancel()
        return due, now

    due, now = asyncio.run(run())
    assert 7.4 <= due - now <= 7.5


def test_the_hello_deadline_holds_nothing_once_it_has_fired() -> None:
    """A fired deadline closes a silent socket and lets go of its timer and callbacks (a
    socket's ending keeps the deadline for the socket's life)."""

    async def run() -> tuple[list[int], float | None]:
        closed: list[int] = []
        timer = room_limits.HelloTimer(lambda: False, closed.append, 0.0)
        await asyncio.sleep(0)  # one turn of the loop: a zero timer is due
        await asyncio.sleep(0)
        return closed, timer.when()

    closed, when = asyncio.run(run())
    assert closed == [room_limits.CLOSE_HELLO_TIMEOUT]
    assert when is None


# -- JSON depth -----------------------------------------------------------------------------------


def test_deep_nesting_is_bad_json_without_recursion() -> None:
    for text in ("[" * 2000, "[" * 2000 + "]" * 2000, '{"a":' * 100 + "1" + "}" * 100):
        with pytest.raises(BadJSON, match="nested"):
            loads_bounded(text, 32)
    assert loads_bounded("[" * 32 + "]" * 32, 32) is not None


def test_brackets_inside_strings_do_not_count() -> None:
    assert depth('{"a": "[[[[{{{{\\"[["}') == 1
    assert loads_bounded('{"type": "hello", "token": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', 2)


@pytest.mark.parametrize("text", ["9" * 5000, "{", "", "NaN", '{"n": Infinity}', "[1,]"])
def test_not_json_is_bad_json(text: str) -> None:
    with pytest.raises(BadJSON):
        loads_bounded(text, 32)


def test_invalid_utf8_bytes_are_bad_json() -> None:
    with pytest.raises(BadJSON, match="UTF-8"):
        loads_bounded(b'{"type": "\xff"}', 32)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4)
    ),
    max_leaves=30,
)


@given(json_values)
def test_loads_bounded_agrees_with_json_loads_within_the_depth(value: Any) -> None:
    text = json.dumps(value)
    assert loads_bounded(text, 64) == json.loads(text)


def test_a_4kb_frame_of_escaped_quotes_scans_in_bounded_time() -> None:
    import time

    text = '"' + '\\"a' * 1365
    start = time.perf_counter()
    with pytest.raises(BadJSON):
        loads_bounded(text, 32)
    print(f"\n4 KB of escaped quotes scanned in {1000 * (time.perf_counter() - start):.1f} ms")


# -- the log budget -------------------------------------------------------------------------------


def test_log_budget_lets_n_lines_a_minute_through_then_one_summary(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    budget = LogBudget(logging.getLogger("crisp.test"), lines=3, label="conn 7", clock=clock)
    with caplog.at_level(logging.INFO, logger="crisp.test"):
        passed = [budget.info("bad message %d", i) for i in range(10)]
        assert passed == [True] * 3 + [False] * 7
        assert len(caplog.records) == 3
        clock.t += 60
        assert budget.warning("bad message again")
    lines = [r.getMessage() for r in caplog.records]
    assert lines[3] == "conn 7: 7 log lines dropped (over 3 a minute)"
    assert lines[4] == "bad message again"
    assert all(r.exc_info is None for r in caplog.records)  # never a traceback


def test_log_budget_flush_reports_what_was_dropped(caplog: pytest.LogCaptureFixture) -> None:
    budget = LogBudget(logging.getLogger("crisp.test"), lines=1, clock=FakeClock())
    with caplog.at_level(logging.INFO, logger="crisp.test"):
        budget.info("one")
        budget.info("two")
        budget.flush()
        budget.flush()  # nothing more to say
    assert [r.getMessage() for r in caplog.records] == [
        "one",
        "a connection: 1 log lines dropped (over 1 a minute)",
    ]


# -- room codes -----------------------------------------------------------------------------------


def test_new_codes_are_12_letters_and_old_5_letter_codes_still_normalize() -> None:
    code = roomcode.new_code()
    assert len(code) == roomcode.CODE_LENGTH == 12 and roomcode.is_code(code)
    shown = roomcode.display_code(code)
    assert shown.count("-") == 2 and roomcode.normalize_code(shown.lower()) == code
    assert roomcode.normalize_code(" jak nk ") == "JAKNK" and roomcode.is_code("JAKNK")
    assert roomcode.display_code("JAKNK") == "JAKNK"
    assert not roomcode.is_code("JAKN") and not roomcode.is_code("ABCDEFGHIJKL")


def guesses_to_find_a_room(space: int, rooms: int) -> float:
    return space / rooms


def test_guessing_arithmetic_of_docs_limits() -> None:
    """The figures of docs/limits.md: expected rooms found a year at the allowed rates."""
    s = Settings()
    year = 365.25 * 24 * 3600
    space = len(roomcode.CODE_ALPHABET) ** roomcode.CODE_LENGTH
    assert space == 23_298_085_122_481
    total = s.lookup_total_per_s * year  # every address at once, at the total lookup limit
    one_ip = s.miss_ip_per_min / 60 * year + s.miss_ip_burst  # one address, at its miss budget
    found = {
        (who, rooms): guesses * rooms / space
        for who, guesses in (("total", total), ("one IP", one_ip))
        for rooms in (s.rooms_max, 1_000_000)
    }
    print("\nguesses a year:", f"total {total:,.0f}", f"one IP {one_ip:,.0f}")
    for (who, rooms), n in found.items():
        print(f"  {who}, {rooms:,} rooms open: {n:.4g} rooms found a year")
    assert found[("one IP", s.rooms_max)] < 1e-3
    assert found[("total", s.rooms_max)] < 2
    old = 13**5 / s.rooms_max  # the old codes: a room every 37 guesses at 10,000 rooms
    assert old < 40


# -- the HTTP middlewares (pure ASGI) -------------------------------------------------------------


async def call(app: Any, scope: dict[str, Any], chunks: list[bytes]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    pending = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def echo_app(scope: Any, receive: Any, send: Any) -> None:
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(len(body)).encode()})


def http_scope(length: int | None = None) -> dict[str, Any]:
    headers = [] if length is None else [(b"content-length", str(length).encode())]
    return {"type": "http", "method": "POST", "path": "/api/rooms", "headers": headers}


def test_body_under_the_cap_passes() -> None:
    sent = asyncio.run(call(BodyLimit(echo_app, 100), http_scope(100), [b"x" * 100]))
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"100"


def test_body_over_the_cap_by_content_length_is_413_before_the_app_reads() -> None:
    sent = asyncio.run(call(BodyLimit(echo_app, 100), http_scope(101), [b"x" * 101]))
    assert sent[0]["status"] == 413 and len(sent) == 2
    assert json.loads(sent[1]["body"])["code"] == "too_large"


def test_streamed_body_over_the_cap_is_413_and_the_apps_answer_is_dropped() -> None:
    sent = asyncio.run(call(BodyLimit(echo_app, 100), http_scope(), [b"x" * 60] * 5))
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [413]
    assert len(sent) == 2


def test_security_headers_on_every_response_unless_set() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 404,
                "headers": [(b"x-frame-options", b"SAMEORIGIN")],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    sent = asyncio.run(call(SecurityHeaders(app), http_scope(), [b""]))
    headers = dict(sent[0]["headers"])
    assert headers[b"content-security-policy"] == CSP.encode()
    assert b"frame-ancestors 'none'" in headers[b"content-security-policy"]
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert headers[b"referrer-policy"] == b"no-referrer"
    assert headers[b"cross-origin-opener-policy"] == b"same-origin"
    assert headers[b"x-frame-options"] == b"SAMEORIGIN"  # the response's own wins
    assert len(sent[0]["headers"]) == 5


# -- the header-pending registry and uvicorn's limits ---------------------------------------------


class FakeProto:
    def __init__(self) -> None:
        self.closed_by: str | None = None

    def header_deadline_passed(self, evicted: bool = False) -> None:
        self.closed_by = "evicted" if evicted else "timeout"


def test_pending_headers_evict_the_oldest_over_the_cap_but_not_a_fresh_burst() -> None:
    clock = FakeClock()
    pending = PendingHeaders(cap=3, timeout=10, min_age=1.0, clock=clock)
    old = [FakeProto() for _ in range(3)]
    for p in old:
        pending.add(p)
    clock.t += 0.5
    burst = FakeProto()
    pending.add(burst)  # the oldest waited 0.5 s only: a burst, no one is closed
    assert len(pending) == 4 and all(p.closed_by is None for p in old)
    clock.t += 1.0
    newest = FakeProto()
    pending.add(newest)  # now the old ones are 1.5 s old: two go (back to the cap)
    assert [p.closed_by for p in old] == ["evicted", "evicted", None]
    assert len(pending) == 3 and pending.evicted == 2 and newest.closed_by is None
    pending.remove(old[2])
    assert len(pending) == 2


def test_pending_headers_past_twice_the_cap_evict_whatever_their_age() -> None:
    pending = PendingHeaders(cap=2, timeout=10, min_age=1.0, clock=FakeClock())
    protos = [FakeProto() for _ in range(6)]
    for p in protos:
        pending.add(p)  # all at the same instant: a flood faster than min_age
    assert len(pending) == 4
    assert [p.closed_by for p in protos] == ["evicted", "evicted", None, None, None, None]


def test_uvicorn_limits_follow_the_file_limit() -> None:
    s = Settings(http_concurrency_max=10_000, http_pending_max=256)
    assert files.concurrency_limit(s, fds=1024) == 1024 - files.FD_MARGIN
    assert files.concurrency_limit(s, fds=65536) == 10_000
    assert files.pending_limit(s, fds=1024) == 256
    assert files.pending_limit(s, fds=512) == 128


def test_the_default_concurrency_holds_2000_rooms_of_8_and_http_beside_them() -> None:
    # an open WebSocket counts: at 10,000 a server past 1,250 full rooms answered HTTP 503
    assert files.concurrency_limit(Settings(), fds=1 << 20) >= 2000 * 8 + 1000


def test_the_server_lifts_its_soft_file_limit_to_the_hard_one() -> None:
    import subprocess
    import sys

    code = (
        "import resource\n"
        "from crisp.server.socket.files import raise_file_limit\n"
        "_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "want = 1 << 20 if hard == resource.RLIM_INFINITY else min(hard, 1 << 20)\n"
        "print(raise_file_limit(), want)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got, want = done.stdout.split()
    assert got == want and int(got) > 256


def test_every_limit_setting_is_documented_in_docs_limits() -> None:

    doc = (ROOT / "docs" / "limits.md").read_text()
    names = list(Settings.model_fields)
    limits = names[names.index("rooms_max") :]
    missing = [n for n in limits if f"CRISP_{n.upper()}" not in doc]
    assert not missing, missing
    for code in (
        "4410",
        "4429",
        "1008",
        "1007",
        "rate_limited",
        "server_full",
        "room_full",
        "too_large",
        "host_not_human",
        "Retry-After",
    ):
        assert code in doc, code


def test_budget_filter_bounds_each_template_and_says_what_it_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from crisp.server.limits.logbudget import BudgetFilter

    clock = FakeClock()
    logger = logging.getLogger("crisp.test.filter")
    budget = BudgetFilter(lines=2, clock=clock)
    logger.addFilter(budget)
    try:
        with caplog.at_level(logging.INFO, logger="crisp.test.filter"):
            for i in range(50):  # 50 connections refused: the same template
                logger.info("refused a WebSocket from %s", f"10.0.0.{i}")
            logger.info("another kind of line")
            clock.t += 60
            logger.info("refused a WebSocket from %s", "10.0.0.99")
    finally:
        logger.removeFilter(budget)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "refused a WebSocket from 10.0.0.0",
        "refused a WebSocket from 10.0.0.1",
        "another kind of line",
        "48 more lines like 'refused a WebSocket from %s' were dropped (over 2 a minute)",
        "refused a WebSocket from 10.0.0.99",
    ]
