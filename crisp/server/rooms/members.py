"""Seat tokens and player names (room codes: ``wire/roomcode.py``)."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

NAME_MAX = 20


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
