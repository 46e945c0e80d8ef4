"""The tracked files of the reviewed revision, read through git for the review workspace.

Which tree a review reads follows its diff input: the head ref of ``--base``/``--head``,
the index of ``--staged``, the tracked files as they stand for a working-tree review, the
checked-out HEAD for ``--pr``; a ``--diff`` review has none unless ``--head`` names a ref.
Only plumbing that prints stored objects is used (``ls-tree``, ``ls-files``, ``cat-file
--batch``): none of them runs a textconv, filter or hook program of the repository, and
an untracked or ignored file is never listed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mmr.diff.inputs import DiffRequest
from mmr.errors import GitError
from mmr.git import fenced_env
from mmr.process.sync import run_captured
from mmr.process.types import ProcessRequest

TreeKind = Literal["commit", "index", "worktree"]

#: A whole repository's listing or its blobs can be far larger than a diff.
TREE_TIMEOUT_S = 300.0
#: Modes of entries that are not regular files: a symlink (its target could point
#: anywhere on the host) and a submodule (another repository).
_SKIPPED_MODES = ("120000", "160000")


@dataclass(frozen=True, slots=True)
class TreeSource:
    """Which tree of the repository at ``root`` a review reads: ``commit`` names it."""

    kind: TreeKind
    root: Path
    commit: str | None = None


@dataclass(frozen=True, slots=True)
class TreeFile:
    """One tracked regular file; ``oid`` is None for a working-tree file (read from disk)."""

    path: str
    oid: str | None
    size: int | None


def tree_source(request: DiffRequest, root: Path) -> TreeSource | None:
    """The tree a review of ``request`` reads, the commit resolved now; None for none."""
    if request.diff is not None:
        return None if request.head is None else _commit(request.head, root)
    if request.pr is not None:
        return _commit("HEAD", root)
    if request.staged:
        return TreeSource("index", root)
    if request.base:
        return _commit(request.head or "HEAD", root)
    return TreeSource("worktree", root)


def _commit(ref: str, root: Path) -> TreeSource:
    oid = git_output(["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"],
                     root).decode().strip()
    return TreeSource("commit", root, oid)


def git_output(args: Sequence[str], root: Path, *, stdin: bytes | None = None) -> bytes:
    """``git args`` in ``root`` through the process chokepoint; GitError on any failure."""
    outcome = run_captured(ProcessRequest(
        ("git", *args), cwd=root, env=fenced_env(root), timeout_s=TREE_TIMEOUT_S,
        label="git", stdin=stdin))
    if outcome.rc != 0:
        detail = outcome.stderr_text().strip().splitlines()
        reason = detail[-1] if detail else (outcome.spawn_error or outcome.exit_message())
        raise GitError(f"git {args[0]} failed while exporting the review workspace: {reason}")
    return outcome.stdout


def list_files(source: TreeSource) -> list[TreeFile]:
    """The tracked regular files of ``source`` (symlinks and submodules left out)."""
    if source.kind == "commit":
        return list_commit(source.commit or "HEAD", source.root)
    raw = git_output(["ls-files", "--stage", "-z"], source.root)
    files: dict[str, TreeFile] = {}
    for record in _records(raw):
        meta, path = record.split("\t", 1)
        mode, oid, _stage = meta.split(" ")
        if mode in _SKIPPED_MODES:
            continue
        # A conflicted path has several stages; the working tree holds one file.
        files[path] = TreeFile(path, oid if source.kind == "index" else None, None)
    return list(files.values())


def list_commit(commit: str, root: Path) -> list[TreeFile]:
    """The regular files of ``commit``, with their sizes."""
    args = ["ls-tree", "-r", "-l", "-z", "--full-tree", commit]
    files = []
    for record in _records(git_output(args, root)):
        meta, path = record.split("\t", 1)
        mode, kind, oid, size = meta.split()
        if kind != "blob" or mode in _SKIPPED_MODES:
            continue
        files.append(TreeFile(path, oid, int(size)))
    return files


def blob_sizes(oids: Iterable[str], root: Path) -> dict[str, int]:
    """The size of each blob (one ``cat-file --batch-check``), for index entries."""
    wanted = "".join(f"{oid}\n" for oid in oids).encode()
    sizes: dict[str, int] = {}
    for line in git_output(["cat-file", "--batch-check"], root, stdin=wanted).splitlines():
        parts = line.decode().split()
        if len(parts) == 3:
            sizes[parts[0]] = int(parts[2])
    return sizes


def read_blobs(oids: Sequence[str], root: Path) -> Iterator[tuple[str, bytes]]:
    """Each blob's raw content (no filter, no textconv), from one ``cat-file --batch``."""
    if not oids:
        return
    out = git_output(["cat-file", "--batch"], root,
                     stdin="".join(f"{oid}\n" for oid in oids).encode())
    at = 0
    while at < len(out):
        eol = out.index(b"\n", at)
        header = out[at:eol].decode().split()
        at = eol + 1
        if len(header) != 3:  # "<oid> missing"
            continue
        size = int(header[2])
        yield header[0], out[at:at + size]
        at += size + 1


def blob_id(data: bytes) -> str:
    """The id git gives ``data`` as a blob (SHA-1), for files read from the work tree."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _records(raw: bytes) -> Iterator[str]:
    for record in raw.split(b"\0"):
        if record:
            yield record.decode("utf-8", "surrogateescape")
