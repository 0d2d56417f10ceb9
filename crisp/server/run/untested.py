"""Which runtime dependencies are installed at a version outside the range the package declares
(pyproject.toml's ranges are the tested ones): ``crisp serve`` says so in one line at start."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, requires, version

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from crisp.version import DISTRIBUTION

# The marker environment of the runtime requirements: no extra (the dev tools are not checked).
RUNTIME = {"extra": ""}


def untested(requirements: Iterable[str], installed: Callable[[str], str | None]) -> list[str]:
    """``"uvicorn 0.55.0 (tested: <0.55,>=0.54)"`` for each runtime requirement of this platform
    whose installed version (``installed(name)``, None when absent) is outside its range."""
    found: list[str] = []
    for line in requirements:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue  # not ours to judge: the installer accepted the metadata
        if req.marker is not None and not req.marker.evaluate(RUNTIME):
            continue
        tested = str(req.specifier) or "any"
        have = installed(req.name)
        if have is None:
            found.append(f"{req.name} missing (tested: {tested})")
        elif not _within(req, have):
            found.append(f"{req.name} {have} (tested: {tested})")
    return found


def _within(req: Requirement, have: str) -> bool:
    try:
        return req.specifier.contains(Version(have), prereleases=True)
    except InvalidVersion:
        return False


def installed_version(name: str) -> str | None:
    """The installed version of the distribution ``name``, or None."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def untested_here(distribution: str = DISTRIBUTION) -> list[str]:
    """``untested`` for the installed ``distribution``'s declared requirements; nothing when it is
    not installed (a bare checkout declares nothing)."""
    try:
        declared = requires(distribution) or []
    except PackageNotFoundError:
        return []
    return untested(declared, installed_version)


def untested_line(found: list[str]) -> str | None:
    """The one line to log about ``found``, or None when every version is a tested one."""
    if not found:
        return None
    return (
        f"running on untested versions: {'; '.join(found)} "
        f"(the ranges {DISTRIBUTION} declares are the tested ones)"
    )


def warn_if_untested(log: logging.Logger, found: list[str]) -> None:
    """Log ``untested_line(found)`` as one warning, if there is one."""
    line = untested_line(found)
    if line is not None:
        log.warning("%s", line)
