"""Every git and gh invocation mmr makes, one small function per need.

Each call runs without a shell, in a given directory, with a scrubbed environment
(C locale, no prompts, no pager, no optional locks), a timeout and a 10 MiB cap on
what it prints. A failure becomes a :class:`~mmr.errors.GitError` whose message names
the command and the fix. Nothing here changes the work tree or what is staged (``git
diff`` may still refresh the index's stat cache, as it does for any user).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mmr.errors import GitError
from mmr.process.sync import run_captured
from mmr.process.types import ProcessRequest

#: Largest output accepted from git or gh (MMR 4.0.1's capture limit).
OUTPUT_LIMIT = 10 * 1024 * 1024
PROBE_TIMEOUT = 5.0
READ_TIMEOUT = 10.0
DIFF_TIMEOUT = 120.0

_SAFE_REF = re.compile(r"[A-Za-z0-9._/~^-]+")
# User settings that would change which paths a pathspec selects or how the diff looks.
_SCRUBBED_VARS = (
    "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS", "GIT_EXTERNAL_DIFF", "GH_FORCE_TTY", "CLICOLOR_FORCE",
)
_FIXED_VARS = {
    "LC_ALL": "C", "LANGUAGE": "C", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat", "PAGER": "cat", "GH_PAGER": "cat", "GH_PROMPT_DISABLED": "1",
    "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1",
}
# Canonical patch text whatever the user's diff.* settings say.
_DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-relative", "--src-prefix=a/",
                 "--dst-prefix=b/")


def is_safe_ref(ref: str) -> bool:
    """Whether ``ref`` may be embedded in ``git show <ref>:<path>``."""
    return (
        _SAFE_REF.fullmatch(ref) is not None
        and ".." not in ref
        and "@{" not in ref
        and not ref.startswith(("-", "/"))
        and not ref.endswith("/")
    )


def safe_repo_path(path: str) -> str | None:
    """``path`` without a leading ``./`` if it may be read from a ref, else None."""
    while path.startswith("./"):
        path = path[2:]
    if not path or ":" in path or ".." in path.split("/"):
        return None
    return path


class ToolNotFoundError(GitError):
    """``git`` or ``gh`` is not on PATH."""


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_VARS}
    env.update(_FIXED_VARS)
    return env


def _first_line(stderr: bytes) -> str:
    for raw in stderr.decode("utf-8", errors="replace").splitlines():
        line = raw.strip()
        if line:
            return re.sub(r"^(fatal|error):\s*", "", line)
    return ""


def _run(tool: str, args: Sequence[str], cwd: Path, *, timeout: float, needed_for: str,
         label: str = "", fix: str = "", stdin: bytes | None = None) -> bytes:
    """Run ``tool args`` in ``cwd`` and return its stdout; raise GitError on any failure.

    ``label`` names the command in messages (default: the tool and its sub-command).
    """
    executable = shutil.which(tool, path=os.environ.get("PATH"))
    if executable is None:
        raise ToolNotFoundError(f"'{tool}' not found on PATH (needed {needed_for}); install it, "
                       "or pass the diff with --diff <file>")
    shown = label or f"{tool} {args[0]}"
    outcome = run_captured(ProcessRequest(
        (executable, *args), cwd=cwd, env=_child_env(), timeout_s=timeout, label=tool,
        max_capture_bytes=OUTPUT_LIMIT, stdin=stdin,
    ))
    if outcome.timed_out:
        raise GitError(f"{shown} timed out after {timeout:g}s")
    if outcome.spawn_error is not None:
        detail = outcome.spawn_error.removeprefix(f"could not run {executable}: ")
        raise GitError(f"could not run {shown} in {cwd}: {detail}")
    if outcome.truncated:
        raise GitError(f"{shown} output exceeds 10 MiB; pass the diff with --diff <file>")
    if outcome.rc != 0:
        code = outcome.rc if outcome.rc is not None else f"signal {outcome.killed_by}"
        detail = _first_line(outcome.stderr) or f"exit status {code}"
        raise GitError(f"{shown} failed: {detail}{fix}")
    return outcome.stdout


def _git(args: Sequence[str], cwd: Path, *, timeout: float = READ_TIMEOUT) -> bytes:
    return _run("git", args, cwd, timeout=timeout, needed_for="to read the repository")


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# --- repository discovery ---------------------------------------------------------------

def is_inside_work_tree(cwd: Path) -> bool:
    """``git rev-parse --is-inside-work-tree`` says true; False when git is missing too."""
    try:
        out = _git(["rev-parse", "--is-inside-work-tree"], cwd, timeout=PROBE_TIMEOUT)
    except GitError:
        return False
    return _text(out).strip() == "true"


def find_dot_git_ancestor(cwd: Path) -> Path | None:
    """Nearest ancestor of ``cwd`` (itself included) holding a ``.git`` file or directory."""
    start = cwd.resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def show_toplevel(cwd: Path) -> Path:
    """The top directory of the work tree containing ``cwd``."""
    out = _git(["rev-parse", "--show-toplevel"], cwd, timeout=PROBE_TIMEOUT)
    return Path(_text(out).strip())


def ensure_work_tree(cwd: Path) -> Path:
    """The work tree's top directory; GitError when ``cwd`` is not inside one."""
    try:
        return show_toplevel(cwd)
    except ToolNotFoundError:
        raise
    except GitError:
        raise GitError(f"git diff failed: not a git repository ({cwd}); run mmr inside a git "
                       "work tree, or pass the diff with --diff <file>") from None


