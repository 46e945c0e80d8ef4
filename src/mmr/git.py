"""Every git and gh invocation mmr makes, one small function per need.

Each call runs without a shell, in a given directory, with a scrubbed environment
(C locale, no prompts, no pager, no optional locks), a timeout and a 10 MiB cap on
what it prints. A failure becomes a :class:`~mmr.errors.GitError` whose message names
the command and the fix. Nothing here changes the work tree or what is staged (``git
diff`` may still refresh the index's stat cache, as it does for any user).

The repository under review is not trusted, nor its git config (``.git/config`` and what
it includes) nor its ``.gitattributes``: no git call here runs a program they name, and
a diff shows the real text whatever they say (docs/trust.md, "Git").
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmr.errors import GitError
from mmr.process.sync import run_captured
from mmr.process.types import ProcessRequest

#: Largest output accepted from git or gh (MMR 4.0.1's capture limit).
OUTPUT_LIMIT = 10 * 1024 * 1024
#: What a diff holds for a changed text file whose diff is over the cap (reviewers do not
#: see it; coverage lists it as ``unshown_text_files``).
TEXT_NOT_SHOWN = "Text file not shown: its diff is over the 10 MiB output limit"
PROBE_TIMEOUT = 5.0
READ_TIMEOUT = 10.0
DIFF_TIMEOUT = 120.0
#: The token mmr's own gh calls use (the Action sets it for an incremental review), which
#: no reviewer sees: gh gets it as ``GH_TOKEN``, a channel's process not at all.
GH_TOKEN_ENV = "MMR_GH_TOKEN"  # noqa: S105 (a variable name, not a token)

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_PR_URL = re.compile(r"https://[^/]+/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/\d+")
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
# Canonical patch text whatever the user's diff.* settings say; no textconv driver or
# external diff program runs, whatever a .gitattributes line or the git config asks for.
_DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
                 "--src-prefix=a/", "--dst-prefix=b/")
# Settings a repository's git config could use to run a program during a read-only command
# (diff, status, log, show, ls-tree, rev-parse), pinned on every call. Passed as
# GIT_CONFIG_COUNT entries after the user's own, so they win over every config file and
# include. Settings only a remote operation reads (core.sshCommand, credential helpers,
# uploadpack/receivepack) are left alone: none of these commands contacts a remote.
_PINNED_CONFIG = (
    ("core.fsmonitor", "false"),          # a hook diff and status run to list changed files
    ("core.hooksPath", "/dev/null"),      # post-index-change fires when the index is refreshed
    ("diff.external", ""),                # also --no-ext-diff on every diff
    ("log.showSignature", "false"),       # would run gpg.program on `git log`
    ("diff.submodule", "short"),          # no log run inside a submodule
    ("status.submoduleSummary", "false"),
    ("core.pager", "cat"),
)
# A `filter=NAME` attribute runs `filter.NAME.clean` on working-tree files; every driver
# the config defines is switched off (an empty command is no filter to git).
_FILTER_KEYS = re.compile(r"filter\.(.+)\.(clean|smudge|process|required)")


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


def _child_env(pinned: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_VARS}
    env.update(_FIXED_VARS)
    count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    for index, (key, value) in enumerate(pinned, start=count):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    if pinned:
        env["GIT_CONFIG_COUNT"] = str(count + len(pinned))
    return env


def _pinned_config(executable: str, cwd: Path) -> list[tuple[str, str]]:
    """:data:`_PINNED_CONFIG` plus an empty command for every filter driver configured
    (reading the config runs nothing; a failure here leaves the fixed pins only)."""
    outcome = run_captured(ProcessRequest(
        (executable, "config", "--name-only", "-z", "--get-regexp", r"^filter\."),
        cwd=cwd, env=_child_env(), timeout_s=PROBE_TIMEOUT, label="git",
        max_capture_bytes=OUTPUT_LIMIT))
    pinned = list(_PINNED_CONFIG)
    for key in sorted(set(_text(outcome.stdout).split("\0"))):
        found = _FILTER_KEYS.fullmatch(key.strip())
        if found is not None:
            pinned.append((key.strip(), "false" if found[2] == "required" else ""))
    return pinned


def fenced_env(cwd: Path) -> dict[str, str]:
    """The environment of every git call that reads the repository at ``cwd``, and of gh
    (whose own git calls inherit it): no program named by the repository's config runs."""
    git = shutil.which("git", path=os.environ.get("PATH"))
    return _child_env(_pinned_config(git, cwd) if git is not None else ())


def _first_line(stderr: bytes) -> str:
    for raw in stderr.decode("utf-8", errors="replace").splitlines():
        line = raw.strip()
        if line:
            return re.sub(r"^(fatal|error):\s*", "", line)
    return ""


