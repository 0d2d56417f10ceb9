"""The Docker image (``Dockerfile``, ``.dockerignore``) and the internet deployment
(``compose.yaml``, ``deploy/Caddyfile``), tested without a Docker engine.

The Dockerfile is parsed (continuation lines, comments, stages, exec and shell forms) and its
properties are checked: both stages on the build argument BASE, whose default is
python:3.11-slim-bookworm pinned by digest (tests/ops/test_image.py builds on another), the
runtime installed from requirements.lock with hashes and no dev dependencies, the package as a
wheel built with the locked build backend, no pip or setuptools left in the final image, a
non-root user owning the ``/data`` VOLUME, ``CRISP_DATA_DIR=/data``, ``CRISP_HOST=0.0.0.0``, port
8000 exposed, a HEALTHCHECK on ``/healthz`` with Python's urllib that follows ``CRISP_HOST`` and
``CRISP_PORT``, and ``CMD ["crisp", "serve"]``. Then the build stage's wheel command is run on the
build context, the image's command is run outside Docker with the image's ENV (but host
127.0.0.1, a free port and a temporary data directory) and the HEALTHCHECK command, taken from
the Dockerfile, is run with a shell against it. compose.yaml is parsed (a strict YAML subset, and
PyYAML too where it is installed) and checked against the Dockerfile and the Caddyfile.
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
import urllib.request
import zipfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from paths import ROOT

DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
PINNED_BASE = re.compile(r"python:3\.11(\.\d+)?-slim-bookworm@sha256:[0-9a-f]{64}")
COMPOSE = ROOT / "compose.yaml"
CADDYFILE = ROOT / "deploy" / "Caddyfile"
DEV_TOOLS = {"pytest", "pytest-xdist", "hypothesis", "ruff", "mypy", "playwright", "setuptools"}


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
    args: dict[str, str] = {}  # the ARGs before the first FROM, which FROM lines may use
    for number, line in joined:
        keyword, _, rest = line.partition(" ")
        ins = Instruction(keyword.upper(), rest.strip(), number)
        if ins.keyword == "FROM":
            parts = ins.args.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(_expand(parts[0], args, number), name))
        elif ins.keyword == "ARG" and not stages:
            key, sep, default = ins.args.partition("=")
            assert sep, f"line {number}: a global ARG without a default ({ins.args})"
            args[key] = default
        else:
            assert stages, f"line {number}: {ins.keyword} before any FROM"
            stages[-1].instructions.append(ins)
    return stages


def _expand(text: str, args: dict[str, str], line: int) -> str:
    """``text`` with each ``$NAME`` or ``${NAME}`` replaced by the global ARG's default."""

    def value(found: re.Match[str]) -> str:
        key = found.group(1) or found.group(2)
        assert key in args, f"line {line}: FROM uses ${key}, not a global ARG"
        return args[key]

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", value, text)


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


def test_parser_resolves_a_global_arg_in_from_lines() -> None:
    """An ARG before the first FROM is the default of ``$NAME``/``${NAME}`` in FROM lines (what
    ``docker build`` uses when no --build-arg overrides it); an ARG inside a stage stays there."""
    text = "ARG BASE=a:1@sha256:00\nFROM ${BASE} AS one\nARG X=2\nFROM $BASE\n"
    one, two = parse(text)
    assert (one.base, one.name, two.base) == ("a:1@sha256:00", "one", "a:1@sha256:00")
    assert one.instructions == [Instruction("ARG", "X=2", 3)]
    with pytest.raises(AssertionError, match="not a global ARG"):
        parse("FROM ${OTHER}\n")


# -- the image's properties ------------------------------------------------------------------------


def test_every_stage_is_the_same_python_311_slim_pinned_by_digest(stages: list[Stage]) -> None:
    """A small image that rebuilds the same: every stage starts from one python:3.11 slim
    (Debian bookworm) image named by its digest, not by a tag that moves (Python 3.11 is
    pyproject's floor): BASE's default, which a build argument may replace."""
    assert len(stages) == 2
    for stage in stages:
        assert PINNED_BASE.fullmatch(stage.base), f"FROM {stage.base} is not pinned by digest"
    assert len({s.base for s in stages}) == 1, "both stages must start from the same image"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11"
    assert PINNED_BASE.fullmatch("python:3.11-slim-bookworm@sha256:" + "a" * 64)
    assert not PINNED_BASE.fullmatch("python:3.11-slim-bookworm")
    assert not PINNED_BASE.fullmatch("python:3.11-slim@sha256:" + "a" * 63)


