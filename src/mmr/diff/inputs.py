"""Resolve the diff under review from the input flags.

Priority, first match wins: ``--diff FILE|-``, ``--pr N`` (``gh pr diff``),
``--staged``, ``--base REF [--head REF]`` (three-dot), else the unstaged working
tree. Run-wide ``diff_exclude`` patterns become ``:(exclude)`` pathspecs for diffs
mmr builds with git, and drop whole file sections from diff text it was handed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from mmr import git
from mmr.diff.proposed import ProposedChanges, detect_proposed_changes
from mmr.errors import DiffError, GitError
from mmr.unidiff.sections import exclude_sections, normalize_pattern, split_sections

DiffSource = Literal["diff", "pr", "staged", "base", "working"]

EMPTY_DIFF_MESSAGE = "No diff content found. Provide --diff, --pr, --staged, or --base/--head."
NOT_A_DIFF_MESSAGE = ("--diff input is not a unified diff (no file header such as "
                      "`diff --git` or `--- a/…`); pass the output of `git diff`")
BINARY_MESSAGE = "--diff input is binary, not a unified diff; pass the output of `git diff`"


class NothingUncommittedError(DiffError):
    """The working tree (no input flag) has no changes; the caller may know the next step."""


@dataclass(frozen=True)
class DiffRequest:
    """The input flags of ``mmr review`` (several may be given; priority decides)."""

    diff: str | None = None
    pr: int | None = None
    staged: bool = False
    base: str | None = None
    head: str | None = None


@dataclass(frozen=True)
class DiffInput:
    """The diff to review, after the run-wide ``diff_exclude``.

    ``proposed`` is computed from the diff as received (excluded files included), so
    the ratification gate cannot be sidestepped by a pattern.
    """

    text: str
    source: DiffSource
    excluded_files: tuple[str, ...]
    line_count: int
    proposed: ProposedChanges
    pr_number: int | None = None

    @property
    def is_empty(self) -> bool:
        return not self.text.strip()

    @property
    def exclusion_notice(self) -> str | None:
        """The stderr line announcing excluded files, when there were any."""
        if not self.excluded_files:
            return None
        return f"[mmr] excluded {len(self.excluded_files)} file(s) from the diff by diff_exclude"


def count_diff_lines(text: str) -> int:
    """Lines as ``wc -l`` counts them on a diff ending in a newline.

    Unlike ``str.splitlines`` a form feed or a lone carriage return inside a line does
    not start a new line.
    """
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def resolve_diff(request: DiffRequest, cwd: Path, *, diff_exclude: Sequence[str] = (),
                 stdin: BinaryIO | None = None) -> DiffInput:
    """Read the diff the flags select; DiffError when it is empty, GitError when git fails."""
    patterns = [p for p in (normalize_pattern(p) for p in diff_exclude) if p]
    if request.diff is not None:
        raw = _read_diff_file(request.diff, cwd, stdin)
        if raw.strip() and not split_sections(raw)[1]:
            # Refused here, before any reviewer is paid to read it.
            raise DiffError(NOT_A_DIFF_MESSAGE)
        return _from_text(raw, "diff", patterns)
    if request.pr is not None:
        return _from_text(git.pr_diff(request.pr, cwd), "pr", patterns, pr_number=request.pr)
    git.ensure_work_tree(cwd)
    if request.staged:
        return _from_git(git.DiffScope(staged=True), "staged", cwd, patterns)
    if request.base:
        head = request.head or "HEAD"
        _require_ref(request.base, "--base", cwd)
        _require_ref(head, "--head", cwd)
        return _from_git(git.DiffScope(base=request.base, head=head), "base", cwd, patterns)
    return _from_git(git.DiffScope(), "working", cwd, patterns)


def check_reviewable(diff: DiffInput, max_diff_lines: int | None) -> None:
    """The run's checks after the gate: something is left to review, within the budget."""
    if diff.is_empty:
        raise DiffError(EMPTY_DIFF_MESSAGE)
    if max_diff_lines is not None and diff.line_count > max_diff_lines:
        raise DiffError(f"diff too large: {diff.line_count} lines > {max_diff_lines}; "
                        "raise --max-diff-lines or defaults.max_diff_lines")


def _read_diff_file(name: str, cwd: Path, stdin: BinaryIO | None) -> str:
    if name == "-":
        if stdin is None and sys.stdin is None:
            raise DiffError("--diff - needs a diff on standard input, but there is none")
        data = (stdin if stdin is not None else sys.stdin.buffer).read()
    else:
        path = cwd / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise DiffError(f"--diff file not found: {name}") from None
        except IsADirectoryError:
            raise DiffError(f"--diff path is a directory, not a diff file: {name}") from None
        except OSError as exc:
            raise DiffError(f"cannot read --diff file {name}: {exc.strerror or exc}") from None
        except ValueError:  # a NUL in the name: no file can have it
            raise DiffError(f"--diff file not found: {name!r}") from None
    if b"\0" in data:  # git prints "Binary files … differ" for binary files, never NULs
        raise DiffError(BINARY_MESSAGE)
    return data.decode("utf-8", errors="replace")


def _from_text(raw: str, source: DiffSource, patterns: Sequence[str],
               pr_number: int | None = None) -> DiffInput:
    if not raw.strip():
        raise DiffError(EMPTY_DIFF_MESSAGE)
    text, excluded = exclude_sections(raw, patterns)
    return DiffInput(text=text, source=source, excluded_files=tuple(excluded),
                     line_count=count_diff_lines(text), proposed=detect_proposed_changes(raw),
                     pr_number=pr_number)


def _from_git(scope: git.DiffScope, source: DiffSource, cwd: Path,
              patterns: Sequence[str]) -> DiffInput:
    text = git.diff(scope, cwd, exclude=patterns)
    excluded = git.diff_paths(scope, cwd, only=patterns)
    if not text.strip() and not excluded:
        raise (NothingUncommittedError if source == "working" else DiffError)(EMPTY_DIFF_MESSAGE)
    return DiffInput(text=text, source=source, excluded_files=tuple(excluded),
                     line_count=count_diff_lines(text),
                     proposed=detect_proposed_changes(text, extra_paths=excluded))


def _require_ref(ref: str, flag: str, cwd: Path) -> None:
    if ref.startswith("-"):
        raise GitError(f"invalid git ref {ref!r} for {flag}: a ref cannot start with '-'")
    if not git.ref_exists(ref, cwd):
        raise GitError(f"unknown git ref {ref!r} for {flag}; check the name, or fetch it first")
