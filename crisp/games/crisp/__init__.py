"""Crisp, the memory-and-bluff card game (``crisp.engine.crisp``), plugged into the server: its
adapter (``spec.py``, ``match.py``, ``moves.py``) and its wire models (``wire.py``)."""

from crisp.games.crisp.spec import SPEC, CrispSpec

__all__ = ["SPEC", "CrispSpec"]
