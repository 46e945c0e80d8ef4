"""``~/.mmr/pulls/<owner>/<repo>/<n>.json``: the head and findings of the last complete
review of pull request ``n``. It lives in the user's own store, never in the pull request,
so no comment anyone can post steers the next review (the Action carries it in its cache).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from mmr.fs import atomic_write_json, ensure_private_dir, read_bytes_nofollow
from mmr.models import PullRequestInfo, ReconciledFinding

#: A ``--pr`` job's :class:`PullState`, so ``mmr results`` gives the same verdict again.
PULL_STATE = "pull.json"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
#: A ``git diff -U0`` hunk: old start, old count, new start, new count.
Hunk = tuple[int, int, int, int]
Stored = TypeVar("Stored", bound=BaseModel)


class PullRecord(BaseModel):
    """The last complete review of one pull request."""

    head: str
    job_id: str
    findings: list[ReconciledFinding]


class PullState(BaseModel):
    """A ``--pr`` job's start: the pull request, the last review's findings, and the lines
    changed since its head (None when that head is not in the repository)."""

    pull_request: PullRequestInfo
    previous: list[ReconciledFinding] = []
    changes: dict[str, list[Hunk]] | None = None


def record_path(home: Path, repository: str, number: int) -> Path | None:
    """Where pull request ``number`` of ``owner/name`` is recorded; None for a hostile name."""
    parts = repository.split("/")
    if len(parts) != 2 or not all(_NAME.fullmatch(p) for p in parts):
        return None
    return home / "pulls" / parts[0] / parts[1] / f"{number}.json"


def read_stored(model: type[Stored], path: Path) -> Stored | None:
    """The document at ``path``; None when absent or unreadable (the next review is full)."""
    try:
        return model.model_validate(json.loads(read_bytes_nofollow(path)))
    except (OSError, ValueError, ValidationError):
        return None


def write_stored(path: Path, document: BaseModel) -> None:
    ensure_private_dir(path.parent)
    atomic_write_json(path, document.model_dump(mode="json", exclude_none=True))