def _run(tool: str, args: Sequence[str], cwd: Path, *, timeout: float, needed_for: str,
         label: str = "", fix: str = "", stdin: bytes | None = None,
         head: bool = False) -> bytes:
    """Run ``tool args`` in ``cwd`` and return its stdout; raise GitError on any failure.

    ``label`` names the command in messages (default: the tool and its sub-command);
    ``head`` returns the first :data:`OUTPUT_LIMIT` bytes of a longer output.
    """
    executable = shutil.which(tool, path=os.environ.get("PATH"))
    if executable is None:
        raise ToolNotFoundError(f"'{tool}' not found on PATH (needed {needed_for}); install it, "
                       "or pass the diff with --diff <file>")
    shown = label or f"{tool} {args[0]}"
    env = fenced_env(cwd)
    if tool == "gh" and env.get(GH_TOKEN_ENV):
        env["GH_TOKEN"] = env[GH_TOKEN_ENV]
    outcome = run_captured(ProcessRequest(
        (executable, *args), cwd=cwd, env=env, timeout_s=timeout, label=tool,
        max_capture_bytes=OUTPUT_LIMIT, stdin=stdin,
    ))
    if outcome.timed_out:
        raise GitError(f"{shown} timed out after {timeout:g}s")
    if outcome.spawn_error is not None:
        detail = outcome.spawn_error.removeprefix(f"could not run {executable}: ")
        raise GitError(f"could not run {shown} in {cwd}: {detail}")
    if outcome.truncated and head:
        return outcome.stdout[:OUTPUT_LIMIT]
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


def is_ancestor(old: str, new: str, cwd: Path) -> bool:
    """Whether commit ``old`` is in the history of ``new`` (both must exist)."""
    try:
        _git(["merge-base", "--is-ancestor", "--end-of-options", old, new], cwd)
    except GitError:  # exit 1: not an ancestor
        return False
    return True


def line_changes(old: str, new: str, cwd: Path) -> str:
    """``git diff -U0 old new``: which lines of each file changed between two commits."""
    args = ["diff", "-U0", "--no-renames", *_DIFF_OPTIONS, "--end-of-options", old, new]
    return _text(_git(args, cwd, timeout=DIFF_TIMEOUT))


def changed_paths(base: str, head: str, cwd: Path, *, only: Sequence[str]) -> list[str]:
    """Paths matching the ``only`` pathspecs (any case) whose content differs at the refs."""
    args = ["diff", "--name-only", "-z", "--no-relative", "--no-renames", "--no-ext-diff",
            "--end-of-options", base, head, "--", *_top_pathspecs("top,icase", only)]
    return [name for name in _text(_git(args, cwd, timeout=DIFF_TIMEOUT)).split("\0") if name]


def symbolic_ref(name: str, cwd: Path) -> str | None:
    """The short name of the ref the symbolic ref ``name`` points at (``HEAD``: the
    checked-out branch; ``refs/remotes/origin/HEAD``: ``origin/<default>``); None when
    it is not a symbolic ref (a detached HEAD)."""
    try:
        out = _git(["symbolic-ref", "--quiet", "--short", name], cwd, timeout=PROBE_TIMEOUT)
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


def diff(scope: DiffScope, cwd: Path, *, exclude: Sequence[str] = (),
         only: Sequence[str] = ()) -> str:
    """The patch for ``scope``, leaving out paths matching the ``exclude`` pathspecs.

    git calls a file binary when its attributes say so (``-diff``, ``binary``, a driver's
    ``binary = true``), which a branch can declare for its own code. So each file git
    printed as binary is diffed again as text, and that text replaces the ``Binary files
    … differ`` section unless it holds a NUL byte: binary by content, as git's own check
    without attributes, and then the section stays as git printed it.
    """
    args = ["diff", *_DIFF_OPTIONS, *scope.revision_args(), "--",
            *_top_pathspecs("top,literal", only), *_top_pathspecs("top,exclude", exclude)]
    patch = _text(_git(args, cwd, timeout=DIFF_TIMEOUT))
    if not _BINARY_SECTION.search(patch):
        return patch
    marked = _binary_paths(scope, cwd, exclude)
    if not marked:
        return patch
    try:
        as_text = _text(_text_diff(scope, cwd, marked))
    except GitError:  # over the output cap: file by file, so one huge file hides no other
        as_text = "".join(_text_diff_one(scope, cwd, path) for path in marked)
    shown = {header: section for header, section in _sections(as_text)
             if "\0" not in section}
    return "".join(shown.get(header, section) if _BINARY_SECTION.search(section) else section
                   for header, section in _sections(patch))


