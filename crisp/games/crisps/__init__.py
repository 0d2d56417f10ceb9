"""Crisps!, the 2-player climbing game (``crisp.engine.crisps``), plugged into the server: its
adapter (``spec.py``, ``match.py``, ``moves.py``)."""

from crisp.games.crisps.spec import SPEC, CrispsSpec

__all__ = ["SPEC", "CrispsSpec"]
