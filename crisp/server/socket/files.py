"""File descriptors, the resource every connection holds: the process's limit, raised, and the
connection limits derived from it."""

from __future__ import annotations

import contextlib
import resource

from crisp.server.settings import Settings

FD_MARGIN = 64  # file descriptors kept for the database, logs and listening sockets


def file_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_file_limit() -> int:
    """Lift the process's soft limit on open files to its hard limit (at most 2**20): a socket
    is a file, and the usual soft limit of 1,024 would cap a server at about 120 rooms of 8.
    Returns the limit now in force (unchanged if the system refuses)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1 << 20 if hard == resource.RLIM_INFINITY else min(hard, 1 << 20)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return file_limit()


def concurrency_limit(settings: Settings, fds: int | None = None) -> int:
    """uvicorn's ``limit_concurrency``: the setting, at most the file limit less a margin."""
    fds = file_limit() if fds is None else fds
    return max(16, min(settings.http_concurrency_max, fds - FD_MARGIN))


def pending_limit(settings: Settings, fds: int | None = None) -> int:
    """Connections still sending headers at most: the setting, at most a quarter of the files
    (twice it, the hard cap of a burst, stays below half)."""
    fds = file_limit() if fds is None else fds
    return max(8, min(settings.http_pending_max, fds // 4))