def test_final_stage_is_small_no_source_no_compiler(final: Stage) -> None:
    """The final stage copies only build results from the build stage (no source tree from the
    context) and installs no system packages (no compiler, no curl)."""
    for ins in final.all("COPY") + final.all("ADD"):
        assert ins.keyword == "COPY" and "--from=" in ins.args, f"line {ins.line}: {ins.args}"
    for ins in final.all("RUN"):
        assert not re.search(r"\b(apt-get|apt|apk)\b", ins.args), f"line {ins.line}"


def _commands(stage: Stage) -> list[list[str]]:
    """Every simple command of a stage's RUN instructions, as tokens."""
    found = []
    for ins in stage.all("RUN"):
        for command in re.split(r"&&|;|\|\|", ins.args):
            found.append(shlex.split(command))
    return found


def _pip(stage: Stage, verb: str) -> list[list[str]]:
    """The arguments of every ``pip VERB`` (or ``python -m pip VERB``) of a stage."""
    found = []
    for tokens in _commands(stage):
        if tokens[:2] == ["pip", verb] or tokens[:4] == ["python", "-m", "pip", verb]:
            found.append(tokens[tokens.index(verb) + 1 :])
    return found


def test_runtime_installed_from_the_lock_with_hashes_and_no_dev_dependencies(
    stages: list[Stage], final: Stage
) -> None:
    """The final stage installs requirements.lock with --require-hashes (every file checked, no
    resolution: --no-deps), then the package's wheel, built in the build stage from the
    repository with the locked build backend (--no-build-isolation: nothing downloaded), without
    dependencies; no dev extra, no other requirements file, no extra index."""
    build = stages[0]
    assert _pip(build, "install") == [
        ["--require-hashes", "--no-deps", "-r", "requirements-build.lock"]
    ]
    wheel = _pip(build, "wheel")
    assert len(wheel) == 1 and wheel[0][-1] == "."
    assert {"--no-deps", "--no-build-isolation"} <= set(wheel[0])
    installs = _pip(final, "install")
    assert installs == [
        ["--require-hashes", "--no-deps", "-r", "/tmp/requirements.lock"],
        ["--no-deps", "/tmp/wheels/*.whl"],
    ], installs
    copied = [i.args for i in final.all("COPY")]
    assert "--from=build /src/requirements.lock /tmp/requirements.lock" in copied
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert "[dev]" not in text and "requirements-dev.lock" not in text
    assert not re.search(r"\b(pytest|ruff|mypy|hypothesis|playwright)\b", text)
    assert "--extra-index-url" not in text and "--index-url" not in text


def test_no_pip_or_setuptools_in_the_final_image(final: Stage) -> None:
    """After the installs (and a ``pip check``), pip, setuptools and wheel are uninstalled, and
    ensurepip's bundled copies of them removed: the running image cannot install anything, and
    carries no build tool."""
    commands = _commands(final)
    flat = [" ".join(c) for c in commands]
    last_install = max(i for i, c in enumerate(flat) if c.startswith("pip install"))
    check = flat.index("pip check")
    uninstall = [i for i, c in enumerate(commands) if c[:2] == ["pip", "uninstall"]]
    assert len(uninstall) == 1 and last_install < check < uninstall[0]
    removed = set(commands[uninstall[0]][2:]) - {"--yes", "-y"}
    assert {"pip", "setuptools", "wheel"} <= removed
    assert all(not c.startswith("pip ") for c in flat[uninstall[0] + 1 :]), "pip used after"
    assert any(
        c[:2] == ["rm", "-rf"] and "/usr/local/lib/python3.11/ensurepip/_bundled" in c
        for c in commands
    )


