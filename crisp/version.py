"""The version of Crisp: the package's (pyproject.toml's ``version``), as installed."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

# The distribution's name on the package index (the import package is ``crisp``).
DISTRIBUTION = "crisp-cards"


def crisp_version() -> str:
    """``0.1.0``, say; ``unknown`` when the package is not installed (run from a bare checkout)."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
