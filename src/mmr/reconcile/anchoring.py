"""Sort a channel's findings by where they point: in the diff, elsewhere in the repository,
or nowhere usable (mmr addition — MMR 4.0.1 drops all but the first class).

A finding is *in the diff* when MMR 4.0.1's rule (:func:`names_touched_path`) accepts its
location as written — it is then kept unchanged, so ``finding_key`` is MMR 4.0.1's — or
when a normalised form of it names a touched path (an absolute path inside the repository,
``a/``/``b/`` prefixes, ``path:L7``, ``path#L7``, ``path (line 7)``, ``path, line 7``); such a
location is rewritten to ``path:7``. A finding whose path is a file of the repository that
the diff does not touch is *outside the diff*. Everything else — no path, a path not in the
repository, or a line past the end of the file — is *unanchored*.

The line check is conservative: a line is accepted when it is within the file as it stands
in the repository's work tree or within the diff's hunks for that path, so a deleted or
renamed file's findings are never pushed out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mmr.models import Finding
from mmr.parsers.citations import path_exists_under
from mmr.reconcile.diff_filter import names_touched_path, normalize_path, touched_paths
from mmr.reconcile.jstext import trim
from mmr.unidiff.names import strip_side_prefix
from mmr.unidiff.walk import walk_diff

FindingPlace = Literal["in_diff", "outside_diff", "unanchored"]

_LINE_SUFFIX = re.compile(
    r"(?:[:#]L?(?P<a>\d+)(?:[:-]L?\d+)*"
    r"|\s*\((?:line|lines|l\.)\s*(?P<b>\d+)(?:\s*-\s*\d+)?\)"
    r"|,?\s+lines?\s+(?P<c>\d+)(?:\s*-\s*\d+)?)\s*\Z",
    re.IGNORECASE,
)
_SUFFIX_WINDOW = 64
#: Files above this size are not read to count lines (the line check is then skipped).
_MAX_COUNTED_BYTES = 16 * 1024 * 1024


@dataclass
class DiffScope:
    """What the reviewed change covers: its touched paths, hunk extents and repository."""

    touched: frozenset[str]
    repo_root: Path | None = None
    #: Highest line number the diff shows for each path (either side).
    hunk_extent: dict[str, int] = field(default_factory=dict)
    added: int = 0
    removed: int = 0
    _line_counts: dict[str, int | None] = field(default_factory=dict)

    @classmethod
    def from_diff(cls, diff_text: str, repo_root: Path | None) -> DiffScope:
        extent: dict[str, int] = {}
        added = removed = 0
        for line in walk_diff(diff_text):
            if line.file is not None and line.line is not None:
                key = normalize_path(line.file)
                extent[key] = max(extent.get(key, 0), line.line)
                added += line.kind == "added"
                removed += line.kind == "removed"
        return cls(touched_paths(diff_text), repo_root, extent, added, removed)

    def line_exists(self, path: str, line: int) -> bool:
        if line < 1:
            return False
        if line <= self.hunk_extent.get(path, 0):
            return True
        count = self._count_lines(path)
        return count is None or line <= max(count, 1)

    def in_repository(self, path: str) -> bool:
        return path_exists_under(self.repo_root, path)

    def _count_lines(self, path: str) -> int | None:
        if path not in self._line_counts:
            self._line_counts[path] = None
            if path_exists_under(self.repo_root, path) and self.repo_root is not None:
                target = self.repo_root / path
                try:
                    if target.stat().st_size <= _MAX_COUNTED_BYTES:
                        data = target.read_bytes()
                        self._line_counts[path] = data.count(b"\n") + (
                            0 if data.endswith(b"\n") or not data else 1)
                except OSError:
                    pass
        return self._line_counts[path]


@dataclass
class SortedFindings:
    """One channel's findings in the three places, each in reply order."""

    in_diff: list[Finding] = field(default_factory=list)
    outside_diff: list[Finding] = field(default_factory=list)
    unanchored: list[Finding] = field(default_factory=list)

    def add(self, place: FindingPlace, finding: Finding) -> None:
        getattr(self, place).append(finding)


def split_location(location: str) -> tuple[str, int | None]:
    """``(path, line)`` of a location in any of the forms the module docstring lists."""
    text = trim(location)
    # A line suffix is short; searching only the tail keeps a hostile location linear.
    offset = max(0, len(text) - _SUFFIX_WINDOW)
    match = _LINE_SUFFIX.search(text, offset)
    line: int | None = None
    if match is not None:
        digits = match.group("a") or match.group("b") or match.group("c")
        line = int(digits) if digits and len(digits) < 10 else 10**10
        text = text[: match.start()]
    return text.strip().strip("`"), line


def _repo_relative(path: str, repo_root: Path | None) -> str:
    path = strip_side_prefix(normalize_path(path))
    if posixpath.isabs(path) and repo_root is not None:
        try:
            root = str(repo_root.resolve()).rstrip("/") + "/"
        except (OSError, RuntimeError):
            return path
        if path.startswith(root):
            return posixpath.normpath(path[len(root):])
    return path


def place_finding(finding: Finding, scope: DiffScope) -> tuple[FindingPlace, Finding]:
    """Where ``finding`` belongs, and the finding to record there (location normalised
    only when MMR 4.0.1's rule alone would have dropped it)."""
    path, line = split_location(finding.location)
    place: FindingPlace = "unanchored"
    if names_touched_path(finding.location, scope.touched):
        literal = normalize_path(finding.location.split(":", 1)[0])
        path = literal if literal in scope.touched else _repo_relative(path, scope.repo_root)
        place = "in_diff"
    else:
        path = _repo_relative(path, scope.repo_root)
        if path and path in scope.touched:
            place = "in_diff"
            finding = finding.model_copy(
                update={"location": f"{path}:{line}" if line is not None else path})
        elif path and scope.in_repository(path):
            place = "outside_diff"
    if place != "unanchored" and line is not None and not scope.line_exists(path, line):
        place = "unanchored"
    return place, finding


def sort_findings(findings: Sequence[Finding], scope: DiffScope | None) -> SortedFindings:
    """Every finding in exactly one place; without a diff all are in it (as MMR 4.0.1)."""
    result = SortedFindings()
    if scope is None or not scope.touched:
        result.in_diff.extend(findings)
        return result
    for finding in findings:
        result.add(*place_finding(finding, scope))
    return result

