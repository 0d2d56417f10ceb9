"""The Docker image (``Dockerfile``, ``.dockerignore``), tested without a Docker engine.

The Dockerfile is parsed (continuation lines, comments, stages, exec and shell forms) and its
properties are checked: python:3.11-slim, the package installed with pip from the repository with
no dev dependencies, a non-root user owning the ``/data`` VOLUME, ``CRISP_DATA_DIR=/data``,
``CRISP_HOST=0.0.0.0``, port 8000 exposed, a HEALTHCHECK on ``/healthz`` with Python's urllib, and
``CMD ["crisp", "serve"]``. Then the image's command is run outside Docker with the image's ENV
(but host 127.0.0.1, a free port and a temporary data directory) and the HEALTHCHECK command,
taken from the Dockerfile, is run with a shell against it.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
BASE = "python:3.11-slim"


# -- a small Dockerfile parser ---------------------------------------------------------------------


@dataclass
class Instruction:
    keyword: str  # upper case: FROM, RUN, ...
    args: str  # the rest, continuation lines joined
    line: int  # 1-based line of the instruction's start


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction:
        found = self.all(keyword)
        assert found, f"the stage FROM {self.base} has no {keyword}"
        return found[-1]

    def index(self, instruction: Instruction) -> int:
        return self.instructions.index(instruction)

    def env(self) -> dict[str, str]:
        """Every ENV of the stage, in order (a later one wins)."""
        values: dict[str, str] = {}
        for ins in self.all("ENV"):
            tokens = shlex.split(ins.args)
            if "=" not in tokens[0]:  # the old form: ENV KEY value with spaces
                values[tokens[0]] = ins.args.split(None, 1)[1]
                continue
            for token in tokens:
                key, sep, value = token.partition("=")
                assert sep, f"line {ins.line}: ENV {token!r} is not KEY=value"
                values[key] = value
        return values


def parse(text: str) -> list[Stage]:
    """The stages of a Dockerfile (parser directives and comments dropped, lines joined)."""
    joined: list[tuple[int, str]] = []
    buffer, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not buffer and not stripped):
            continue  # a comment, also inside a continuation, or a blank line
        if not buffer:
            start = number
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        joined.append((start, buffer + stripped))
        buffer = ""
    assert not buffer, "the Dockerfile ends with a continuation"
    stages: list[Stage] = []
    for number, line in joined:
        keyword, _, args = line.partition(" ")
        ins = Instruction(keyword.upper(), args.strip(), number)
        if ins.keyword == "FROM":
            parts = ins.args.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(parts[0], name))
        else:
            assert stages, f"line {number}: {ins.keyword} before any FROM"
            stages[-1].instructions.append(ins)
    return stages


def exec_form(ins: Instruction) -> list[str]:
    assert ins.args.startswith("["), f"line {ins.line}: {ins.keyword} is not in exec (JSON) form"
    value = json.loads(ins.args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value


def healthcheck(stage: Stage) -> tuple[dict[str, str], str]:
    """The HEALTHCHECK's options and its shell-form command."""
    ins = stage.last("HEALTHCHECK")
    found = re.fullmatch(r"((?:--[a-z-]+=\S+\s+)*)CMD\s+(.+)", ins.args, re.DOTALL)
    assert found, f"line {ins.line}: HEALTHCHECK [OPTIONS] CMD command"
    options = dict(opt[2:].split("=", 1) for opt in found.group(1).split())
    command = found.group(2).strip()
    assert not command.startswith("["), "the HEALTHCHECK command is run with a shell"
    return options, command


