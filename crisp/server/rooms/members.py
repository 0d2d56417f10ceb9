"""Room codes, seat tokens and player names."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

# Letters only (no keyboard switching on a phone), none that look or sound alike:
# no B/D/E/G/P/T/V (rhyme aloud), no I/L/O (look like 1/0), no S/Z (look like 5/2), no U.
CODE_ALPHABET = "ACFHJKMNQRWXY"
# 13**12 = 23,298,085,122,481 codes: guessing one is hopeless at the allowed lookup rates
# (docs/limits.md has the arithmetic). Shown in groups of 4 (``display_code``): ACFH-JKMN-QRWX.
CODE_LENGTH = 12
CODE_GROUP = 4
LEGACY_CODE_LENGTH = 5  # rooms made before codes grew (13**5 = 371,293): they still load and join
NAME_MAX = 20


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    """What a person typed, as a code: case, spaces and hyphens (``display_code``'s groups) do
    not matter. A code of either length comes back as typed, without them."""
    return "".join(code.replace("-", " ").split()).upper()


def is_code(code: str) -> bool:
    """A normalized code of a current or an older room: the right length and letters."""
    return len(code) in (CODE_LENGTH, LEGACY_CODE_LENGTH) and all(c in CODE_ALPHABET for c in code)


def display_code(code: str) -> str:
    """A code as shown to people: ``ACFHJKMNQRWX`` as ``ACFH-JKMN-QRWX`` (older codes as they
    were)."""
    if len(code) != CODE_LENGTH:
        return code
    return "-".join(code[i : i + CODE_GROUP] for i in range(0, len(code), CODE_GROUP))


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """Only this is stored: a copy of the database does not let anyone take a seat."""
    return hashlib.sha256(token.encode()).hexdigest()


BOT_NAMES = ("Ada", "Basil", "Cleo", "Dora", "Elio", "Fern", "Gus", "Hugo")


def clean_name(raw: str) -> str:
    """Trimmed, inner spaces collapsed, control and format characters removed, at most
    ``NAME_MAX`` characters. Raise ValueError if nothing is left. Shown as text, never HTML."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in unicodedata.normalize("NFC", raw)
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    )
    name = " ".join(kept.split())[:NAME_MAX].strip()
    if not name:
        raise ValueError("a name needs at least one visible character")
    return name


@dataclass
class Member:
    id: int
    name: str
    token_hash: str
    joined: float  # epoch seconds
    bot: str | None = None  # a bot member's level; it has no token

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "token_hash": self.token_hash,
            "joined": self.joined,
            "bot": self.bot,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Member:
        return cls(
            int(data["id"]),
            str(data["name"]),
            str(data["token_hash"]),
            float(data["joined"]),
            data.get("bot"),
        )
