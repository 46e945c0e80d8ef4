"""A ``--pr`` review that starts from the last review of the pull request.

When the head the last complete review saw is an ancestor of the new head, the reviewers
get only what changed since then in the pull request's own files (a merge of the base
branch brings nothing else in), and the prompt says the rest was reviewed at that head.
The first review, ``--full``, a force-push or rebase (the old head is not an ancestor),
and an old head this clone does not have are full reviews; the report says which and why.
The record is written only by a complete review, so a degraded run never becomes the base.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from mmr import git
from mmr.config.paths import mmr_home
from mmr.diff.inputs import DiffInput, count_diff_lines
from mmr.models import PullRequestInfo, ReconciledResults
from mmr.reconcile.carry import parse_changes
from mmr.reconcile.verdict import effective_floor
from mmr.secrets.credentials import redact_credentials
from mmr.store.pulls import (
    Hunk,
    PullState,
    read_job_state,
    read_record,
    record_path,
    write_record,
)
from mmr.unidiff.sections import normalize_pattern, split_sections


@dataclass(frozen=True)
class PullPlan:
    """The pull request's state for the job, the diff to review, and the prompt's section."""

    state: PullState
    diff: DiffInput
    section: str | None = None


def plan_pull_review(number: int, diff: DiffInput, cwd: Path, *, full: bool,
                     diff_exclude: tuple[str, ...] | list[str]) -> PullPlan:
    """Incremental or full review of pull request ``number`` whose whole diff is ``diff``."""
    head, repository = git.pr_head(number, cwd)
    path = record_path(mmr_home(), repository, number)
    record = read_record(path) if path is not None else None

    def plan(why: str, section: str | None = None, changes: dict[str, list[Hunk]] | None = None,
             reviewed: DiffInput = diff) -> PullPlan:
        info = PullRequestInfo(number=number, repository=repository, head=head,
                               review="incremental" if section else "full",
                               since=record.head if record else None, why=why)
        return PullPlan(PullState(pull_request=info, previous=record.findings if record else [],
                                  changes=changes), reviewed, section)

    if record is None:
        return plan("first review of this pull request")
    old = record.head
    if not (git.ref_exists(old, cwd) and git.ref_exists(head, cwd)):
        return plan(f"the last reviewed head {old[:12]} or the new head is not in "
                    "this clone; fetch the full history for an incremental review")
    changes = parse_changes(git.line_changes(old, head, cwd))
    if full:
        return plan("--full", changes=changes)
    if not git.is_ancestor(old, head, cwd):
        return plan(f"the last reviewed head {old[:12]} is not an ancestor of "
                    f"{head[:12]} (force-push or rebase)", changes=changes)
    files = sorted({p for section in split_sections(diff.text)[1] for p in section.paths})
    patterns = [p for p in map(normalize_pattern, diff_exclude) if p]
    text = git.diff(git.DiffScope(base=old, head=head), cwd, exclude=patterns, only=files)
    if not text.strip():
        return plan(f"nothing changed in the pull request's files since {old[:12]}",
                    changes=changes)
    # Outside the diff's fence: a name is escaped (a newline in it could start a heading)
    # and redacted like the diff.
    listed = "\n".join(f"- {json.dumps(name, ensure_ascii=False)[1:-1]}" for name in files)
    section, _ = redact_credentials(
        f"## Incremental Review\nThis pull request was reviewed at commit {old}. The diff "
        f"below is only what changed since then, in the pull request's files; the rest of "
        f"the pull request was reviewed at {old}. Its files:\n{listed}")
    return plan(f"the last reviewed head {old[:12]} is an ancestor of "
                f"{head[:12]}", section, changes,
                replace(diff, text=text, line_count=count_diff_lines(text)))


def record_pull_review(job_root: Path, results: ReconciledResults,
                       min_completed_channels: int | None) -> None:
    """Make this review the base of the next one, when it was a complete ``--pr`` review."""
    state = read_job_state(job_root)
    if (state is None or results.job_id is None
            or results.metadata.channels_completed < effective_floor(min_completed_channels)):
        return
    info = state.pull_request
    path = record_path(mmr_home(), info.repository, info.number)
    if path is not None:
        write_record(path, info, results.job_id, results.reconciled_findings)
