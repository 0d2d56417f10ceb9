"""Hostile input against a real ``crisp serve``: hypothesis over the client message models of
crisp/server/wire/protocol.py (right and wrong types, missing and extra fields, huge and odd values)
from a seated player and a watcher, plus raw frames (deep nesting, 1e400, 4,000-digit numbers,
binary, invalid UTF-8, fragments, empty, 4 KB + 1). No message may be answered ``internal`` or
leave a traceback in the log, and after each batch the room still plays: a ``ping`` is answered
on every connection. About 1,500 messages in all."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import typing
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from serverproc import ServerProcess

from crisp.server.wire import protocol as P

FAST = {"CRISP_RATE_PER_S": "100000", "CRISP_RATE_BURST": "100000", "CRISP_FIXED_SEED": "7"}
BATCHES = 30
PER_BATCH = 50  # 30 x 50 = 1,500 messages from the models

odd = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**30, max_value=10**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.text(alphabet="\x00\u202e\ufeff\ud7ff<>&\"'", max_size=10),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def right_values(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of a field's own type where easy (literals, small ints), else odd ones."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return st.sampled_from(args)
    if args:  # a union, Optional, Annotated
        return st.one_of(*(right_values(a) for a in args if a is not type(None)), st.none())
    if annotation is int:
        return st.integers(-2, 12)
    if annotation is bool:
        return st.booleans()
    if annotation is str:
        return st.text(max_size=40)
    if annotation is float:
        return st.floats(-5, 700)
    return odd


def message(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    """A message of ``model``'s type: mostly right values (so that many are valid and reach the
    room), some odd ones, required fields sometimes missing, an extra field now and then."""
    kind = typing.get_args(model.model_fields["type"].annotation)[0]

    def value(f: Any) -> st.SearchStrategy[Any]:
        right = right_values(f.annotation)
        return st.one_of(*[right] * 7, odd)

    fields = {n: f for n, f in model.model_fields.items() if n != "type"}
    required = {n: value(f) for n, f in fields.items() if f.is_required()}
    optional = {n: value(f) for n, f in fields.items() if not f.is_required()}
    body = st.one_of(
        st.fixed_dictionaries(required, optional=optional),
        st.fixed_dictionaries({}, optional={**required, **optional}),
    )
    extra = st.dictionaries(st.sampled_from(["x", "seat", "token", "__proto__"]), odd, max_size=1)
    rarely_extra = st.one_of(st.just({}), st.just({}), st.just({}), extra)
    return st.builds(lambda b, e: {"type": kind, **b, **e}, body, rarely_extra)


models = st.sampled_from(P.CLIENT_TYPES).flatmap(message)
junk = st.one_of(
    st.builds(lambda t: {"type": t}, st.text(max_size=12)),
    st.dictionaries(st.text(max_size=5), odd, max_size=3),
    odd,
)
messages = st.integers(0, 9).flatmap(lambda i: junk if i == 0 else models)  # 1 in 10 is junk


class Fuzz:
    """A room (two players and a watcher) on its own loop; connections re-opened when closed."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        host = server.create_room("Host")
        guest = server.join(host["code"], "Guest")
        self.code = host["code"]
        self.tokens: dict[str, str | None] = {
            "host": host["token"],
            "guest": guest["token"],
            "watcher": None,
        }
        self.ws: dict[str, Any] = {}
        self.answers: list[dict[str, Any]] = []
        self.batches = 0

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    async def conn(self, who: str) -> Any:
        ws = self.ws.get(who)
        if ws is None or ws.close_code is not None:
            ws = await websockets.connect(
                f"{self.server.ws_base}/ws/{self.code}", compression=None, max_size=2**22
            )
            await ws.send(json.dumps({"type": "hello", "token": self.tokens[who]}))
            self.ws[who] = ws
        return ws

    async def send(self, who: str, frame: str | bytes) -> None:
        ws = await self.conn(who)
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(frame)

    async def barrier(self, n: int) -> None:
        """A ping on every connection is answered; everything received before is kept. A member
        who left or was removed joins again (a new token) and reconnects."""
        for who in self.tokens:
            for _ in range(3):
                ws = await self.conn(who)
                try:
                    await ws.send(json.dumps({"type": "ping", "n": n}))
                    while True:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        self.answers.append(msg)
                        if msg.get("type") == "pong" and msg.get("n") == n:
                            break
                    break
                except websockets.ConnectionClosed:
                    if ws.close_code in (4401, 4409) and who != "watcher":  # left or removed:
                        joined = self.server.join(self.code, f"{who} {n}")  # join again
                        self.tokens[who] = joined["token"]
            else:
                raise AssertionError(f"{who}: no pong after three connections")

    def internal(self) -> list[dict[str, Any]]:
        return [m for m in self.answers if m.get("type") == "error" and m.get("code") == "internal"]

    def close(self) -> None:
        for ws in self.ws.values():
            self.run(ws.close())
        self.loop.close()


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    server = ServerProcess(tmp_path_factory.mktemp("fuzz"), clock_speed=5.0, env=FAST).start()
    f = Fuzz(server)
    yield f
    f.close()
    server.stop()