def _text_diff(scope: DiffScope, cwd: Path, paths: Sequence[str], *,
               head: bool = False) -> bytes:
    args = ["diff", *_DIFF_OPTIONS, "--text", *scope.revision_args(), "--",
            *_top_pathspecs("top,literal", paths)]
    return _run("git", args, cwd, timeout=DIFF_TIMEOUT, needed_for="to read the repository",
                head=head)


def _text_diff_one(scope: DiffScope, cwd: Path, path: str) -> str:
    """One file's text diff; over the cap, its header and :data:`TEXT_NOT_SHOWN` when the
    part git printed holds no NUL byte (a text too large to show), else nothing (binary)."""
    raw = _text_diff(scope, cwd, [path], head=True)
    if len(raw) < OUTPUT_LIMIT:
        return _text(raw)
    if b"\0" in raw:  # binary by content: its section stays as git printed it
        return ""
    return _text(raw[:raw.find(b"\n") + 1]) + TEXT_NOT_SHOWN + "\n"


_BINARY_SECTION = re.compile(r"^(Binary files .* differ|GIT binary patch)$", re.MULTILINE)


def _sections(patch: str) -> list[tuple[str, str]]:
    """``patch`` cut into per-file sections, each keyed by its ``diff --git`` line."""
    starts = [m.start() for m in re.finditer(r"^diff --git ", patch, re.MULTILINE)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts[1:], len(patch)]
    return [(patch[start:patch.find("\n", start) + 1 or end], patch[start:end])
            for start, end in zip(starts, bounds, strict=True)]


def _binary_paths(scope: DiffScope, cwd: Path, exclude: Sequence[str]) -> list[str]:
    """Both paths of every file ``git diff --numstat`` counts as binary (``-`` counts)."""
    args = ["diff", "--numstat", "-z", "--no-ext-diff", "--no-textconv", "--no-relative",
            *scope.revision_args(), "--", *_top_pathspecs("top,exclude", exclude)]
    fields = _text(_git(args, cwd, timeout=DIFF_TIMEOUT)).split("\0")
    paths: list[str] = []
    index = 0
    while index < len(fields):
        added, _, rest = fields[index].partition("\t")
        deleted, _, path = rest.partition("\t")
        index += 1
        names = [path] if path else fields[index:index + 2]  # a rename: two more fields
        index += 0 if path else 2
        if added == "-" and deleted == "-":
            paths += [name for name in names if name]
    return sorted(set(paths))


def diff_paths(scope: DiffScope, cwd: Path, *, only: Sequence[str]) -> list[str]:
    """Paths changed in ``scope`` that match any of the ``only`` pathspecs."""
    if not only:
        return []
    args = ["diff", "--name-only", "-z", "--no-relative", *scope.revision_args(), "--",
            *_top_pathspecs("top", only)]
    return [name for name in _text(_git(args, cwd, timeout=DIFF_TIMEOUT)).split("\0") if name]


def diff_stat(scope: DiffScope, cwd: Path, *, exclude: Sequence[str] = ()) -> str:
    """``git diff --stat`` for ``scope``, leaving out paths matching ``exclude``."""
    args = ["diff", "--stat", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
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
    return _text(_git(["show", "--no-textconv", f"{ref}:{clean}"], cwd))


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


def _pr_view(number: int, cwd: Path, fields: str) -> dict[str, Any]:
    """``gh pr view <number> --json <fields>`` as a JSON object."""
    out = _run("gh", ["pr", "view", str(number), "--json", fields], cwd,
               timeout=READ_TIMEOUT, needed_for="for --pr", label=f"gh pr view {number}",
               fix=_GH_FIX)
    try:
        view = json.loads(out)
    except ValueError:
        view = None
    if not isinstance(view, dict):
        raise GitError(f"gh pr view {number} printed something other than a JSON object")
    return view


def pr_base_branch(number: int, cwd: Path) -> str:
    """The name of the branch pull request ``number`` targets (``baseRefName``)."""
    name = _pr_view(number, cwd, "baseRefName").get("baseRefName")
    if not isinstance(name, str) or not name.strip():
        raise GitError(f"gh pr view {number} returned no base branch")
    return name.strip()


def pr_head(number: int, cwd: Path) -> tuple[str, str]:
    """The head commit of pull request ``number`` and its repository, ``owner/name``."""
    view = _pr_view(number, cwd, "headRefOid,url")
    head, url = view.get("headRefOid"), view.get("url")
    match = _PR_URL.fullmatch(url) if isinstance(url, str) else None
    if not isinstance(head, str) or not _SHA.fullmatch(head) or match is None:
        raise GitError(f"gh pr view {number} returned no head commit and pull request url")
    return head, match.group(1)


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

