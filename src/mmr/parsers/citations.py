"""``path:line`` citations in prose, and whether a cited path exists under the repo.

A citation is the first token matching
``(?:[\\w.-]+/)*[\\w.-]+\\.\\w+|[\\w.-]+(?:/[\\w.-]+)+`` followed by ``:line`` or
``:start-end`` — a path with a ``/`` or an extension, so timestamps (``12:30``) and bare
``:42`` never count. Running that pattern as a regex search backtracks badly on long
dotted tokens, so the scan goes the other way: find each ``:digits`` and read the path
characters just before it (the runs before two colons never overlap, so this is linear).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

_LINE_REF = re.compile(r":([0-9]+)(?:-([0-9]+))?")
_PATH_RUN = re.compile(r"[\w./-]*")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Citation:
    path: str  # as written, one leading "./" removed
    location: str  # "path:line" or "path:start-end"


def _path_in_run(run: str) -> str | None:
    """The leftmost suffix of ``run`` that the citation pattern accepts as a path."""
    double_slash = run.rfind("//")
    if double_slash >= 0:
        run = run[double_slash + 2 :]
    run = run.removeprefix("/")
    if not run or run.endswith("/"):
        return None
    if "/" in run:
        return run
    stem, dot, extension = run.rpartition(".")
    if dot and stem and _WORD.fullmatch(extension):
        return run
    return None


def find_citation(text: str) -> Citation | None:
    """The first ``path:line`` citation in ``text``, or None."""
    if ":" not in text:
        return None
    reversed_text = text[::-1]
    size = len(text)
    for ref in _LINE_REF.finditer(text):
        colon = ref.start()
        run_match = _PATH_RUN.match(reversed_text, size - colon)
        run = run_match.group()[::-1] if run_match else ""
        path = _path_in_run(run)
        if path is None:
            continue
        path = path.removeprefix("./")
        lines = ref.group(1) + (f"-{ref.group(2)}" if ref.group(2) is not None else "")
        return Citation(path=path, location=f"{path}:{lines}")
    return None


def path_exists_under(root: Path | None, relative: str) -> bool:
    """True when ``relative`` names an existing file inside ``root`` (never outside it)."""
    if root is None:
        return False
    normal = posixpath.normpath(relative)
    if normal == ".." or normal.startswith("../") or posixpath.isabs(normal):
        return False
    try:
        base = root.resolve()
        target = (base / normal).resolve()
        return target.is_relative_to(base) and target.is_file()
    except (OSError, RuntimeError, ValueError):
        return False
