"""Crisp, the memory-and-bluff card game (``crisp.engine``), plugged into the server."""

from crisp.games.crisp.spec import SPEC, CrispSpec

__all__ = ["SPEC", "CrispSpec"]
