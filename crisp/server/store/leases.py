"""Room ownership for a store that many server processes share (``pgstore.py``).

Each room has one owner node at a time: its row holds ``owner``, an ``epoch`` and a lease expiry.
A node *claims* a room whose lease is free or expired by incrementing the epoch; it *renews* all
its leases in one statement every ``lease_renew_s``; every write of a room is conditional on the
epoch it claimed, in the same transaction, so a node that lost a room (paused, partitioned) can
never write it again: its write raises ``LeaseLost`` and the room is dropped, its sockets closed
with ``CloseCode.MOVED``. A node asked for a room another live node holds marks it *wanted*; the
holder releases it at its next renewal (a handover: the balancer sends the room's code here now).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from crisp.server.store.sqlite import StoredRoom


class LeaseLost(Exception):
    """This node no longer owns the room (another claimed it): the write changed nothing."""


class RoomBusy(Exception):
    """Another live node holds the room's lease; it was asked to hand it over."""


@dataclass
class Renewal:
    lost: set[str] = field(default_factory=set)  # rooms another node claimed: drop them
    wanted: set[str] = field(default_factory=set)  # rooms another node asked for: release them


class Leases(Protocol):
    node: str

    def claim(self, code: str) -> StoredRoom | None:
        """The room, now owned here (its epoch incremented), or None if there is no such room.
        Raises ``RoomBusy`` if another node's lease on it is still running."""

    def renew(self) -> Renewal:
        """Renew every lease held here, in one statement."""

    def wanted(self) -> set[str]:
        """The rooms held here that another node asked for (a cheap look, between renewals)."""

    def release(self, code: str) -> None:
        """Give the room up (its lease expires now); a no-op if it was lost already."""

    def expire_unheld(self, before: float) -> list[str]:
        """Remove the rooms no node holds, unchanged since ``before``; their codes."""

    def held(self) -> set[str]:
        """The rooms owned here."""