def _lock(path: Path) -> dict[str, tuple[str, list[str]]]:
    """A hashed lock file: canonical name -> (version, hashes)."""
    pins: dict[str, tuple[str, list[str]]] = {}
    name: str = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip().rstrip("\\").strip()
        if not line:
            continue
        if line.startswith("--hash="):
            assert name, f"{path.name}: a hash before any requirement"
            algorithm, _, digest = line[len("--hash=") :].partition(":")
            assert algorithm == "sha256" and re.fullmatch(r"[0-9a-f]{64}", digest), line
            pins[name][1].append(digest)
            continue
        req = Requirement(line)
        assert len(req.specifier) == 1 and next(iter(req.specifier)).operator == "==", line
        name = canonicalize_name(req.name)
        pins[name] = (next(iter(req.specifier)).version, [])
    for pinned, (_, hashes) in pins.items():
        assert hashes, f"{path.name}: {pinned} has no hash"
    return pins


def test_runtime_lock_pins_every_runtime_dependency_to_the_tested_version() -> None:
    """requirements.lock pins, with hashes, exactly the runtime closure of pyproject's
    dependencies, as pip resolves it on Linux, at the versions installed here where the tests
    run (and in requirements-dev.lock): the image and ./scripts/serve run what was tested, and
    none of the dev tools."""
    runtime = _lock(ROOT / "requirements.lock")
    dev = _lock(ROOT / "requirements-dev.lock")
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
        assert name in runtime, f"{name} is not pinned by requirements.lock"
        assert runtime[name][0] == metadata.version(req.name) == dev[name][0], name
        todo += [Requirement(r) for r in metadata.requires(req.name) or []]
    assert {"fastapi", "uvicorn", "pydantic", "pydantic-core", "starlette"} <= seen
    assert set(runtime) == seen, f"not needed at run time: {sorted(set(runtime) - seen)}"
    assert not DEV_TOOLS & set(runtime)
    for pinned, (_, hashes) in runtime.items():
        assert set(hashes) == set(dev[pinned][1]), f"{pinned}: not the dev lock's files"


def test_build_lock_pins_the_build_backend_pyproject_asks_for() -> None:
    """requirements-build.lock pins, with hashes, a build backend that satisfies pyproject's
    [build-system] requires (setuptools >= 77 for the SPDX ``license`` field): installing the
    package (./scripts/serve's editable install, the image's wheel) never downloads one."""
    build = _lock(ROOT / "requirements-build.lock")
    system = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert system["build-backend"] == "setuptools.build_meta"
    for text in system["requires"]:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in build and req.specifier.contains(build[name][0]), text
    assert set(build) == {canonicalize_name(Requirement(r).name) for r in system["requires"]}


def test_wheel_built_from_the_build_context_holds_the_whole_package(
    stages: list[Stage], tmp_path: Path
) -> None:
    """The build stage's wheel command, run on a copy of what the Dockerfile copies (offline,
    with this environment's locked setuptools), makes a wheel with every module, the client's
    files and the page templates, and the ``crisp`` command."""
    build = stages[0]
    for ins in build.all("COPY"):
        *sources, dest = [t for t in shlex.split(ins.args) if not t.startswith("--")]
        for source in sources:
            target = tmp_path / dest / (source if dest.endswith("/") else "")
            if (ROOT / source).is_dir():
                shutil.copytree(
                    ROOT / source, tmp_path / dest, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / source, target)
    [run] = [i for i in build.all("RUN") if "pip wheel" in i.args]
    command = run.args.replace("/wheels", str(tmp_path / "wheels"))
    env = {
        **os.environ,
        "PIP_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
    }
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [wheel] = (tmp_path / "wheels").glob("crisp_cards-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "crisp = crisp.cli:main" in archive.read(entry_points).decode()
    for path in (ROOT / "crisp").rglob("*"):
        rel = path.relative_to(ROOT).as_posix()
        if path.is_file() and "__pycache__" not in rel:
            assert rel in names, f"{rel} is not in the image's wheel"


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
    """HEALTHCHECK: Python's urllib (slim has no curl or wget) on /healthz of the address and
    port the server listens on (CRISP_HOST, CRISP_PORT), with a timeout shorter than Docker's,
    exit 1 when unhealthy; sensible interval, timeout, start period and retries."""
    options, command = healthcheck(final)
    assert not re.search(r"\b(curl|wget)\b", command)
    assert command.startswith("python -c ") and "urllib.request" in command
    assert "/healthz" in command and "CRISP_PORT" in command and "CRISP_HOST" in command
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
    assert not excluded("crisp/engine/crisp/game.py") and excluded("crisp/__pycache__/cli.pyc")


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
        ".git/config",
        ".venv/bin/python",
        ".env",
        "crisp-data/crisp.sqlite3",
        "data/crisp.sqlite3",
        "crisp.sqlite3",
        "tests/ops/test_dockerfile.py",
        ".pytest_cache/v",
        ".hypothesis/examples/x",
        "crisp.egg-info/PKG-INFO",
        "crisp/__pycache__/cli.pyc",
        "crisp/engine/__pycache__/game.cpython-311.pyc",
    ]:
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


