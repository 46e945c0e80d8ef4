"""Harness for the job-lifecycle commands: real job and session stores under ``MMR_HOME``.

Commands run through the console entry point in-process (``tests/cli_runner.py``), so the
parser, the error boundary, exit codes and output writing are the real ones. Every test
runs inside a fresh git repository (its project root), never in the checkout itself.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import jobs_dir
from mmr.reconcile.stable_id import identify
from mmr.store.jobs import JobStore
from tests.cli_runner import CliResult as Result
from tests.cli_runner import RunCli, RunMmr
from tests.integration.git_repo_builder import GitRepo

__all__ = ["RawFinding", "Result", "RunMmr", "new_job", "project", "reconciled_finding",
           "run_mmr", "set_statuses", "store", "write_results"]


@pytest.fixture
def run_mmr(run_cli: RunCli) -> RunMmr:
    """``mmr <args>`` in the current directory; returns exit code, stdout and stderr."""
    from mmr.cli.main import main

    return functools.partial(run_cli, main)


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A git repository with one commit; the current directory for the test."""
    repo = GitRepo.create(tmp_path / "project", {"README.md": "hello\n"})
    monkeypatch.chdir(repo.root)
    return repo


@pytest.fixture
def store() -> JobStore:
    return JobStore(jobs_dir())


def new_job(store: JobStore, channels: Iterable[str] = ("claude", "codex"),
            created_at: datetime | None = None) -> str:
    """A review job with every channel ``dispatched``; its id."""
    record = store.create_job(list(channels), fix_threshold="P2", format="json",
                              min_completed_channels=2, created_at=created_at)
    return record.job_id


def set_statuses(store: JobStore, job_id: str, **statuses: str) -> None:
    """Give each named channel a status, with timestamps as the dispatcher writes them."""
    for channel, status in statuses.items():
        partial: dict[str, Any] = {"status": status}
        if status != "dispatched":
            partial["started_at"] = "2026-01-01T00:00:00.000Z"
        if status not in ("dispatched", "running"):
            partial["completed_at"] = "2026-01-01T00:00:12.300Z"
        store.update_channel(job_id, channel, **partial)


@dataclass(frozen=True)
class RawFinding:
    location: str
    description: str
    suggestion: str
    category: str | None = None


def reconciled_finding(location: str, description: str,
                       suggestion: str = "Check the bound") -> dict[str, Any]:
    """A reconciled finding as ``results.json`` holds it, with its real key and shingle."""
    identity = identify(RawFinding(location, description, suggestion))
    return {
        "id": "F1", "severity": "P1", "location": identity.location,
        "description": description, "suggestion": suggestion,
        "finding_key": identity.finding_key,
        "description_shingle": list(identity.description_shingle),
        "sources": ["claude"], "agreement": "unique", "confidence": "medium",
    }


def write_results(store: JobStore, job_id: str, *findings: dict[str, Any]) -> None:
    """Write the job's ``results.json`` as ``mmr results`` would (the fields acks read)."""
    document = {"verdict": "blocked", "fix_threshold": "P2",
                "reconciled_findings": list(findings), "approved": False}
    store.paths(job_id).results.write_text(json.dumps(document, indent=2))