def ref_exists(ref: str, cwd: Path) -> bool:
    """Whether ``ref`` names a commit in the repository at ``cwd``."""
    if ref.startswith("-"):
        return False
    try:
        _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
             cwd, timeout=PROBE_TIMEOUT)
    except GitError:
        return False
    return True


def merge_base(first: str, second: str, cwd: Path) -> str:
    """The commit id of the best common ancestor of two refs."""
    out = _git(["merge-base", "--end-of-options", first, second], cwd)
    return _text(out).strip()


def remote_default_branch(cwd: Path, remote: str = "origin") -> str | None:
    """``<remote>/<name>`` that ``refs/remotes/<remote>/HEAD`` points at, or None."""
    try:
        out = _git(["symbolic-ref", "--quiet", "--short", f"refs/remotes/{remote}/HEAD"], cwd,
                   timeout=PROBE_TIMEOUT)
    except ToolNotFoundError:
        raise
    except GitError:
        return None
    return _text(out).strip() or None


def changed_paths(base: str, head: str, cwd: Path, *, only: Sequence[str]) -> list[str]:
    """Paths matching the ``only`` pathspecs (any case) whose content differs at the refs."""
    args = ["diff", "--name-only", "-z", "--no-relative", "--no-renames", "--no-ext-diff",
            "--end-of-options", base, head, "--", *_top_pathspecs("top,icase", only)]
    return [name for name in _text(_git(args, cwd, timeout=DIFF_TIMEOUT)).split("\0") if name]


def current_branch(cwd: Path) -> str | None:
    """The checked-out branch's short name, or None on a detached HEAD."""
    try:
        out = _git(["symbolic-ref", "--quiet", "--short", "HEAD"], cwd, timeout=PROBE_TIMEOUT)
    except ToolNotFoundError:
        raise
    except GitError:
        return None
    return _text(out).strip() or None


def common_dir(cwd: Path) -> Path:
    """The repository's shared git directory (the main ``.git`` also from a linked worktree)."""
    out = _git(["rev-parse", "--path-format=absolute", "--git-common-dir"], cwd,
               timeout=PROBE_TIMEOUT)
    return Path(_text(out).strip())


# --- diffs ------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiffScope:
    """Which changes a diff covers: the working tree, the index, or ``base...head``."""

    staged: bool = False
    base: str | None = None
    head: str = "HEAD"

    def revision_args(self) -> list[str]:
        if self.base is not None:
            return [f"{self.base}...{self.head}"]
        return ["--cached"] if self.staged else []


def _top_pathspecs(magic: str, patterns: Sequence[str]) -> list[str]:
    # `top` makes a pattern relative to the repository root, not the current directory.
    return [f":({magic}){pattern}" for pattern in patterns]


def diff(scope: DiffScope, cwd: Path, *, exclude: Sequence[str] = ()) -> str:
    """The patch for ``scope``, leaving out paths matching the ``exclude`` pathspecs."""
    args = ["diff", *_DIFF_OPTIONS, *scope.revision_args(), "--",
            *_top_pathspecs("top,exclude", exclude)]
    return _text(_git(args, cwd, timeout=DIFF_TIMEOUT))


def diff_paths(scope: DiffScope, cwd: Path, *, only: Sequence[str]) -> list[str]:
    """Paths changed in ``scope`` that match any of the ``only`` pathspecs."""
    if not only:
        return []
    args = ["diff", "--name-only", "-z", "--no-relative", *scope.revision_args(), "--",
            *_top_pathspecs("top", only)]
    return [name for name in _text(_git(args, cwd, timeout=DIFF_TIMEOUT)).split("\0") if name]


def diff_stat(scope: DiffScope, cwd: Path, *, exclude: Sequence[str] = ()) -> str:
    """``git diff --stat`` for ``scope``, leaving out paths matching ``exclude``."""
    args = ["diff", "--stat", "--no-color", "--no-ext-diff", "--no-relative",
            *scope.revision_args(), "--", *_top_pathspecs("top,exclude", exclude)]
    return _text(_git(args, cwd, timeout=DIFF_TIMEOUT))


