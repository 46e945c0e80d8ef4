"""What the last review of each pull request found, kept in the user's own store.

``~/.mmr/pulls/<owner>/<repo>/<n>.json`` holds the head the last complete review of
pull request ``n`` saw and its findings. It lives beside the jobs, never in the pull
request (a comment anyone can post cannot steer the next review); the GitHub Action
carries it from run to run with its cache. A job of a ``--pr`` review keeps what it
started from in its own ``pull.json``, so ``mmr results`` gives the same verdict again.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from mmr.fs import atomic_write_json, ensure_private_dir, read_bytes_nofollow
from mmr.models import PullRequestInfo, ReconciledFinding

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
#: A diff hunk as ``git diff -U0`` gives it: old start, old count, new start, new count.
Hunk = tuple[int, int, int, int]


class PullRecord(BaseModel):
    """The last complete review of one pull request."""

    model_config = ConfigDict(extra="ignore")

    number: int
    repository: str
    head: str
    job_id: str
    findings: list[dict[str, Any]]
    time: str


class PullState(BaseModel):
    """What a ``--pr`` job started from: the pull request, the last review's findings,
    and the lines changed since its head (None when that head is not in the repository)."""

    model_config = ConfigDict(extra="ignore")

    pull_request: PullRequestInfo
    previous: list[dict[str, Any]] = []
    changes: dict[str, list[Hunk]] | None = None


def record_path(home: Path, repository: str, number: int) -> Path | None:
    """Where pull request ``number`` of ``owner/name`` is recorded; None for a hostile name."""
    parts = repository.split("/")
    if len(parts) != 2 or not all(_NAME.fullmatch(p) for p in parts):
        return None
    return home / "pulls" / parts[0] / parts[1] / f"{number}.json"


def read_record(path: Path) -> PullRecord | None:
    """The record at ``path``; None when absent or unreadable (the next review is full)."""
    try:
        return PullRecord.model_validate(json.loads(read_bytes_nofollow(path)))
    except (OSError, ValueError, ValidationError):
        return None


def write_record(path: Path, info: PullRequestInfo, job_id: str,
                 findings: list[ReconciledFinding]) -> None:
    ensure_private_dir(path.parent)
    record = PullRecord(number=info.number, repository=info.repository, head=info.head,
                        job_id=job_id, findings=dump_findings(findings),
                        time=datetime.now(UTC).isoformat())
    atomic_write_json(path, record.model_dump(mode="json"))


def dump_findings(findings: list[ReconciledFinding]) -> list[dict[str, Any]]:
    """Findings as stored: every field, the generated id included, the acks left out
    (today's acks are applied again when the finding is carried)."""
    return [{**f.model_dump(mode="json", exclude_none=True,
                            exclude={"acknowledged", "ack_match", "ack_reason", "state"}),
             "generated_id": f.generated_id} for f in findings]


def load_findings(stored: list[dict[str, Any]]) -> list[ReconciledFinding]:
    """The stored findings that still read as findings."""
    loaded = []
    for data in stored:
        try:
            loaded.append(ReconciledFinding.model_validate(data))
        except ValidationError:
            continue
    return loaded


def write_job_state(job_root: Path, state: PullState) -> None:
    atomic_write_json(job_root / "pull.json", state.model_dump(mode="json"), durable=False)


def read_job_state(job_root: Path) -> PullState | None:
    """The job's ``pull.json``; None for a job that was not a ``--pr`` review."""
    try:
        return PullState.model_validate(json.loads(read_bytes_nofollow(job_root / "pull.json")))
    except (OSError, ValueError, ValidationError):
        return None
