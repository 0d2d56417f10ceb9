"""House rule: comments say what and why, never when.

A comment, docstring or document names no issue, stop, session, sitting or finding by its number
("issue 22, stop 31", "finding 8", "Issue 20 item 10"): history lives in git and CHANGELOG.md,
and a reader of the code cannot look such a number up. The checked text is every comment and
docstring of the Python files, and the whole text of the other source files (JavaScript, CSS,
HTML, shell, templates), under crisp/, tests/, tools/ and scripts/, plus docs/*.md. CHANGELOG.md
is history and is not checked; nor are vendored code (tests/vendor) and data files.
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
