"""A real PostgreSQL server (Debian's package) for tests: initdb in a temporary directory, started
with pg_ctl on 127.0.0.1 and a free port, as an unprivileged user (``nobody`` when the tests run
as root: PostgreSQL refuses root). ``.ci/run`` installs the package when it is missing."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path


def pg_bin() -> Path | None:
    """Debian's PostgreSQL binaries (the newest installed version), or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parent.parent.name)
    )
    return Path(found[-1]).parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgServer:
    def __init__(self) -> None:
        bin_dir = pg_bin()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="crisp-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "nobody")
            self.as_user = ["runuser", "-u", "nobody", "--"]
        os.chmod(self.root, 0o700)

    def _run(self, *cmd: str) -> None:
        subprocess.run([*self.as_user, *cmd], check=True, capture_output=True, cwd=self.root)

    def start(self) -> PgServer:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "crisp",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        self.resume()
        return self

    def halt(self) -> None:
        """Stop the server at once, keeping its data (an outage: ``resume`` ends it)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start the server on its data (after ``start`` made it, or ``halt`` stopped it)."""
        opts = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=100"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "log"),
            "-o",
            opts,
            "-w",
            "-t",
            "60",
            "start",
        )

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://crisp@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.data.exists():
            cmd = [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]
            subprocess.run([*self.as_user, *cmd], check=False, capture_output=True, cwd=self.root)
        shutil.rmtree(self.root, ignore_errors=True)
