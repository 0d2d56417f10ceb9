"""Room codes: how they are made, typed and shown. A code names a room in every URL and in the
protocol's messages, so it belongs to the wire's vocabulary; nothing here knows a room."""

from __future__ import annotations

import secrets

# Letters only (no keyboard switching on a phone), none that look or sound alike:
# no B/D/E/G/P/T/V (rhyme aloud), no I/L/O (look like 1/0), no S/Z (look like 5/2), no U.
CODE_ALPHABET = "ACFHJKMNQRWXY"
# 13**12 = 23,298,085,122,481 codes: guessing one is hopeless at the allowed lookup rates
# (docs/limits.md has the arithmetic). Shown in groups of 4 (``display_code``): ACFH-JKMN-QRWX.
CODE_LENGTH = 12
CODE_GROUP = 4
LEGACY_CODE_LENGTH = 5  # rooms made before codes grew (13**5 = 371,293): they still load and join


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
