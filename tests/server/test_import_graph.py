"""No import cycle between the server's packages (crisp/server/*/ and its top-level modules),
read from the source: ``wire/`` is a leaf of protocol models, and ``socket/`` (the transport)
sits above the rooms, never below them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from importgraph import cycles, part_graph
from paths import ROOT

SERVER = ROOT / "crisp" / "server"
WIRE_MAY_IMPORT = {"settings"}  # a leaf: protocol models, parse, encoder, frames, close codes


def edges(graph: dict[str, dict[str, set[str]]], group: list[str]) -> list[str]:
    return [
        f"{a} -> {b} ({', '.join(sorted(graph[a][b]))})"
        for a in group
        for b in sorted(graph.get(a, {}))
        if b in group
    ]


def test_the_servers_packages_import_each_other_without_a_cycle() -> None:
    graph = part_graph(SERVER, "crisp.server")
    found = cycles(graph)
    assert not found, "\n".join(line for group in found for line in edges(graph, group))


def test_wire_imports_none_of_the_servers_other_packages() -> None:
    graph = part_graph(SERVER, "crisp.server")
    assert set(graph["wire"]) <= WIRE_MAY_IMPORT, graph["wire"]


def test_nothing_below_the_transport_imports_it() -> None:
    graph = part_graph(SERVER, "crisp.server")
    importers = sorted(part for part, targets in graph.items() if "socket" in targets)
    assert set(importers) <= {"app", "run"}, importers


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_the_check_finds_a_cycle_through_a_late_or_relative_import(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a/__init__.py": "",
            "a/one.py": "from pkg.b.two import f\n",
            "b/__init__.py": "",
            "b/two.py": "def f():\n    from ..c import three\n",
            "c/__init__.py": "",
            "c/three.py": "import pkg.a.one\n",
            "d.py": "from pkg.a import one\n",
        },
    )
    graph = part_graph(tmp_path, "pkg")
    assert cycles(graph) == [["a", "b", "c"]]
    assert graph["d"] == {"a": {"pkg.d"}}