def tracebacks(server: ServerProcess, since: int) -> list[str]:
    """The tracebacks the server logged after its ``since``-th line of output."""
    text = "".join(server.output[since:])
    return [part[:300] for part in text.split("Traceback")[1:]]


@settings(
    max_examples=BATCHES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    batch=st.lists(
        st.tuples(st.sampled_from(["host", "guest", "watcher"]), messages),
        min_size=PER_BATCH,
        max_size=PER_BATCH,
    )
)
def test_message_models_fuzzed_never_answer_internal(fuzz: Fuzz, batch: list[Any]) -> None:
    since = len(fuzz.server.output)

    async def run() -> None:
        for who, msg in batch:
            await fuzz.send(who, json.dumps(msg))
        await fuzz.barrier(len(fuzz.answers))

    fuzz.run(run())
    assert fuzz.internal() == []
    assert tracebacks(fuzz.server, since) == []
    fuzz.batches += 1
    if fuzz.batches == BATCHES:  # what the fuzzing reached, for the log
        kinds = Counter(
            f"{m['code']} ({m.get('about')})" if m["type"] == "error" else m["type"]
            for m in fuzz.answers
        )
        print(f"\n{BATCHES * PER_BATCH} fuzzed messages; answers: {dict(kinds.most_common())}")


# -- raw frames -----------------------------------------------------------------------------------


