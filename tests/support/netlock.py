"""The machine's network, shared by the test workers.

podman's containers add and remove virtual interfaces as they start and stop (and an image build's
steps too), and Chromium takes any such change as its network changing: it fails the requests in
flight with ``ERR_NETWORK_CHANGED``, so a page loading its modules then stays blank. A test module
that runs containers therefore holds the network alone for its whole life (``network(True)``), and
a browser test holds it shared (``network(False)``): the two never overlap, while browser tests
still run side by side and other tests are not held at all."""

from __future__ import annotations

import contextlib
import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK = Path(tempfile.gettempdir()) / "crisp-test-network.lock"


@contextlib.contextmanager
def network(alone: bool) -> Iterator[None]:
    """Hold the machine's network: alone (containers), or shared (browsers)."""
    with LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
