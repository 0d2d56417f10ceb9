"""Running the ``crisp`` command as a user would, for the CLI tests."""

from __future__ import annotations

import subprocess
import sys


def crisp(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m crisp ARGS`` with its output captured (it never raises on a non-zero exit)."""
    return subprocess.run(
        [sys.executable, "-m", "crisp", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