def _read_until(
    lines: queue.Queue[str | None], output: list[str], want: str, timeout: float
) -> None:
    """Read the server's output into ``output`` until a line contains ``want``."""
    deadline = time.monotonic() + timeout
    while not any(want in line for line in output):
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        assert line is not None, "crisp serve exited:\n" + "".join(output)
        output.append(line)


def test_image_command_serves_and_its_healthcheck_passes(final: Stage, tmp_path: Path) -> None:
    """The CMD, run with the image's ENV (but host 127.0.0.1, a free port and a temporary data
    directory), serves; the HEALTHCHECK command from the Dockerfile, run with a shell and the same
    environment, exits 0, and follows CRISP_HOST (0.0.0.0 is asked on loopback; an address the
    server does not listen on fails); the SQLite file is in the data directory; a page request is
    in the access log and the health checks are not; once the server is stopped the same
    HEALTHCHECK exits 1 (unhealthy)."""
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
        _read_until(lines, output, "Data:", 60)
        base = f"http://127.0.0.1:{env['CRISP_PORT']}/"
        assert "Crisp is serving for this machine only" in "".join(output)
        assert f"  {base}\n" in output
        assert "Open on a phone on the same network" not in "".join(output)
        assert [line for line in output if line.startswith("Data:")] == [
            f"Data: {(data / 'crisp.sqlite3').resolve()}\n"
        ]
        done = _run_healthcheck(check, env)
        assert done.returncode == 0, done.stderr
        done = _run_healthcheck(check, {**env, "CRISP_HOST": "0.0.0.0"})
        assert done.returncode == 0, done.stderr
        done = _run_healthcheck(check, {**env, "CRISP_HOST": "127.0.0.2"})
        assert done.returncode == 1, "the health check does not follow CRISP_HOST"
        assert (data / "crisp.sqlite3").is_file()
        with urllib.request.urlopen(base, timeout=10) as page:
            assert page.status == 200
        _read_until(lines, output, '"GET / HTTP/1.1" 200', 20)
        assert not [line for line in output if "/healthz" in line], "".join(output)
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    done = _run_healthcheck(check, env)
    assert done.returncode == 1, (done.returncode, done.stderr)


# -- compose.yaml and deploy/Caddyfile: Crisp behind Caddy ---------------------------------------


def _unquote(text: str, line: int) -> object:
    """A scalar of the YAML subset: "double" (JSON escapes), 'single', or plain (true, false,
    null, an integer, else a string); flow collections, anchors, tags and blocks are refused."""
    if text.startswith('"'):
        value = json.loads(text)
        assert isinstance(value, str), f"compose.yaml line {line}: {text}"
        return value
    if text.startswith("'"):
        assert text.endswith("'") and len(text) >= 2, f"compose.yaml line {line}: {text}"
        return text[1:-1].replace("''", "'")
    assert not text.startswith(("{", "[", "&", "*", "!", "|", ">", "%", "@", "`")), (
        f"compose.yaml line {line}: {text!r} is outside the YAML subset this test reads"
    )
    plain: dict[str, object] = {"true": True, "false": False, "null": None, "~": None}
    if text in plain:
        return plain[text]
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _strip_comment(raw: str) -> str:
    quote = ""
    for i, char in enumerate(raw):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or raw[i - 1] in " \t"):
            return raw[:i]
    return raw


