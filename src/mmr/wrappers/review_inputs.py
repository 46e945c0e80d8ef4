"""``review-minimax-run`` before the review: preflight, materialised inputs, gates.

The wrapper, never the sub-session, runs git: the three-dot diff with the secret
pathspec exclusions, the commit list and the diff stat, each written into the scratch
directory as the original did. Every check here fails with exit 1.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmr import git
from mmr.diff.inputs import count_diff_lines
from mmr.errors import DiffError, GitError
from mmr.explore.inputs import InputError, resolve_existing_dir
from mmr.secrets.credentials import has_refusable_credentials

#: Secret paths left out of the diff, always (the channel's own ``diff_exclude`` adds to them).
SECRET_PATH_EXCLUDES = ("secrets/**", "local_secrets/**", "*.pem", "*.key", "*secret*")
CREDENTIAL_MESSAGE = "diff contains credential-shaped content; review in-session"
NOTHING_TO_REVIEW = "nothing to review"
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Worktree:
    """The checkout under review: its top directory, branch, base ref and repository name."""

    root: Path
    branch: str
    base: str
    repo_name: str


@dataclass(frozen=True)
class Materialised:
    """The three inputs, as written to ``diff.patch``, ``commits.txt``, ``stat.txt``."""

    directory: Path
    diff: str
    commits: str
    stat: str

    @property
    def line_count(self) -> int:
        return count_diff_lines(self.diff)

    @property
    def stat_summary(self) -> str:
        """The stat's last line (``N files changed, …``), or ``no changes``."""
        lines = [line.strip() for line in self.stat.splitlines() if line.strip()]
        return lines[-1] if lines else "no changes"


def repository_name(root: Path) -> str:
    """The repository's name, also from a linked worktree (its shared ``.git``'s parent)."""
    try:
        common = git.common_dir(root)
    except GitError:
        return root.name
    if common.name == ".git":
        return common.parent.name
    return common.name.removesuffix(".git") or root.name


def preflight(worktree: str, base: str, cwd: Path) -> Worktree:
    """An existing, non-secret git checkout on a branch, and a base that resolves."""
    path = resolve_existing_dir(worktree, cwd, "--worktree")
    try:
        root = git.show_toplevel(path)
    except git.ToolNotFoundError:
        raise
    except GitError:
        raise InputError(f"--worktree {worktree}: not a git checkout; pass the worktree of "
                         "the branch to review") from None
    branch = git.symbolic_ref("HEAD", root)
    if branch is None:
        raise InputError(f"--worktree {worktree}: HEAD is detached; check out the branch to "
                         "review first")
    if not git.ref_exists(base, root):
        raise InputError(f"--base {base}: does not resolve in {root}; fetch it or name an "
                         "existing ref")
    return Worktree(root=root, branch=branch, base=base, repo_name=repository_name(root))


def materialise(tree: Worktree, directory: Path, excludes: Sequence[str]) -> Materialised:
    """``diff <base>...HEAD`` (exclusions applied), ``log --oneline``, ``diff --stat``."""
    scope = git.DiffScope(base=tree.base, head="HEAD")
    inputs = Materialised(directory=directory, diff=git.diff(scope, tree.root, exclude=excludes),
                          commits=git.log_oneline(tree.base, "HEAD", tree.root),
                          stat=git.diff_stat(scope, tree.root, exclude=excludes))
    for name, text in (("diff.patch", inputs.diff), ("commits.txt", inputs.commits),
                       ("stat.txt", inputs.stat)):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        path.chmod(0o600)
    return inputs


def check_inputs(inputs: Materialised, max_diff_lines: int) -> None:
    """Credential-shaped content refuses (no redact-and-continue), then an empty or too big
    diff.

    The commit list goes to the model too, so it is held to the same credential rule.
    """
    if has_refusable_credentials(inputs.diff) or has_refusable_credentials(inputs.commits):
        raise DiffError(CREDENTIAL_MESSAGE)
    if not inputs.diff.strip():
        raise DiffError(NOTHING_TO_REVIEW)
    if inputs.line_count > max_diff_lines:
        raise DiffError(f"diff too large: {inputs.line_count} lines > {max_diff_lines}; raise "
                        "--max-diff-lines or review in-session")


def branch_slug(branch: str) -> str:
    """``feature/x y`` → ``feature-x-y``: a branch name as one safe file-name part."""
    return _SLUG_UNSAFE.sub("-", branch).strip("-.") or "head"


def default_out(tree: Worktree, env: Mapping[str, str]) -> Path:
    """``${XDG_RUNTIME_DIR:-/tmp}/review-minimax/<repo>/<branch-slug>-findings.md``."""
    runtime = env.get("XDG_RUNTIME_DIR") or "/tmp"  # noqa: S108 - the original script's default
    file_name = f"{branch_slug(tree.branch)}-findings.md"
    return Path(runtime) / "review-minimax" / tree.repo_name / file_name
