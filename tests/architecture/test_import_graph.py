"""The layout rule of docs/architecture.md, checked over the real import graph of src/mmr."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from tests.architecture.import_graph import (
    SRC,
    Edge,
    cycles,
    edges,
    layers,
    modules,
    package_of,
)

ENTRY_POINTS = {"cli", "wrappers", "__main__"}
PROCESS_CALLS = {
    ("os", "system"), ("os", "popen"), ("os", "execv"), ("os", "execve"), ("os", "execvp"),
    ("os", "execvpe"), ("os", "execl"), ("os", "execle"), ("os", "execlp"), ("os", "execlpe"),
    ("os", "spawnv"), ("os", "spawnve"), ("os", "spawnvp"), ("os", "spawnvpe"),
    ("os", "posix_spawn"), ("os", "posix_spawnp"), ("os", "fork"),
    ("asyncio", "create_subprocess_exec"), ("asyncio", "create_subprocess_shell"),
    ("anyio", "open_process"), ("anyio", "run_process"),
}


def package_graph(found: list[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in found:
        a, b = package_of(edge.importer), package_of(edge.imported)
        if a != b:
            graph[a].add(b)
    return graph


def layer_violations(found: list[Edge], table: dict[str, int]) -> list[str]:
    problems = []
    for edge in found:
        a, b = package_of(edge.importer), package_of(edge.imported)
        if a != b and not table[a] < table[b]:
            problems.append(f"{edge.importer}:{edge.line} imports {edge.imported} "
                            f"(layer {table[a]} -> {table[b]})")
    return problems


def process_calls(path: Path) -> list[str]:
    """Places in ``path`` that could start a process without going through mmr.process."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name == "subprocess"]
        elif isinstance(node, ast.ImportFrom) and node.module == "subprocess":
            found.append(f"line {node.lineno}: from subprocess import …")
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and (node.value.id, node.attr) in PROCESS_CALLS):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.fixture(scope="module")
def graph_edges() -> list[Edge]:
    return edges()


def test_every_package_has_a_row_in_the_layers_table(graph_edges: list[Edge]) -> None:
    table = layers()
    packages = {package_of(m) for m in modules()} - {"mmr"}
    assert sorted(packages - table.keys()) == []
    assert sorted(table.keys() - packages) == []


def test_no_package_imports_one_above_it(graph_edges: list[Edge]) -> None:
    assert layer_violations(graph_edges, layers()) == []


def test_no_import_cycle_between_packages(graph_edges: list[Edge]) -> None:
    assert cycles(package_graph(graph_edges)) == []


def test_no_import_cycle_between_files(graph_edges: list[Edge]) -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in graph_edges:
        graph[edge.importer].add(edge.imported)
    assert cycles(graph) == []


def test_the_core_never_imports_the_cli(graph_edges: list[Edge]) -> None:
    offenders = [f"{e.importer}:{e.line} -> {e.imported}" for e in graph_edges
                 if package_of(e.imported) == "cli" and package_of(e.importer) not in ENTRY_POINTS]
    assert offenders == []


def test_only_the_process_package_starts_processes() -> None:
    offenders = {name: calls for name, path in modules().items()
                 if package_of(name) != "process" and (calls := process_calls(path))}
    assert offenders == {}


# The checker itself, on trees built to break each rule.

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return src


def test_checker_finds_a_package_cycle_through_a_lazy_import(tmp_path: Path) -> None:
    src = _tree(tmp_path, {
        "mmr/__init__.py": "", "mmr/a/__init__.py": "", "mmr/b/__init__.py": "",
        "mmr/a/x.py": "from mmr.b.y import f\n",
        "mmr/b/y.py": "def f():\n    from mmr.a import x\n",
    })
    assert cycles(package_graph(edges(src))) == [["a", "b"]]


def test_checker_finds_an_upward_import(tmp_path: Path) -> None:
    src = _tree(tmp_path, {
        "mmr/__init__.py": "", "mmr/low.py": "import mmr.high\n", "mmr/high.py": "",
    })
    problems = layer_violations(edges(src), {"high": 1, "low": 2})
    assert problems == ["mmr.low:1 imports mmr.high (layer 2 -> 1)"]


def test_checker_reads_the_layers_table(tmp_path: Path) -> None:
    doc = tmp_path / "architecture.md"
    doc.write_text("# A\n\n## Layers\n\n| layer | packages |\n|---|---|\n"
                   "| 1 | `cli` |\n| 2 | `review`, `dispatch` |\n\n## Next\n| 9 | `x` |\n")
    assert layers(doc) == {"cli": 1, "review": 2, "dispatch": 2}


def test_checker_finds_a_subprocess_outside_the_chokepoint(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("import os\nimport subprocess\nos.system('x')\n")
    assert process_calls(path) == ["line 2: import subprocess", "line 3: os.system"]


def test_the_source_tree_is_where_the_checker_looks() -> None:
    assert (SRC / "mmr" / "review" / "pipeline.py").is_file()