def raw_socket(server: ServerProcess, code: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(
        f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101")
    return s


def frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A client frame (masked with a zero key, so the payload goes as is)."""
    first = (0x80 if fin else 0) | opcode
    n = len(payload)
    size = bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
    return bytes([first]) + size + b"\0\0\0\0" + payload


def read_frames(s: socket.socket, until: bytes | None = None) -> list[tuple[int, bytes]]:
    """Every frame until the server closes, 2 s of silence, or a text frame ``until``; then the
    client closes (a close sent with the frames could cut the answers short: uvicorn closes the
    transport as soon as a client's close arrives)."""
    data = b""
    s.settimeout(2)
    frames: list[tuple[int, bytes]] = []
    try:
        while chunk := s.recv(65536):
            data += chunk
            frames = parse(data)
            if until is not None and (1, until) in frames:
                s.sendall(frame(8, struct.pack("!H", 1000)))
                until = None
    except OSError:
        pass
    return parse(data)


def parse(data: bytes) -> list[tuple[int, bytes]]:
    frames, i = [], 0
    while i + 2 <= len(data):
        opcode, n, head = data[i] & 0x0F, data[i + 1] & 0x7F, 2
        if n == 126:
            n, head = struct.unpack("!H", data[i + 2 : i + 4])[0], 4
        if i + head + n > len(data):
            break
        frames.append((opcode, data[i + head : i + head + n]))
        i += head + n
    return frames


HELLO = frame(1, b'{"type":"hello"}')
PING = frame(1, b'{"type":"ping","n":99}')

RAW: dict[str, tuple[bytes, str]] = {
    # name: (frames after a hello, what must come back: an error code or "close NNNN")
    "1e400": (frame(1, b'{"type":"act","v":1e400,"do":"draw"}'), "bad_message"),
    # parsed (under 4,300 digits), then refused as a watcher's act (in the lobby, or in a game
    # the fuzzing started):
    "4000 digits": (
        frame(1, b'{"type":"act","v":' + b"9" * 4000 + b',"do":"draw"}'),
        "bad_phase|bad_version|forbidden",
    ),
    "4096 digits": (frame(1, b"9" * 4096), "bad_message"),  # a number, not an object
    "10**5000": (frame(1, b"1" + b"0" * 5000), "close 1009"),  # over the 4 KB cap
    "NaN": (frame(1, b'{"type":"ping","n":NaN}'), "bad_json"),  # strict JSON: NaN is not
    "binary": (frame(2, b'{"type":"ping"}'), "bad_message"),
    "empty": (frame(1, b""), "bad_json"),
    "not an object": (frame(1, b"[1,2]"), "bad_message"),
    "4 KB + 1": (frame(1, b'"' + b"a" * 4095 + b'"'), "close 1009"),
    "invalid UTF-8": (frame(1, b'{"type":"\xff\xfe"}'), "close 1007"),
    "fragments": (frame(1, b'{"type":"pi', fin=False) + frame(0, b'ng","n":99}'), "pong"),
    "ping inside fragments": (
        frame(1, b'{"type":"pi', fin=False) + frame(9, b"x") + frame(0, b'ng","n":99}'),
        "pong",
    ),
    "continuation first": (frame(0, b"{}"), "close 1002"),
    "unknown opcode": (frame(3, b"{}"), "close 1002"),
}


@pytest.mark.parametrize("name", sorted(RAW))
def test_raw_frames_get_a_typed_answer_or_a_close_code(fuzz: Fuzz, name: str) -> None:
    payload, want = RAW[name]
    since = len(fuzz.server.output)
    s = raw_socket(fuzz.server, fuzz.code)
    if want.startswith("close"):
        s.sendall(HELLO + payload)
        got = read_frames(s)
    else:  # then a ping; the client closes once its pong is in
        s.sendall(HELLO + payload + PING)
        got = read_frames(s, until=b'{"type":"pong","n":99}')
    s.close()
    texts = [json.loads(p) for op, p in got if op == 1]
    closes = [struct.unpack("!H", p[:2])[0] for op, p in got if op == 8 and len(p) >= 2]
    if want.startswith("close"):
        assert int(want.split()[1]) in closes, (got[-3:], closes)
    elif want == "pong":
        assert any(m["type"] == "pong" and m.get("n") == 99 for m in texts), texts
    else:
        errors = [m["code"] for m in texts if m["type"] == "error"]
        assert errors and errors[0] in want.split("|"), texts
        assert any(m["type"] == "pong" for m in texts), texts  # and the socket still works
    assert not [m for m in texts if m.get("code") == "internal"]
    fuzz.run(fuzz.barrier(10**6 + len(name)))  # the room plays on
    assert tracebacks(fuzz.server, since) == []


def test_deep_nesting_is_bad_json_without_a_traceback(fuzz: Fuzz) -> None:
    since = len(fuzz.server.output)
    s = raw_socket(fuzz.server, fuzz.code)
    s.sendall(HELLO + frame(1, b"[" * 2000) + PING)
    texts = [json.loads(p) for op, p in read_frames(s, until=b'{"type":"pong","n":99}') if op == 1]
    s.close()
    errors = [m["code"] for m in texts if m["type"] == "error"]
    assert errors == ["bad_json"], texts
    assert tracebacks(fuzz.server, since) == []
