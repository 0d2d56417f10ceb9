"""``CRISP_LOG_FORMAT=json`` makes every log line of ``crisp serve`` one JSON
object with ``time``, ``level``, ``logger`` and ``message`` (and ``room`` where there is one),
uvicorn's lines too."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from crisp.server.observe.logs import JsonFormatter


def test_json_formatter_names_the_room_of_a_room_line() -> None:
    record = logging.LogRecord(
        "crisp.server", logging.INFO, "x", 1, "room %s created", ("AB",), None
    )
    line = json.loads(JsonFormatter().format(record))
    assert line["room"] == "AB" and line["message"] == "room AB created"
    assert set(line) == {"time", "level", "logger", "message", "room"}


def test_crisp_serve_json_logs_every_line_a_json_object(tmp_path: Path) -> None:
    env = {**os.environ, "CRISP_LOG_FORMAT": "json", "CRISP_LIMIT_EXEMPT_IPS": '["127.0.0.1"]'}
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "crisp", "serve", "--host", "127.0.0.1", "--port", "0"]
    proc = subprocess.Popen(
        [*cmd, "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None and proc.stdout is not None
    lines: list[str] = []
    port = None
    try:
        for _ in range(200):  # bounded: the start lines
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if found := re.search(r"http://127\.0\.0\.1:(\d+)", line):
                port = int(found.group(1))
                break
        assert port is not None, lines
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/rooms",
            data=b'{"name": "Ann"}',
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            code = json.loads(resp.read())["code"]
        time.sleep(0.2)  # the lines reach the pipe (real time, not game time)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    lines += err.splitlines(keepends=True) + out.splitlines(keepends=True)
    parsed: list[dict[str, Any]] = [json.loads(line) for line in lines if line.strip()]
    assert all({"time", "level", "logger", "message"} <= set(p) for p in parsed), parsed
    loggers = {p["logger"] for p in parsed}
    assert {"uvicorn.error", "uvicorn.access", "crisp.server"} <= loggers, loggers
    assert any(p.get("room") == code for p in parsed), parsed