def seconds(duration: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    total = 0.0
    for amount, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration):
        total += float(amount) * units[unit]
    assert re.fullmatch(r"(?:\d+(?:\.\d+)?(?:ms|s|m|h))+", duration), duration
    return total


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    return parse(DOCKERFILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def final(stages: list[Stage]) -> Stage:
    return stages[-1]


def test_parser_reads_continuations_comments_and_stages() -> None:
    """The parser: continuation lines joined, comments inside them dropped, both ENV forms."""
    text = (
        "# syntax=docker/dockerfile:1\nFROM a:1 AS one\nRUN x \\\n  # note\n  && y\n"
        "FROM b:2\nENV A=1 \\\n    B='two words'\nENV C three words\nCMD [\"c\"]\n"
    )
    one, two = parse(text)
    assert (one.base, one.name, two.base, two.name) == ("a:1", "one", "b:2", None)
    assert one.instructions == [Instruction("RUN", "x  && y", 3)]
    assert two.env() == {"A": "1", "B": "two words", "C": "three words"}
    assert exec_form(two.last("CMD")) == ["c"]


# -- the image's properties ------------------------------------------------------------------------


def test_every_stage_is_python_311_slim(stages: list[Stage]) -> None:
    """A small image: every stage starts from python:3.11-slim (Python 3.11, pyproject's floor)."""
    assert [s.base for s in stages] == [BASE] * len(stages)
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11"


def test_final_stage_is_small_no_source_no_compiler(final: Stage) -> None:
    """The final stage copies only build results from the build stage (no source tree from the
    context) and installs no system packages (no compiler, no curl)."""
    for ins in final.all("COPY") + final.all("ADD"):
        assert ins.keyword == "COPY" and "--from=" in ins.args, f"line {ins.line}: {ins.args}"
    for ins in final.all("RUN"):
        assert not re.search(r"\b(apt-get|apt|apk)\b", ins.args), f"line {ins.line}"


def _pip_installs(stage: Stage) -> list[list[str]]:
    """The arguments of every ``pip install`` of a stage's RUN instructions."""
    found = []
    for ins in stage.all("RUN"):
        for command in re.split(r"&&|;|\|\|", ins.args):
            tokens = shlex.split(command)
            if tokens[:2] == ["pip", "install"] or tokens[:4] == ["python", "-m", "pip", "install"]:
                found.append(tokens[tokens.index("install") + 1 :])
    return found


def test_package_installed_with_pip_from_the_repo_without_dev_dependencies(
    stages: list[Stage], final: Stage
) -> None:
    """The package is built from the repository (a wheel of ``.``) and pip installs that wheel in
    the final stage with its runtime dependencies only: no ``[dev]`` extra, no requirements file;
    the lock file is used only as constraints (which install nothing by themselves)."""
    build = stages[0]
    wheel = [i for i in build.all("RUN") if re.search(r"\bpip wheel\b", i.args)]
    assert wheel and re.search(r"--no-deps\b.*\s\.$", wheel[0].args), "a wheel of the repo"
    installs = _pip_installs(final)
    assert len(installs) == 1, installs
    args = installs[0]
    targets, skip = [], False
    for token in args:
        if skip:
            skip = False
        elif token in ("-c", "--constraint"):
            skip = True
        else:
            assert token not in ("-r", "--requirement", "-e", "--editable"), args
            assert not token.startswith(("--requirement=", "--extra-index-url")), args
            if not token.startswith("-"):
                targets.append(token)
    assert targets and all(t.endswith(".whl") for t in targets), targets
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert "[dev]" not in text and not re.search(r"\b(pytest|ruff|mypy|hypothesis)\b", text)


def test_constraints_pin_every_runtime_dependency_to_the_tested_version(
    stages: list[Stage], tmp_path: Path
) -> None:
    """The build stage's constraints file, made by its own RUN command from the lock file, pins
    every runtime dependency of the package (transitively) to the version installed here, where
    the tests run (so the image runs what was tested)."""
    runs = [i for i in stages[0].all("RUN") if "requirements-dev.lock" in i.args]
    assert len(runs) == 1
    shutil.copy(ROOT / "requirements-dev.lock", tmp_path / "requirements-dev.lock")
    subprocess.run(["/bin/sh", "-c", runs[0].args], cwd=tmp_path, check=True, timeout=60)
    pins: dict[str, str] = {}
    for line in (tmp_path / "constraints.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        assert sep and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name), line
        assert re.fullmatch(r"[0-9A-Za-z.+!-]+", version), line
        pins[canonicalize_name(name)] = version
    # The runtime closure of pyproject's dependencies, as pip would resolve it on Linux.
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    todo = [Requirement(r) for r in pyproject["dependencies"]]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue  # the dev extra, or another platform
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        assert name in pins, f"{name} is not pinned by the image's constraints"
        assert pins[name] == metadata.version(req.name), name
        todo += [Requirement(r) for r in metadata.requires(req.name) or []]
    assert {"fastapi", "uvicorn", "pydantic", "pydantic-core", "starlette"} <= seen


def test_non_root_user_owns_the_data_volume(final: Stage) -> None:
    """The server runs as a non-root user created in the image; /data is created and given to
    that user before the VOLUME instruction (so a new named volume starts out writable by it)."""
    user = final.last("USER")
    uid, _, gid = user.args.partition(":")
    assert uid not in ("root", "0") and gid not in ("root", "0")
    assert final.index(user) > max(final.index(i) for i in final.all("RUN"))
    runs = " && ".join(i.args for i in final.all("RUN"))
    made = re.search(r"useradd\b[^&;]*?--uid[ =](\d+)[^&;]*?\s(\S+)\s*(?:&&|;|$)", runs)
    assert made, "a useradd with --uid"
    assert uid in (made.group(1), made.group(2)), (uid, made.groups())
    volume = final.last("VOLUME")
    paths = json.loads(volume.args) if volume.args.startswith("[") else volume.args.split()
    assert paths == ["/data"]
    chown = [i for i in final.all("RUN") if re.search(r"chown\s+\S+\s+/data\b", i.args)]
    assert chown and final.index(chown[-1]) < final.index(volume)
    owner = re.search(r"chown\s+(\S+)\s+/data\b", chown[-1].args)
    assert owner is not None
    assert owner.group(1).split(":")[0] in (made.group(1), made.group(2))


def test_env_expose_and_cmd(final: Stage) -> None:
    """ENV CRISP_DATA_DIR=/data and CRISP_HOST=0.0.0.0 (and CRISP_PORT=8000), port 8000 exposed,
    CMD ["crisp", "serve"] in exec form (the server is PID 1 and gets SIGTERM), no ENTRYPOINT."""
    env = final.env()
    assert env["CRISP_DATA_DIR"] == "/data" and env["CRISP_HOST"] == "0.0.0.0"
    assert env.get("CRISP_PORT", "8000") == "8000"
    exposed = [p for i in final.all("EXPOSE") for p in i.args.split()]
    assert exposed in (["8000"], ["8000/tcp"])
    assert exec_form(final.last("CMD")) == ["crisp", "serve"]
    assert final.all("ENTRYPOINT") == []
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["crisp"] == "crisp.cli:main"


def test_healthcheck_uses_python_urllib_on_healthz(final: Stage) -> None:
    """HEALTHCHECK: Python's urllib (slim has no curl or wget) on /healthz of the port the server
    listens on (CRISP_PORT, 8000 by default), with a timeout shorter than Docker's, exit 1 when
    unhealthy; sensible interval, timeout, start period and retries."""
    options, command = healthcheck(final)
    assert not re.search(r"\b(curl|wget)\b", command)
    assert command.startswith("python -c ") and "urllib.request" in command
    assert "/healthz" in command and "CRISP_PORT" in command
    assert command.endswith("|| exit 1")
    assert seconds(options["timeout"]) < seconds(options["interval"])
    urlopen_timeout = re.search(r"timeout=(\d+(?:\.\d+)?)\)", command)
    assert urlopen_timeout and float(urlopen_timeout.group(1)) < seconds(options["timeout"])
    assert seconds(options["start-period"]) >= 5 and int(options["retries"]) >= 1


# -- the build context -----------------------------------------------------------------------------


def _ignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    """.dockerignore as (negated, regex) rules, with Docker's matching: ``*`` and ``?`` within a
    path segment, ``**`` across segments, the last matching rule wins, a rule matching a parent
    directory matches everything in it."""
    rules = []
    for raw in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line[1:].strip() if negated else line
        pattern = pattern.strip("/")
        regex, i = "", 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif pattern.startswith("**", i):
                regex, i = regex + ".*", i + 2
            elif pattern[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif pattern[i] == "?":
                regex, i = regex + "[^/]", i + 1
            elif pattern[i] == "[":
                end = pattern.index("]", i)
                body = pattern[i + 1 : end]
                regex += "[" + ("^" + body[1:] if body[:1] in "!^" and body else body) + "]"
                i = end + 1
            else:
                regex, i = regex + re.escape(pattern[i]), i + 1
        rules.append((negated, re.compile(regex + r"\Z")))
    return rules


def excluded(path: str) -> bool:
    parts = path.split("/")
    candidates = ["/".join(parts[: k + 1]) for k in range(len(parts))]
    result = False
    for negated, regex in _ignore_rules():
        if any(regex.match(c) for c in candidates):
            result = not negated
    return result


def test_dockerignore_matcher_follows_docker_rules() -> None:
    """The matcher used below: last rule wins, parents match, ``**`` spans directories."""
    assert excluded(".git/HEAD") and not excluded("pyproject.toml")
    assert not excluded("crisp/engine/game.py") and excluded("crisp/__pycache__/cli.pyc")


def test_build_context_has_what_the_dockerfile_copies_and_nothing_private(
    stages: list[Stage],
) -> None:
    """Every COPY from the context names files that exist and that .dockerignore lets through
    (every module of the package included); the package's metadata files are among them; the
    repository's .git, virtualenv, caches, tests and any local data stay out of the context."""
    sources: list[str] = []
    for stage in stages:
        for ins in stage.all("COPY"):
            tokens = [t for t in shlex.split(ins.args) if not t.startswith("--")]
            if "--from=" not in ins.args:
                sources += tokens[:-1]
    assert sources
    for source in sources:
        path = ROOT / source
        assert path.exists(), source
        files = [path] if path.is_file() else [p for p in path.rglob("*.py")]
        for file in files:
            rel = file.relative_to(ROOT).as_posix()
            if "__pycache__" not in rel:
                assert not excluded(rel), f"{rel} is copied but .dockerignore leaves it out"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {"pyproject.toml", pyproject["readme"], "LICENSE", "crisp"} <= set(sources)
    for module in (ROOT / "crisp").rglob("*.py"):
        assert not excluded(module.relative_to(ROOT).as_posix()), module
    for private in [
        ".git/config", ".venv/bin/python", ".env", "crisp-data/crisp.sqlite3",
        "data/crisp.sqlite3", "crisp.sqlite3", "tests/test_dockerfile.py", ".pytest_cache/v",
        ".hypothesis/examples/x", "crisp.egg-info/PKG-INFO", "crisp/__pycache__/cli.pyc",
        "crisp/engine/__pycache__/game.cpython-311.pyc",
    ]:  # fmt: skip
        assert excluded(private), private


# -- the image's command, run outside Docker -------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """The process's output lines, read in the background (None at the end)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _run_healthcheck(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_image_command_serves_and_its_healthcheck_passes(final: Stage, tmp_path: Path) -> None:
    """The CMD, run with the image's ENV (but host 127.0.0.1, a free port and a temporary data
    directory), serves; the HEALTHCHECK command from the Dockerfile, run with a shell and the same
    environment, exits 0; the SQLite file is in the data directory; once the server is stopped
    the same HEALTHCHECK exits 1 (unhealthy)."""
    cmd = exec_form(final.last("CMD"))
    _, check = healthcheck(final)
    data = tmp_path / "data"
    bindir = str(Path(sys.executable).parent)  # the environment's python and crisp, as in the image
    env = {
        "PATH": bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        **final.env(),
        "CRISP_HOST": "127.0.0.1",
        "CRISP_PORT": str(_free_port()),
        "CRISP_DATA_DIR": str(data),
    }
    exe = shutil.which(cmd[0], path=env["PATH"])
    assert exe, f"{cmd[0]!r} is not installed here: pip install -e . (its console script)"
    proc = subprocess.Popen(
        [exe, *cmd[1:]], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    try:
        lines = _lines(proc)
        deadline = time.monotonic() + 60
        while not any(line.startswith("Data:") for line in output):
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, "crisp serve exited:\n" + "".join(output)
            output.append(line)
        assert f"http://127.0.0.1:{env['CRISP_PORT']}/" in "".join(output)
        assert [line for line in output if line.startswith("Data:")] == [
            f"Data: {(data / 'crisp.sqlite3').resolve()}\n"
        ]
        done = _run_healthcheck(check, env)
        assert done.returncode == 0, done.stderr
        assert (data / "crisp.sqlite3").is_file()
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    done = _run_healthcheck(check, env)
    assert done.returncode == 1, (done.returncode, done.stderr)
