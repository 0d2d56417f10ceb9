"""``CRISP_LOG_FORMAT=json``: every log line of ``crisp serve`` (uvicorn's too) is one JSON
object with ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, ``room`` when the
line is about a room, and ``exception`` when it carries a traceback."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any


def room_of(record: logging.LogRecord) -> str | None:
    """The room a line is about: its ``room`` attribute (``extra={"room": code}``), or the first
    argument of the server's ``"room %s ..."`` lines."""
    room = getattr(record, "room", None)
    if room is not None:
        return str(room)
    msg, args = record.msg, record.args
    if isinstance(msg, str) and msg.startswith("room %s") and isinstance(args, tuple) and args:
        return str(args[0])
    return None


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        line: dict[str, Any] = {
            "time": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if (room := room_of(record)) is not None:
            line["room"] = room
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def json_config(level: str) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for uvicorn's ``log_config``: every logger (uvicorn's, the
    server's, the root) writes JSON lines to standard error."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    quiet = {"handlers": ["json"], "level": level.upper(), "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {"json": handler},
        "loggers": {
            "uvicorn": quiet,
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": quiet,
        },
        "root": {"handlers": ["json"], "level": level.upper()},
    }