def parse_yaml(text: str) -> object:
    """The block subset of YAML that compose.yaml is written in: mappings, sequences of scalars,
    scalars, comments; indentation by spaces. Anything else fails the test."""
    rows: list[tuple[int, int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        body = _strip_comment(raw).rstrip()
        if not body.strip():
            continue
        indent = len(body) - len(body.lstrip(" "))
        assert not body[indent:].startswith("\t"), f"compose.yaml line {number}: a tab"
        rows.append((number, indent, body.strip()))

    def block(i: int, indent: int) -> tuple[object, int]:
        if rows[i][2].startswith("- "):
            items = []
            while i < len(rows) and rows[i][1] == indent and rows[i][2].startswith("- "):
                number, _, body = rows[i]
                pair = re.fullmatch(r"([\w.-]+):\s+(.+)", body[2:].strip())
                if pair:  # a mapping item of scalars (a network's `- subnet: 172.30.24.0/24`
                    # and, on the lines below it, `ip_range: 172.30.24.128/25`)
                    item = {pair.group(1): _unquote(pair.group(2), number)}
                    while i + 1 < len(rows) and rows[i + 1][1] == indent + 2:
                        number, _, body = rows[i + 1]
                        more = re.fullmatch(r"([\w.-]+):\s+(.+)", body)
                        assert more, f"compose.yaml line {number}: {body!r} is not `key: value`"
                        assert more.group(1) not in item, f"compose.yaml line {number}: twice"
                        item[more.group(1)] = _unquote(more.group(2), number)
                        i += 1
                    items.append(item)
                else:
                    assert not re.match(r"[\w.-]+:(\s|$)", body[2:]), f"line {number}: a mapping"
                    items.append(_unquote(body[2:].strip(), number))
                i += 1
            return items, i
        mapping: dict[str, object] = {}
        while i < len(rows) and rows[i][1] == indent:
            number, _, body = rows[i]
            found = re.fullmatch(r"([\w.-]+):(?:\s+(.*))?", body)
            assert found, f"compose.yaml line {number}: {body!r} is not `key: value`"
            key, rest = found.group(1), found.group(2)
            assert key not in mapping, f"compose.yaml line {number}: {key} twice"
            i += 1
            if rest:
                mapping[key] = _unquote(rest, number)
            elif i < len(rows) and rows[i][1] > indent:
                mapping[key], i = block(i, rows[i][1])
            else:
                mapping[key] = None
        assert i == len(rows) or rows[i][1] < indent, f"compose.yaml line {rows[i][0]}: indent"
        return mapping, i

    value, end = block(0, rows[0][1])
    assert end == len(rows)
    return value


def test_yaml_subset_parser() -> None:
    """The parser used below: nesting, sequences, quotes, comments, and refusals."""
    text = "a:\n  b: \"x: #1\"  # note\n  c:\n    - 80:80\n    - 'it''s'\n  d:\ne: 8000\n"
    assert parse_yaml(text) == {"a": {"b": "x: #1", "c": ["80:80", "it's"], "d": None}, "e": 8000}
    assert parse_yaml("a:\n  - b: 1\n") == {"a": [{"b": 1}]}
    assert parse_yaml("a:\n  - b: 1\n    c: x\n") == {"a": [{"b": 1, "c": "x"}]}
    for bad in ["a: {b: 1}\n", "a: &x 1\n", "a:\n  - b:\n", "a: 1\na: 2\n", "a: |\n  x\n"]:
        with pytest.raises(AssertionError):
            parse_yaml(bad)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    text = COMPOSE.read_text(encoding="utf-8")
    parsed = parse_yaml(text)
    assert isinstance(parsed, dict)
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:  # PyYAML is not a dependency; where it is installed it must agree
        pass
    else:
        assert yaml.safe_load(text) == parsed
    return parsed


def _caddy_sites(text: str) -> dict[str, list[str]]:
    """The Caddyfile's site blocks: address -> the directive lines inside (nested ones too);
    comments dropped, braces balanced, no global options block."""
    sites: dict[str, list[str]] = {}
    depth, site = 0, ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if depth == 0:
            found = re.fullmatch(r"(\S+(?:,\s*\S+)*)\s*\{", line)
            assert found, f"Caddyfile line {number}: a site block `ADDRESS {{` expected"
            site = found.group(1)
            sites[site] = []
            depth = 1
            continue
        if line == "}":
            depth -= 1
            continue
        sites[site].append(line)
        depth += line.endswith("{")
    assert depth == 0, "the Caddyfile's braces are not balanced"
    return sites


def test_compose_runs_the_image_behind_caddy(compose: dict[str, Any], final: Stage) -> None:
    """compose.yaml: the crisp service is this repository's image, with its data in a named
    volume at the image's data directory, listening on every interface of the compose network but
    not published on the host; Caddy (an image pinned by digest) publishes 80 and 443 (and 443/udp
    for HTTP/3), starts once Crisp is healthy, keeps its certificates in a volume, and reads
    deploy/Caddyfile, read-only; the domain is required."""
    services = compose["services"]
    assert set(services) == {"crisp", "caddy"}
    crisp_svc, caddy = services["crisp"], services["caddy"]
    image_env = final.env()
    assert crisp_svc["build"] == "." and crisp_svc["restart"] == "unless-stopped"
    env = {**image_env, **crisp_svc.get("environment", {})}
    assert env["CRISP_HOST"] == "0.0.0.0", "Caddy reaches Crisp over the compose network"
    assert "ports" not in crisp_svc, "Crisp is reached through Caddy only"
    assert crisp_svc["expose"] == [env["CRISP_PORT"]]
    assert crisp_svc["volumes"] == [f"crisp-data:{image_env['CRISP_DATA_DIR']}"]
    assert re.fullmatch(r"caddy:2(\.\d+)*-alpine@sha256:[0-9a-f]{64}", caddy["image"])
    assert caddy["restart"] == "unless-stopped"
    assert caddy["depends_on"] == {"crisp": {"condition": "service_healthy"}}
    assert final.all("HEALTHCHECK"), "service_healthy needs the image's HEALTHCHECK"
    # Where the host publishes them is a setting (CRISP_HTTP_PUBLISH, CRISP_HTTPS_PUBLISH): 80
    # and 443 unless set.
    published = [re.sub(r"\$\{CRISP_HTTPS?_PUBLISH:-(\d+)\}", r"\1", p) for p in caddy["ports"]]
    assert sorted(published) == ["443:443", "443:443/udp", "80:80"]
    mounts = caddy["volumes"]
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in mounts
    assert (ROOT / "deploy" / "Caddyfile").is_file()
    assert {"caddy-data:/data", "caddy-config:/config"} <= set(mounts)
    assert set(compose["volumes"]) == {"crisp-data", "caddy-data", "caddy-config"}
    assert re.fullmatch(r"\$\{CRISP_DOMAIN:\?[^}]+\}", caddy["environment"]["CRISP_DOMAIN"])


def test_caddyfile_serves_the_domain_over_https_to_crisp(compose: dict[str, Any]) -> None:
    """deploy/Caddyfile: one site, the domain alone (no scheme, no port: Caddy's automatic
    HTTPS gets the certificate, redirects HTTP, and the WebSockets are wss://), proxied to the
    crisp service's port (reverse_proxy passes WebSocket upgrades and keeps the Host header the
    server's Origin check compares); nothing that turns HTTPS off."""
    text = CADDYFILE.read_text(encoding="utf-8")
    sites = _caddy_sites(text)
    assert list(sites) == ["{$CRISP_DOMAIN}"]
    directives = sites["{$CRISP_DOMAIN}"]
    port = compose["services"]["crisp"]["environment"]["CRISP_PORT"]
    assert [d for d in directives if d.startswith("reverse_proxy")] == [
        f"reverse_proxy crisp:{port}"
    ]
    assert not re.search(r"auto_https\s+off|tls\s+internal|http://", _strip_comment(text))
    assert not [d for d in directives if d.startswith("header_up Host")], "keep the Host header"
    assert any(d.startswith("Strict-Transport-Security") for d in directives)
