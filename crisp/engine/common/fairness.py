"""The commit–reveal shuffle ``hmac-sha256/1`` (the full text is docs/fairness.md).

Before anyone may start, the server draws ``server_seed`` (32 bytes from the OS's CSPRNG) and
publishes ``commitment = SHA-256(server_seed)`` in lower-case hex. Each phone adds a client seed;
at the start the seated players' client seeds, in seat order, are fixed and published. Then:

- ``game_key = HMAC-SHA256(server_seed, UTF-8 of the compact JSON array of the client seeds)``;
- the stream labelled ``label`` is ``HMAC-SHA256(game_key, label + i as 4 bytes big-endian)`` for
  i = 0, 1, 2, …, read as 8-byte big-endian unsigned integers; ``below(n)`` reads integers until
  one is below ``2^64 − (2^64 mod n)`` and returns it mod n;
- each game reads its deals from streams of its own labels (Crisp: ``crisp.engine.crisp.shuffle``,
  Crisps!: ``crisp.engine.crisps.shuffle``).

At the end of the game ``server_seed`` is revealed, and anyone can check the commitment and every
deal. Nothing here reads a clock; only ``new_server_seed`` touches the operating system.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: The name of this derivation in a record's ``"shuffle"`` field.
SCHEME = "hmac-sha256/1"
SEED_BYTES = 32
#: The longest client seed accepted (a phone sends 32 hex digits; a bot or silent seat "").
MAX_CLIENT_SEED = 64
_HEX64 = re.compile(r"[0-9a-f]{64}")
_TWO64 = 1 << 64
_BLOCK = struct.Struct(">4Q")  # one HMAC-SHA256 output: four 8-byte big-endian integers


def new_server_seed() -> bytes:
    """A fresh server seed: 32 bytes from the operating system's CSPRNG (``secrets``)."""
    return secrets.token_bytes(SEED_BYTES)


