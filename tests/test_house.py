"""House rule: comments say what and why, never when.

A comment, docstring or document names no issue, stop, session, sitting or finding by its number
("issue 22, stop 31", "finding 8", "Issue 20 item 10"): history lives in git and CHANGELOG.md,
and a reader of the code cannot look such a number up. The checked text is every comment and
docstring of the Python files, and the whole text of the other source files (JavaScript, CSS,
HTML, shell, templates), under crisp/, tests/, tools/ and scripts/, plus docs/*.md. CHANGELOG.md
is history and is not checked; nor are vendored code (tests/vendor) and data files. A test's
name says the behaviour it checks, so no test function is named after a finding or an issue
either (``test_finding_8_*``, ``*_issue21_finding3``, ``test_f12_*``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREES = ("crisp", "tests", "tools", "scripts")
SKIPPED = (ROOT / "tests" / "vendor", Path(__file__).resolve())  # this file: its examples
SOURCE_SUFFIXES = {".js", ".mjs", ".css", ".html", ".sh", ".in", ".md"}
# "Issue 21, finding 8", "issue 20 item 10", "findings 2–5", "(stop 31)", "issue #34", "f. 12"
HISTORY = re.compile(
    r"\b(?:issues?|stop|sessions?|sittings?|findings?)\s+#?\d+"
    r"|\bissues?\s+#?\d+\s*,?\s*(?:items?|points?)\s+\d+"
    r"|^\W*(?:items?|points?)\s+\d+\b"
    r"|\bf\.\s*\d+\b",
    re.IGNORECASE | re.MULTILINE,
)


# test_finding_8_…, test_finding6_…, …_issue21_findings1_2, test_f12_…, …_stop31_…
HISTORY_IN_A_NAME = re.compile(
    r"(?:^|_)(?:issues?|stops?|sessions?|sittings?|findings?|items?|points?|f)_?\d+(?:_|$)",
    re.IGNORECASE,
)


def history_numbers(text: str) -> list[str]:
    """The history references in ``text``: an issue, stop, session, sitting or finding number."""
    return [m.group(0) for m in HISTORY.finditer(text)]


def _history_lines(first_line: int, text: str) -> Iterator[tuple[int, str]]:
    """(line, reference) for each history reference in a text that starts at ``first_line``."""
    for m in HISTORY.finditer(text):
        yield first_line + text.count("\n", 0, m.start()), m.group(0)


def _python_prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python module."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstring = first.value.value
                if isinstance(docstring, str):
                    yield first.lineno, docstring


def _lines_of(text: str) -> Iterator[tuple[int, str]]:
    return ((number, line) for number, line in enumerate(text.splitlines(), start=1))


def _is_shell_script(path: Path) -> bool:
    with path.open("rb") as head:
        return head.read(2) == b"#!"


def _is_source(path: Path) -> bool:
    if path.suffix == ".py" or path.suffix in SOURCE_SUFFIXES:
        return True
    return not path.suffix and _is_shell_script(path)


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of the prose of one file: a Python file's comments and docstrings, the whole
    of any other source or document."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        yield from _python_prose(text)
    else:
        yield from _lines_of(text)


def checked_files() -> list[Path]:
    files = sorted((ROOT / "docs").glob("*.md"))
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if not path.is_file() or any(path.is_relative_to(s) for s in SKIPPED):
                continue
            if {"__pycache__", ".venv", "node_modules"} & set(path.parts):  # installed, not ours
                continue
            if _is_source(path):
                files.append(path)
    return files


def history_test_names(source: str) -> Iterator[tuple[int, str]]:
    """(line, name) of each test function of a Python module whose name carries a history number."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.name.startswith("test_") and HISTORY_IN_A_NAME.search(node.name):
            yield node.lineno, node.name


def misnamed_tests(files: list[Path]) -> list[str]:
    found = []
    for path in files:
        if path.suffix == ".py":
            source = path.read_text(encoding="utf-8")
            for line, name in history_test_names(source):
                found.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    return found


def offenders(files: list[Path]) -> list[str]:
    found = []
    for path in files:
        for first_line, text in prose(path):
            for line, hit in _history_lines(first_line, text):
                found.append(f"{path.relative_to(ROOT)}:{line}: {hit!r}")
    return found