def log_oneline(base: str, head: str, cwd: Path) -> str:
    """``git log --oneline <base>..<head>``: the commits ``head`` adds over ``base``."""
    args = ["log", "--oneline", "--no-color", "--no-decorate", f"{base}..{head}", "--"]
    return _text(_git(args, cwd, timeout=DIFF_TIMEOUT))


# --- reading from a ref -----------------------------------------------------------------

def show_file(ref: str, path: str, cwd: Path) -> str:
    """The content of ``path`` (from the repository root) at ``ref``."""
    clean = safe_repo_path(path)
    if not is_safe_ref(ref) or clean is None:
        raise GitError(f"refusing to read {ref}:{path}: not a plain ref and repository path")
    return _text(_git(["show", f"{ref}:{clean}"], cwd))


@dataclass(frozen=True)
class TreeEntry:
    """One entry of ``git ls-tree -l``."""

    mode: str
    kind: str
    size: int | None
    path: str


def list_tree(ref: str, directory: str, cwd: Path) -> list[TreeEntry]:
    """Entries directly inside ``directory`` at ``ref`` (paths from the repository root)."""
    clean = safe_repo_path(directory)
    if not is_safe_ref(ref) or clean is None:
        raise GitError(f"refusing to list {ref}:{directory}: not a plain ref and repository path")
    out = _text(_git(["ls-tree", "-z", "-l", "--full-tree", ref, "--", clean.rstrip("/") + "/"],
                     cwd))
    entries = []
    for record in filter(None, out.split("\0")):
        meta, _, path = record.partition("\t")
        mode, kind, _object_id, size = meta.split()
        entries.append(TreeEntry(mode, kind, int(size) if size.isdigit() else None, path))
    return entries


# --- work-tree state ---------------------------------------------------------------------

def status_porcelain(cwd: Path) -> list[tuple[str, str]]:
    """``git status --porcelain -z --untracked-files=all`` as ``(XY, path)`` pairs.

    Untracked files are listed one by one (not collapsed into their directory) so a new
    file inside an untracked directory shows up; a rename's original path is dropped.
    Used by ``assert_clean_tree``. Changes nothing (optional locks are off).
    """
    out = _git(["status", "--porcelain", "-z", "--untracked-files=all"], cwd)
    entries: list[tuple[str, str]] = []
    fields = _text(out).split("\0")
    index = 0
    while index < len(fields):
        field = fields[index]
        index += 1
        if len(field) < 4:
            continue
        code, path = field[:2], field[3:]
        entries.append((code, path))
        if "R" in code or "C" in code:
            index += 1  # the next field is the rename/copy source
    return entries


# --- GitHub CLI -------------------------------------------------------------------------

_GH_FIX = "; check `gh auth status` and the PR number, or pass the diff with --diff <file>"


def pr_diff(number: int, cwd: Path) -> str:
    """``gh pr diff <number>``: the pull request's patch."""
    out = _run("gh", ["pr", "diff", str(number), "--color", "never"], cwd,
               timeout=DIFF_TIMEOUT, needed_for="for --pr", label=f"gh pr diff {number}",
               fix=_GH_FIX)
    return _text(out)


def pr_base_branch(number: int, cwd: Path) -> str:
    """The name of the branch pull request ``number`` targets (``baseRefName``)."""
    out = _run("gh", ["pr", "view", str(number), "--json", "baseRefName"], cwd,
               timeout=READ_TIMEOUT, needed_for="for --pr", label=f"gh pr view {number}",
               fix=_GH_FIX)
    try:
        name = json.loads(out).get("baseRefName")
    except (ValueError, AttributeError):
        raise GitError(f"gh pr view {number} printed something other than JSON") from None
    if not isinstance(name, str) or not name.strip():
        raise GitError(f"gh pr view {number} returned no base branch")
    return name.strip()


_GH_API_FIX = ("; check `gh auth status` (in GitHub Actions: GH_TOKEN and the job's "
               "`pull-requests: write` permission)")


def gh_api(method: str, endpoint: str, cwd: Path, *, body: object = None,
           paginate: bool = False, jq: str | None = None) -> bytes:
    """``gh api``: one REST call; ``{owner}/{repo}`` in ``endpoint`` is the current repository.

    ``body`` is sent as JSON on stdin (never on the command line, where it would show in
    process listings and hit argv limits).
    """
    args = ["api", "--method", method, endpoint]
    if paginate:
        args.append("--paginate")
    if jq is not None:
        args += ["--jq", jq]
    payload = None
    if body is not None:
        args += ["--input", "-"]
        payload = json.dumps(body).encode("utf-8")
    return _run("gh", args, cwd, timeout=DIFF_TIMEOUT, needed_for="to comment on the pull request",
                label=f"gh api {method} {endpoint}", fix=_GH_API_FIX, stdin=payload)

