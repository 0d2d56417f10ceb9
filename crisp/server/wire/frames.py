"""What the server writes in one text frame (docs/protocol.md, "Frames"): one message as it is, or
several as a JSON array, in order. The messages are JSON texts already (each encoded once, shared by
every connection it goes to), so an array is only joined, never encoded again."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["frame"]


def frame(texts: Sequence[str]) -> str:
    """One frame of the messages ``texts`` (at least one), in order."""
    if len(texts) == 1:
        return texts[0]
    return "[" + ",".join(texts) + "]"
