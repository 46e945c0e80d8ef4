"""Repository grounding for ``--context repo`` / ``--context-paths``.

Built once from the current directory; the same blob goes to every channel. It holds the
repository tree, then the candidate files, each as ``### <path>`` and a fenced block,
within a character budget. A file is read only when it resolves inside the directory
both as written and after following symlinks, is not in an ignored directory, is not
secret-named (:mod:`mmr.secrets.secret_files`, checked on the written *and* the real
path), and is a regular text
file of at most 64 KiB. mmr also says what it left out and why (``skipped``), so the
report can tell the user what the models did *not* see.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmr.critique.context_tree import KEEP, RepoTree, collect_tree, in_ignored_dir
from mmr.critique.models import SkippedContext
from mmr.prompt.assemble import diff_fence as fence_for
from mmr.secrets.secret_files import is_sensitive_path

CONTEXT_BUDGET = 40_000
MAX_FILE_BYTES = 64 * 1024
MANIFESTS = ("package.json", "tsconfig.json", "pyproject.toml", "go.mod", "Cargo.toml",
             "requirements.txt", "Gemfile", "pom.xml")
ARCHITECTURE_DOCS = 3
TREE_TRUNCATED = "_(tree truncated)_"
_PATH_TOKEN = re.compile(r"[\w./-]+\.\w+")


@dataclass(frozen=True)
class RepoContext:
    """The blob for the prompt, the files it includes, and the candidates left out."""

    blob: str
    used: tuple[str, ...]
    skipped: tuple[SkippedContext, ...]


@dataclass(frozen=True)
class _Candidate:
    path: str
    explicit: bool


class _Rejected(Exception):
    """A candidate that may not be read; ``quiet`` ones are not worth reporting."""

    def __init__(self, reason: str, *, quiet: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.quiet = quiet


def build_repo_context(cwd: Path, artifact: str, explicit: Sequence[str] | None = None, *,
                       budget: int = CONTEXT_BUDGET) -> RepoContext:
    """The context for ``artifact``; ``explicit`` (``--context-paths``) replaces the
    automatic selection of manifests, README, architecture docs and cited paths."""
    root = cwd.absolute()
    blocks = [tree_block(collect_tree(root), budget)]
    total = len(blocks[0])
    used: list[str] = []
    seen: set[str] = set()
    skipped: list[SkippedContext] = []
    over_budget = False
    for candidate in _candidates(root, artifact, explicit):
        try:
            relative, text = _admit(root, candidate.path)
        except _Rejected as rejected:
            if not (rejected.quiet and not candidate.explicit):
                skipped.append(SkippedContext(path=candidate.path, reason=rejected.reason))
            continue
        if relative in seen:
            continue
        seen.add(relative)
        block = file_block(relative, text)
        if total + 2 + len(block) > budget:
            over_budget = True
            skipped.append(SkippedContext(path=relative, reason="over the context budget"))
            continue
        blocks.append(block)
        total += 2 + len(block)
        used.append(relative)
    if over_budget:
        blocks.append(f"_(context truncated at budget {budget} chars)_")
    return RepoContext("\n\n".join(blocks), tuple(used), tuple(skipped))


def file_block(relative: str, text: str) -> str:
    body = text.rstrip("\n")
    fence = fence_for(body)
    return f"### {relative}\n{fence}\n{body}\n{fence}"


def _render_tree(paths: Sequence[str], limited: bool) -> str:
    body = "\n".join(paths)
    fence = fence_for(body)
    block = f"## Repository tree\n{fence}\n{body}\n{fence}"
    return block + (f"\n_(tree lists the first {KEEP} files only)_" if limited else "")


def tree_block(tree: RepoTree, budget: int) -> str:
    """The tree section; when it alone would exceed ``budget`` its body is cut."""
    block = _render_tree(tree.paths, tree.limited)
    if len(block) <= budget:
        return block
    kept = list(tree.paths)
    while kept and len(_render_tree(kept, False)) + 1 + len(TREE_TRUNCATED) > budget:
        kept.pop()
    return _render_tree(kept, False) + "\n" + TREE_TRUNCATED


def _candidates(root: Path, artifact: str, explicit: Sequence[str] | None) -> Iterator[_Candidate]:
    if explicit is not None:
        yield from (_Candidate(path.strip(), explicit=True) for path in explicit if path.strip())
        return
    for name in (*MANIFESTS, "README.md"):
        if (root / name).is_file():
            yield _Candidate(name, explicit=False)
    architecture = root / "docs" / "architecture"
    if architecture.is_dir():
        docs = sorted(p.name for p in architecture.glob("*.md"))[:ARCHITECTURE_DOCS]
        yield from (_Candidate(f"docs/architecture/{name}", explicit=False) for name in docs)
    for token in _PATH_TOKEN.findall(artifact):
        yield _Candidate(token.removeprefix("./"), explicit=False)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _admit(root: Path, raw: str) -> tuple[str, str]:
    """The real repo-relative path and text of a readable candidate, else :class:`_Rejected`."""
    lexical = os.path.normpath(root / raw)
    if not _inside(lexical, str(root)):
        raise _Rejected("outside the current directory")
    written = os.path.relpath(lexical, root).replace(os.sep, "/")
    real_root = os.path.realpath(root)
    real = os.path.realpath(lexical)
    if not _inside(real, real_root):
        raise _Rejected("resolves outside the current directory")
    relative = os.path.relpath(real, real_root).replace(os.sep, "/")
    if in_ignored_dir(written) or in_ignored_dir(relative):
        raise _Rejected("in an ignored directory")
    if is_sensitive_path(written) or is_sensitive_path(relative):
        raise _Rejected("secret file")
    return relative, _read_small_text(Path(real))


def _read_small_text(path: Path) -> str:
    try:
        if not path.is_file():
            raise _Rejected("not a regular file" if path.exists() else "not found", quiet=True)
        if path.stat().st_size > MAX_FILE_BYTES:
            raise _Rejected("larger than 64 KiB")
        data = path.read_bytes()
    except OSError as exc:
        raise _Rejected(f"unreadable ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise _Rejected("larger than 64 KiB")
    if b"\0" in data:
        raise _Rejected("binary file")
    return data.decode("utf-8", errors="replace")
