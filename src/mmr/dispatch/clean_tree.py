"""``assert_clean_tree``: a channel must leave the work tree as it found it.

The state is ``git status --porcelain`` taken before the channel's first attempt and after
its last; mmr also fingerprints the content of every listed path, so editing a file that
was already dirty counts as a change too. Nothing is ever reverted: the changed paths are
listed and the channel is ``failed`` with reason ``dirtied_worktree``.
"""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

from mmr import git
from mmr.errors import GitError
from mmr.log import get_logger

#: Files above this size are fingerprinted by size and mtime rather than read.
_HASH_LIMIT = 32 * 1024 * 1024

DIRTIED_WORKTREE = "dirtied_worktree"
#: Each path git reports, with its status code and a fingerprint of its content.
TreeState = dict[str, tuple[str, str]]


def _fingerprint(path: Path) -> str:
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            return f"link:{path.readlink()}"
        if not stat.S_ISREG(info.st_mode):
            return f"mode:{info.st_mode:o}"
        if info.st_size > _HASH_LIMIT:
            return f"big:{info.st_size}:{info.st_mtime_ns}"
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "absent"


def tree_state(repo_root: Path) -> TreeState | None:
    """The work tree's state, or None (with a warning) when it cannot be read."""
    try:
        entries = git.status_porcelain(repo_root)
    except GitError as exc:
        get_logger(__name__).warning("clean_tree.unavailable", repo=str(repo_root), error=str(exc))
        return None
    return {path: (code, _fingerprint(repo_root / path)) for code, path in entries}


def dirt(before: TreeState, after: TreeState) -> list[str]:
    """Porcelain-style lines for every path whose status or content changed, sorted."""
    lines: list[str] = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        code = new[0] if new is not None else "(now clean)"
        lines.append(f"{code} {path}")
    return lines


def dirt_log(lines: list[str]) -> str:
    """The ``<ch>.log`` text for a channel that changed the work tree."""
    listing = "\n".join(f"  {line}" for line in lines)
    return ("the channel changed the work tree while it ran (assert_clean_tree; nothing was "
            f"reverted):\n{listing}")
