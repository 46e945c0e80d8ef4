"""The repository tree a grounded critique shows the models.

Walked from the current directory, level by level, at most three directories deep, so a
big first directory cannot crowd out the top level. Ignored build and tool directories,
symlinks, secret-named directories and sensitive files never appear. Collection
stops after 800 files; the sorted list keeps the first 200.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from mmr.secrets.secret_files import is_sensitive_path, is_sensitive_segment

IGNORED_DIRS = frozenset({
    ".git", "node_modules", "dist", "build", "coverage", ".next", ".cache", ".turbo", "target",
    "vendor", ".venv", "venv", "__pycache__", ".tox", "out", ".gradle",
})
MAX_DEPTH = 3
COLLECT_LIMIT = 800
KEEP = 200


@dataclass(frozen=True)
class RepoTree:
    """The kept paths (sorted, ``/``-separated) and whether more files were found."""

    paths: tuple[str, ...]
    limited: bool


def in_ignored_dir(relative: str) -> bool:
    """Whether any segment of a ``/``-separated path is an ignored directory name."""
    return any(part in IGNORED_DIRS for part in relative.split("/"))


def collect_tree(root: Path) -> RepoTree:
    """The files under ``root`` a model may see listed (breadth first, see module doc)."""
    found: list[str] = []
    queue: deque[tuple[Path, str, int]] = deque([(root, "", 0)])
    while queue and len(found) < COLLECT_LIMIT:
        directory, prefix, depth = queue.popleft()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if len(found) >= COLLECT_LIMIT:
                break
            relative = prefix + entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if (depth < MAX_DEPTH and entry.name not in IGNORED_DIRS
                        and not is_sensitive_segment(entry.name)):
                    queue.append((Path(entry.path), relative + "/", depth + 1))
            elif entry.is_file(follow_symlinks=False) and not is_sensitive_path(relative):
                found.append(relative)
    found.sort()
    return RepoTree(tuple(found[:KEEP]), len(found) > KEEP)
