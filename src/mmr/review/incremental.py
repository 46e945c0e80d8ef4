"""A ``--pr`` review that starts from the last complete review of the pull request:
when its head is an ancestor of the new head, the reviewers get only what changed since,
in the pull request's own files (a merge of the base branch brings nothing else in).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from mmr import git
from mmr.config.paths import mmr_home
from mmr.diff.inputs import DiffInput, count_diff_lines
from mmr.models import PullRequestInfo, ReconciledResults
from mmr.reconcile.carry import parse_changes
from mmr.reconcile.verdict import effective_floor
from mmr.secrets.credentials import redact_credentials
from mmr.store.pulls import (
    PULL_STATE,
    PullRecord,
    PullState,
    read_stored,
    record_path,
    write_stored,
)
from mmr.unidiff.sections import normalize_pattern, split_sections


def plan_pull_review(number: int, diff: DiffInput, cwd: Path, *, full: bool,
                     diff_exclude: Sequence[str]) -> tuple[PullState, DiffInput, str | None]:
    """The job's state of pull request ``number`` (whose whole diff is ``diff``), the diff
    to review, and the prompt's ``## Incremental Review`` section (None: a full review)."""
    head, repository = git.pr_head(number, cwd)
    path = record_path(mmr_home(), repository, number)
    record = read_stored(PullRecord, path) if path is not None else None
    old = record.head if record is not None else None
    changes = None
    if old is not None and git.ref_exists(old, cwd) and git.ref_exists(head, cwd):
        changes = parse_changes(git.line_changes(old, head, cwd))
    section, reviewed = None, diff
    if old is None:
        why = "first review of this pull request"
    elif full:
        why = "--full"
    elif changes is None:
        why = (f"the last reviewed head {old[:12]} or the new head is not in this clone; "
               "fetch the full history for an incremental review")
    elif not git.is_ancestor(old, head, cwd):
        why = (f"the last reviewed head {old[:12]} is not an ancestor of {head[:12]} "
               "(force-push or rebase)")
    else:
        files = sorted({p for s in split_sections(diff.text)[1] for p in s.paths})
        patterns = [p for p in map(normalize_pattern, diff_exclude) if p]
        text = git.diff(git.DiffScope(base=old, head=head), cwd, exclude=patterns,
                        only=files) if files else ""
        why = f"nothing changed in the pull request's files since {old[:12]}"
        if text.strip():
            why = f"the last reviewed head {old[:12]} is an ancestor of {head[:12]}"
            reviewed = replace(diff, text=text, line_count=count_diff_lines(text))
            # Outside the diff's fence: each name escaped (a newline in one could start a
            # heading) and redacted as the diff is.
            listed = "\n".join(f"- {json.dumps(n, ensure_ascii=False)[1:-1]}" for n in files)
            section = redact_credentials(
                f"## Incremental Review\nThis pull request was reviewed at commit {old}. The "
                f"diff below is only what changed since then, in the pull request's files; "
                f"the rest of the pull request was reviewed at {old}. Its files:\n{listed}")[0]
    info = PullRequestInfo(number=number, repository=repository, head=head, since=old,
                           review="incremental" if section else "full", why=why)
    return PullState(pull_request=info, previous=record.findings if record else [],
                     changes=changes), reviewed, section


def record_pull_review(job_root: Path, results: ReconciledResults,
                       min_completed_channels: int | None, warn: Callable[[str], None]) -> None:
    """Make this review the next one's start, when it was a complete ``--pr`` review (a
    degraded run must not hide what it did not review)."""
    state = read_stored(PullState, job_root / PULL_STATE)
    if (state is None or results.job_id is None
            or results.metadata.channels_completed < effective_floor(min_completed_channels)):
        return
    info = state.pull_request
    path = record_path(mmr_home(), info.repository, info.number)
    try:
        if path is not None:
            write_stored(path, PullRecord(head=info.head, job_id=results.job_id,
                                          findings=results.reconciled_findings))
    except OSError as exc:  # the verdict stands; the next review is a full one
        warn(f"[mmr] warning: the pull request's review was not recorded: {exc}")
