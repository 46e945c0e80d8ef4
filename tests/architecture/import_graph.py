"""The import graph of ``src/mmr``, read with :mod:`ast` (nothing is imported or run).

Every ``import mmr.x`` / ``from mmr.x import y`` counts, at module level or inside a
function, including ``TYPE_CHECKING`` blocks: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
ARCHITECTURE_DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int


def module_name(path: Path, src: Path = SRC) -> str:
    parts = path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(src: Path = SRC) -> dict[str, Path]:
    return {module_name(p, src): p for p in sorted((src / "mmr").rglob("*.py"))}


def _targets(node: ast.AST, known: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == "mmr" or alias.name.startswith("mmr."):
                yield alias.name
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module != "mmr" and not node.module.startswith("mmr."):
            return
        yielded = False
        for alias in node.names:
            sub = f"{node.module}.{alias.name}"
            if sub in known:
                yielded = True
                yield sub
        if not yielded or node.module != "mmr":
            yield node.module


def edges(src: Path = SRC) -> list[Edge]:
    known = modules(src)
    found: list[Edge] = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in _targets(node, known):
                if target not in ("mmr", name):
                    found.append(Edge(name, target, getattr(node, "lineno", 0)))
    return found


def package_of(module: str) -> str:
    """``mmr.review.pipeline`` -> ``review``; a top-level module ``mmr.git`` -> ``git``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mmr"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        result.append(sorted(component))
    return result


_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]+)\|")


def layers(doc: Path = ARCHITECTURE_DOC) -> dict[str, int]:
    """The layer of each package, from the table under ``## Layers`` in architecture.md.

    A row is ``| N | `pkg`, `pkg` | …``; layer 1 is the top. A package may import only
    packages of a higher layer number (lower down).
    """
    text = doc.read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    table: dict[str, int] = {}
    for line in section.splitlines():
        match = _ROW.match(line)
        if match:
            for name in re.findall(r"`([a-z_]+)`", match.group(2)):
                table[name] = int(match.group(1))
    return table
