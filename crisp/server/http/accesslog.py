"""The access log without the health checks: requests for ``/healthz`` are left out.

A container runtime asks ``/healthz`` every 30 seconds and a proxy or a monitor may ask more often:
thousands of identical lines a day that bury the requests worth reading. ``crisp serve`` installs
this filter on uvicorn's access logger unless ``CRISP_ACCESS_LOG_HEALTHZ`` is true.
"""

from __future__ import annotations

import logging

ACCESS_LOGGER = "uvicorn.access"
HEALTH_PATHS = frozenset({"/healthz"})


class SkipHealthChecks(logging.Filter):
    """Drops uvicorn access records whose path (query left out) is a health check."""

    def filter(self, record: logging.LogRecord) -> bool:
        # uvicorn logs '%s - "%s %s HTTP/%s" %d' with (client, method, path, version, status).
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            return args[2].split("?", 1)[0] not in HEALTH_PATHS
        return True


def skip_health_checks(logger: logging.Logger | None = None) -> None:
    """Install the filter on uvicorn's access logger (once, however often this is called)."""
    target = logger or logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, SkipHealthChecks) for f in target.filters):
        target.addFilter(SkipHealthChecks())
