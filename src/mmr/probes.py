"""Filesystem questions the results pipeline asks about the repository, and their recorder.

Where a finding lands (in the diff, outside it, unanchored) and whether a markdown
citation counts depend on the work tree as well as on the job: does a cited file exist,
how many lines has it, where does the repository root resolve to. Every such question
goes through this module, so a run can record each one with its answer
(:func:`recording`) and a later run can re-ask them all (:func:`still_answered`): the
results memo (:mod:`mmr.review.stage_memo`) is used only when every answer is the same.
Outside :func:`recording` a question costs one context-variable lookup more.
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any

#: Files above this size are not read to count lines (the line check is then skipped).
MAX_COUNTED_BYTES = 16 * 1024 * 1024

Probe = tuple[str, str, str]  # (kind, repository root, path)
_recorder: ContextVar[dict[Probe, Any] | None] = ContextVar("mmr_probes", default=None)


def _is_file(root: Path, relative: str) -> bool:
    normal = posixpath.normpath(relative)
    if normal == ".." or normal.startswith("../") or posixpath.isabs(normal):
        return False
    try:
        base = root.resolve()
        target = (base / normal).resolve()
        return target.is_relative_to(base) and target.is_file()
    except (OSError, RuntimeError, ValueError):
        return False


def _line_count(root: Path, relative: str) -> int | None:
    if not _is_file(root, relative):
        return None
    target = root / relative
    try:
        if target.stat().st_size > MAX_COUNTED_BYTES:
            return None
        data = target.read_bytes()
    except OSError:
        return None
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _resolved(root: Path, _relative: str) -> str | None:
    try:
        return str(root.resolve())
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL in a recorded root
        return None


_ASK: dict[str, Callable[[Path, str], Any]] = {
    "file": _is_file, "lines": _line_count, "root": _resolved}


def _answer(kind: str, root: Path, relative: str) -> Any:
    answer = _ASK[kind](root, relative)
    probes = _recorder.get()
    if probes is not None:
        probes[(kind, str(root), relative)] = answer
    return answer


def is_file_under(root: Path | None, relative: str) -> bool:
    """True when ``relative`` names an existing file inside ``root`` (never outside it)."""
    return False if root is None else bool(_answer("file", root, relative))


def line_count(root: Path, relative: str) -> int | None:
    """Lines of the file ``relative`` under ``root`` (a last line without ``\\n`` counts);
    None when it is not a file there, cannot be read or is over :data:`MAX_COUNTED_BYTES`."""
    count: int | None = _answer("lines", root, relative)
    return count


def resolved_root(root: Path) -> str | None:
    """``root`` resolved (symlinks followed), or None when that fails."""
    answer: str | None = _answer("root", root, "")
    return answer


@contextlib.contextmanager
def recording() -> Iterator[dict[Probe, Any]]:
    """Record every question asked in the ``with`` block (this context only) with its
    answer; the dict is filled as the block runs."""
    probes: dict[Probe, Any] = {}
    token = _recorder.set(probes)
    try:
        yield probes
    finally:
        _recorder.reset(token)


def still_answered(probes: Sequence[tuple[str, str, str, Any]]) -> bool:
    """Whether every recorded ``(kind, root, path, answer)`` gets the same answer now."""
    for kind, root, relative, answer in probes:
        ask = _ASK.get(kind)
        if ask is None or ask(Path(root), relative) != answer:
            return False
    return True
