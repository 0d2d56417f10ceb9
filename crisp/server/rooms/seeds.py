"""The server's half of the commit–reveal shuffle (docs/fairness.md): a secret seed drawn when a
lobby opens and at each rematch, kept in the room's stored lobby state (hex) and never sent or
logged; only its SHA-256, the commitment, goes out (the ``room`` message), before anyone can
start. The game reveals the seed itself once it is over (Crisp: ``game_over`` and the record)."""

from __future__ import annotations

from crisp.engine.common.fairness import commitment_of, new_server_seed, seed_from_int

#: A client seed: 1 to 64 characters (a phone sends 32 hex digits of ``crypto.getRandomValues``).
CLIENT_SEED_MAX = 64


def draw_server_seed(fixed_seed: int | None) -> str:
    """A new server seed, hex: 32 bytes of the operating system's CSPRNG; with the ``fixed_seed``
    test setting S, ``SHA-256(b"crisp-seed:" + S in decimal)``, the server seed of the engine's
    ``Fairness.from_int(S, n)`` (docs/fairness.md, "Integer seeds"), so that its deals are known."""
    if fixed_seed is not None:
        return seed_from_int(fixed_seed).hex()
    return new_server_seed().hex()


def commitment(server_seed_hex: str) -> str:
    """SHA-256 of the seed's bytes, lower-case hex."""
    return commitment_of(bytes.fromhex(server_seed_hex))
