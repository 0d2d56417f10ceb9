"""The import graph of a package, read from its source with ``ast`` (nothing is imported): each
module's imports of the package's own modules, at any depth (a function's late import is a
dependency too), grouped by the package's direct parts (a sub-package, or a top-level module)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def module_name(root: Path, path: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def imports_of(path: Path, module: str, is_package: bool) -> Iterator[str]:
    """The modules ``path`` imports (absolute names; relative ones resolved)."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def part_of(module: str, package: str) -> str | None:
    """The direct part of ``package`` that ``module`` belongs to, or None if outside it."""
    if not module.startswith(package + "."):
        return None
    return module[len(package) + 1 :].split(".", maxsplit=1)[0]


def part_graph(root: Path, package: str) -> dict[str, dict[str, set[str]]]:
    """``graph[a][b]``: the modules of part ``a`` that import part ``b`` (a != b)."""
    modules = {module_name(root, p, package): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, dict[str, set[str]]] = {}
    for module, path in modules.items():
        source = part_of(module, package)
        if source is None:
            continue
        graph.setdefault(source, {})
        for target_module in imports_of(path, module, path.name == "__init__.py"):
            target = part_of(target_module, package)
            if target is None or target == source:
                continue
            if not any(m == target_module or m.startswith(target_module + ".") for m in modules):
                continue  # a name imported from a module, not a module: counted by its module
            graph[source].setdefault(target, set()).add(module)
    return graph


def cycles(graph: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The strongly connected groups of more than one part (Tarjan's algorithm), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, {})):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)
