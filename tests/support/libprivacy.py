"""Where a module reaches into a library's internals, read from its source with ``ast``.

The libraries watched (``LIBRARIES``: uvicorn, websockets, httptools) are met through names:
those a module imports from them, the objects it makes by calling such a name, the parameters it
annotates with one, ``self`` in a class that subclasses one, and any name or ``self.attribute``
it assigns one of those to. On any of them a finding is:

- an attribute (or ``getattr`` string) with a leading underscore (not a dunder);
- an attribute in ``DENIED``: the internals a fork of uvicorn's WebSocket protocol used, which
  carry no underscore (uvicorn's protocol state, websockets' parser and reader);

and, anywhere: an import of a private module (a path part with a leading underscore) or of a
private name from a watched library."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

LIBRARIES = ("uvicorn", "websockets", "httptools")
DENIED = frozenset(
    {
        # uvicorn's WebSocket protocols
        "queue",
        "writable",
        "frames",
        "curr_msg_data_type",
        "close_sent",
        "disconnected",
        "handshake_complete",
        "handshake_initiated",
        "read_paused",
        "close_timer",
        "ping_timer",
        "pong_timer",
        "tasks_of",
        "tasks",
        "scope",
        "request",
        "response",
        "conn",
        "run_asgi",
        "send_receive_event_to_app",
        "handle_parser_exception",
        "send_keepalive_ping",
        "handle_connect",
        "handle_ping",
        "handle_pong",
        # websockets' Protocol internals
        "parser",
        "reader",
        "buffer",
        "parser_exc",
        "parse",
        "writes",
        "events",
        "recv_frame",
        "send_frame",
        "send_eof",
        "discard",
        "close_rcvd",
        "eof_sent",
        "current_size",
        # httptools' parser object, by uvicorn's protocol
        "flow",
        "cycle",
    }
)
#: Public names that share a denied one's spelling: the registers uvicorn gives the ``http=``
#: and ``ws=`` classes (``ServerState.connections`` and ``.tasks``, plain sets: the graceful
#: shutdown's), its ``Config``'s loaded app, and websockets' ``Close.parse``.
ALLOWED = re.compile(
    r"(^|\.)server_state\.(connections|tasks)$|(^|\.)config\.(loaded_app|root_path)$"
    r"|^(Close|Frame)\.parse$"
)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def dotted(node: ast.expr) -> str | None:
    """``name`` or ``name.attr`` (a reference the checker can follow), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


class Checker(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.library_names: set[str] = set()  # names bound by imports from the libraries
        self.library_objects: set[str] = set()  # references to their objects ("x", "self.y")
        self.findings: list[Finding] = []

    def find(self, node: ast.AST, what: str) -> None:
        self.findings.append(Finding(self.path, getattr(node, "lineno", 0), what))

    # -- what comes from a library ---------------------------------------------------------------

    def from_library(self, node: ast.expr | None) -> bool:
        if node is None:
            return False
        if isinstance(node, ast.Call):
            return self.from_library(node.func)
        if isinstance(node, ast.Attribute):
            if ALLOWED.search(ast.unparse(node)):
                return False  # a register uvicorn gives: a plain set of its own
            ref = dotted(node)
            return (ref is not None and ref in self.library_objects) or self.from_library(
                node.value
            )
        if isinstance(node, ast.Name):
            return node.id in self.library_names or node.id in self.library_objects
        if isinstance(node, ast.Subscript):
            return self.from_library(node.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return any(part in self.library_names for part in node.value.replace(".", " ").split())
        if isinstance(node, ast.BinOp):
            return self.from_library(node.left) or self.from_library(node.right)
        return False

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root in LIBRARIES:
                if any(is_private(part) for part in alias.name.split(".")):
                    self.find(node, f"imports the private module {alias.name}")
                self.library_names.add(alias.asname or root)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module.split(".")[0] not in LIBRARIES:
            return
        if any(is_private(part) for part in module.split(".")):
            self.find(node, f"imports from the private module {module}")
        for alias in node.names:
            if is_private(alias.name):
                self.find(node, f"imports the private name {module}.{alias.name}")
            self.library_names.add(alias.asname or alias.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        subclass = any(self.from_library(base) for base in node.bases)
        if subclass:
            self.find(node, f"class {node.name} subclasses a library class")
            self.library_objects.add("self")
        self.generic_visit(node)
        if subclass:
            self.library_objects.discard("self")

    def visit_arg(self, node: ast.arg) -> None:
        if self.from_library(node.annotation):
            self.library_objects.add(node.arg)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if self.from_library(node.value):
            for target in node.targets:
                ref = dotted(target)
                if ref is not None:
                    self.library_objects.add(ref)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if self.from_library(node.value) or self.from_library(node.annotation):
            ref = dotted(node.target)
            if ref is not None:
                self.library_objects.add(ref)

    # -- what is done with it --------------------------------------------------------------------

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        base = node.value
        if not self.from_library(base):
            return
        if is_private(node.attr):
            self.find(node, f"reads the private attribute {ast.unparse(node)}")
        elif node.attr in DENIED and not ALLOWED.search(ast.unparse(node)):
            self.find(node, f"reads the internal {ast.unparse(node)}")

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        if (
            isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and self.from_library(node.args[0])
            and (is_private(node.args[1].value) or node.args[1].value in DENIED)
        ):
            self.find(node, f"{node.func.id} of the internal {node.args[1].value!r}")


def check_source(source: str, path: str = "<source>") -> list[Finding]:
    checker = Checker(path)
    checker.visit(ast.parse(source, path))
    return checker.findings


def check_tree(root: Path) -> list[Finding]:
    findings: list[Finding] = []
    for path in sorted(root.rglob("*.py")):
        findings += check_source(path.read_text(), str(path.relative_to(root.parent)))
    return findings