def seed_from_int(seed: int) -> bytes:
    """The server seed of an integer seed, for simulations and tests (never for a real game):
    ``SHA-256(b"crisp-seed:" + the seed in decimal ASCII)``: 7 gives SHA-256(b"crisp-seed:7")."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"an integer seed is an int, not {seed!r}")
    return hashlib.sha256(b"crisp-seed:" + str(seed).encode("ascii")).digest()


def commitment_of(server_seed: bytes) -> str:
    """``SHA-256(server_seed)`` in lower-case hex: what the server publishes before the start."""
    return hashlib.sha256(server_seed).hexdigest()


def client_seeds_json(client_seeds: Sequence[str]) -> bytes:
    """The HMAC message of the game key: the compact JSON array of the client seeds (as
    JavaScript's ``JSON.stringify`` writes it: no spaces, non-ASCII as is), in UTF-8."""
    text = json.dumps(list(client_seeds), separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def game_key(server_seed: bytes, client_seeds: Sequence[str]) -> bytes:
    """``HMAC-SHA256(key=server_seed, msg=client_seeds_json(client_seeds))``."""
    return hmac.digest(server_seed, client_seeds_json(client_seeds), "sha256")


class _Keyed:
    """HMAC-SHA256 under one key with the padded key blocks hashed once (RFC 2104): the same
    bytes as ``hmac.digest(key, msg, "sha256")``, about twice as fast for the many short
    messages of a stream."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def digest(self, msg: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


class Stream:
    """The stream labelled ``label`` of a game key, read as 8-byte big-endian integers."""

    __slots__ = ("_buf", "_counter", "_key", "_label", "_pos")

    def __init__(self, key: bytes | _Keyed, label: bytes) -> None:
        self._key = key if isinstance(key, _Keyed) else _Keyed(key)
        self._label = label
        self._counter = 0
        self._buf: tuple[int, ...] = ()
        self._pos = 0

    def next64(self) -> int:
        if self._pos == len(self._buf):
            if self._counter > 0xFFFFFFFF:
                raise OverflowError("a stream has at most 2^32 blocks")
            block = self._label + self._counter.to_bytes(4, "big")
            self._buf = _BLOCK.unpack(self._key.digest(block))
            self._counter += 1
            self._pos = 0
        x = self._buf[self._pos]
        self._pos += 1
        return x

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``: integers at or above ``2^64 − (2^64 mod n)`` are
        rejected (read past), so there is no modulo bias."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _TWO64 - _TWO64 % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n


def _check_client_seeds(client_seeds: Sequence[str]) -> tuple[str, ...]:
    seeds = tuple(client_seeds)
    for i, s in enumerate(seeds):
        if not isinstance(s, str):
            raise ValueError(f"client seed {i} must be a string, not {s!r}")
        if len(s) > MAX_CLIENT_SEED:
            raise ValueError(f"client seed {i} is longer than {MAX_CLIENT_SEED} characters")
        try:
            s.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(f"client seed {i} is not valid Unicode text") from err
    return seeds


def _check_commitment(commitment: str) -> str:
    if not isinstance(commitment, str) or not _HEX64.fullmatch(commitment):
        raise ValueError("a commitment is 64 lower-case hex digits (a SHA-256)")
    return commitment


@dataclass(frozen=True, slots=True)
class Committed:
    """The public half of a game's fairness, before the end: the commitment and the client
    seeds. A game replayed from an unfinished record knows this much; it derives nothing."""

    commitment: str
    client_seeds: tuple[str, ...]

    def __post_init__(self) -> None:
        _check_commitment(self.commitment)
        object.__setattr__(self, "client_seeds", _check_client_seeds(self.client_seeds))

    def to_record(self) -> dict[str, Any]:
        """The record's ``fairness`` object before the end (no server seed)."""
        return {"commitment": self.commitment, "client_seeds": list(self.client_seeds)}


@dataclass(frozen=True, slots=True)
class Fairness:
    """The inputs of a game's shuffle: the server's secret seed and the seats' client seeds (in
    seat order; ``""`` for a bot or a seat that sent none)."""

    server_seed: bytes
    client_seeds: tuple[str, ...]
    _key: _Keyed = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.server_seed, bytes) or len(self.server_seed) != SEED_BYTES:
            raise ValueError(f"a server seed is {SEED_BYTES} bytes")
        seeds = _check_client_seeds(self.client_seeds)
        object.__setattr__(self, "client_seeds", seeds)
        object.__setattr__(self, "_key", _Keyed(game_key(self.server_seed, seeds)))

    @classmethod
    def from_int(cls, seed: int, players: int) -> Fairness:
        """A simulation's or a test's fairness: the server seed of ``seed_from_int(seed)`` and
        ``players`` empty client seeds (as for bots)."""
        return cls(seed_from_int(seed), ("",) * players)

    def commitment(self) -> str:
        return commitment_of(self.server_seed)

    def key(self) -> bytes:
        """The game key (HMAC-SHA256 of the client seeds under the server seed)."""
        return game_key(self.server_seed, self.client_seeds)

    def stream(self, label: bytes) -> Stream:
        """The stream labelled ``label`` of this game's key."""
        return Stream(self._key, label)

    def public(self) -> Committed:
        """What may be shown before the end: the commitment and the client seeds."""
        return Committed(self.commitment(), self.client_seeds)

    def to_record(self) -> dict[str, Any]:
        """The record's ``fairness`` object once the game is over (the seed revealed)."""
        return {
            "commitment": self.commitment(),
            "server_seed": self.server_seed.hex(),
            "client_seeds": list(self.client_seeds),
        }


def fairness_from_record(data: Any, players: int) -> Fairness | Committed:
    """The ``fairness`` object of a record: a ``Fairness`` when it reveals the server seed, a
    ``Committed`` before the end. Raises ValueError, saying what is wrong, if malformed."""
    if not isinstance(data, dict):
        raise ValueError("fairness must be an object")
    unknown = set(data) - {"commitment", "server_seed", "client_seeds"}
    if unknown:
        raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
    seeds = data.get("client_seeds")
    if not isinstance(seeds, list):
        raise ValueError("client_seeds must be a list of strings, one a seat")
    if len(seeds) != players:
        raise ValueError(f"client_seeds has {len(seeds)} seeds for {players} seats")
    try:
        _check_commitment(data.get("commitment"))  # type: ignore[arg-type]
    except ValueError as err:
        raise ValueError(f"commitment: {err}") from None
    committed = Committed(data["commitment"], tuple(seeds))
    if "server_seed" not in data:
        return committed
    seed = data["server_seed"]
    if not isinstance(seed, str) or not _HEX64.fullmatch(seed):
        raise ValueError("server_seed is 64 lower-case hex digits (32 bytes)")
    return Fairness(bytes.fromhex(seed), committed.client_seeds)
