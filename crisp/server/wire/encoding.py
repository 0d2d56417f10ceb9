"""The bytes of a message: compact JSON, the same every time."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def encode(msg: Mapping[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