@pytest.mark.parametrize(
    "text",
    [
        "a port in use (issue 21, finding 8)",
        "Issue 20 item 10: axe-core",
        "findings 2–5, in the process",
        "see issue #34",
        "as stop 31 measured",
        "the last session 4 showed",
        "one sitting 2 figure",
        "Item 2: the waiting line",
        "('illegal', 'CS-NOTATION')  # f. 12",
    ],
)
def test_a_history_number_is_found(text: str) -> None:
    """Each way the code named a piece of its history is caught."""
    assert history_numbers(text)


@pytest.mark.parametrize(
    "text",
    [
        "a session-scoped pytest fixture",
        "the HTTP session's cookie, 30 s",
        "measured in one sitting, interleaved",
        "a 503 stops 3 rooms",
        "R-WINDOW-LAG (docs/fairness.md)",
        "the leader plays; the lead times out at 30 s",
    ],
)
def test_prose_without_a_history_number_passes(text: str) -> None:
    """Ordinary words (a pytest session, a sitting as a way to measure) are not history."""
    assert not history_numbers(text)


def test_a_planted_history_comment_is_reported(tmp_path: Path) -> None:
    """The walk over a file's prose reports a planted comment and docstring, not its code."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""Group commit (issue 22)."""\n\nSTOP = "stop 3"  # code, not prose\n# finding 9\n'
    )
    found = [line for line, text in prose(planted) if history_numbers(text)]
    assert sorted(found) == [1, 4]


def test_no_comment_docstring_or_doc_names_an_issue_or_session_number() -> None:
    """Comments say what and why, never when: no issue, stop, session, sitting or finding
    number in the code's prose or in docs/*.md (CHANGELOG.md is history and exempt)."""
    found = offenders(checked_files())
    assert not found, "history numbers in prose:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "name",
    [
        "test_finding_8_serve_on_a_port_in_use_names_the_port",
        "test_finding6_new_data_dir_is_0700",
        "test_every_route_naming_a_code_has_the_code_limit_issue21_finding3",
        "test_compose_files_trust_exactly_their_proxy_issue21_findings1_2",
        "test_f12_stale_is_defined_for_every_game",
        "test_probes_stop31_cost_less",
        "test_issue_20_item_10_axe",
    ],
)
def test_a_history_number_in_a_test_name_is_found(name: str) -> None:
    """Each way a test was named after a finding or an issue is caught."""
    assert HISTORY_IN_A_NAME.search(name)


@pytest.mark.parametrize(
    "name",
    [
        "test_a_500_mb_list_is_refused_unread",
        "test_new_data_dir_is_0700_and_database_files_0600",
        "test_serve_on_port_80_unprivileged_says_why_in_one_line",
        "test_a_68_mb_record_is_refused_in_bounded_memory",
        "test_a_stop_button_pauses_the_clock",
        "test_a_crisps_room_serves_a_crisps_record",
        "test_utf8_names_are_kept",
    ],
)
def test_a_test_name_without_a_history_number_passes(name: str) -> None:
    """Numbers that are part of the behaviour (500 MB, 0700, port 80) are not history."""
    assert not HISTORY_IN_A_NAME.search(name)


def test_a_planted_history_test_name_is_reported(tmp_path: Path) -> None:
    """The walk reports a planted test named after a finding, not a helper or a well-named test."""
    planted = tmp_path / "test_planted.py"
    planted.write_text(
        "def finding_8_helper() -> None: ...\n\n\n"
        "def test_finding_8_a_port_in_use() -> None: ...\n\n\n"
        "async def test_stale_is_defined_issue21_finding5() -> None: ...\n\n\n"
        "def test_a_port_in_use_names_the_port() -> None: ...\n"
    )
    found = list(history_test_names(planted.read_text()))
    assert found == [
        (4, "test_finding_8_a_port_in_use"),
        (7, "test_stale_is_defined_issue21_finding5"),
    ]


def test_no_test_is_named_after_an_issue_or_a_finding() -> None:
    """A test's name says the behaviour it checks: no issue, finding, stop or session number
    (``test_finding_8_*``, ``*_issue21_finding3``, ``test_f12_*``)."""
    found = misnamed_tests(checked_files())
    assert not found, "test names with history numbers:\n" + "\n".join(found)
