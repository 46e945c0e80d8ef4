"""``mmr jobs list | prune``."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

import pytest

from mmr.config.paths import jobs_dir, user_config_path
from mmr.store.jobs import JobStore
from tests.integration.cli_lifecycle.conftest import RunMmr, new_job, set_statuses
from tests.integration.git_repo_builder import GitRepo

NOW = datetime.now(UTC)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def test_list_is_empty_without_jobs(run_mmr: RunMmr) -> None:
    result = run_mmr("jobs", "list")

    assert (result.code, result.out) == (0, "[]\n")


def test_list_newest_first_with_derived_status(store: JobStore, run_mmr: RunMmr) -> None:
    middle = new_job(store, ("claude",), created_at=days_ago(2))
    newest = new_job(store, ("claude", "codex", "grok"), created_at=days_ago(1))
    oldest = new_job(store, ("claude", "codex"), created_at=days_ago(3))
    set_statuses(store, middle, claude="completed")
    set_statuses(store, newest, claude="running")
    (jobs_dir() / "mmr-broken").mkdir()  # no job.json: skipped silently
    (jobs_dir() / "not-a-job").mkdir()

    result = run_mmr("jobs", "list")

    assert result.code == 0
    listed = result.json()
    assert [job["job_id"] for job in listed] == [newest, middle, oldest]
    assert listed[0] == {"job_id": newest, "status": "running",
                         "created_at": store.load(newest).created_at, "channels": 3}
    assert [job["status"] for job in listed] == ["running", "completed", "dispatched"]
    assert [job["channels"] for job in listed] == [3, 1, 2]


def test_prune_removes_jobs_older_than_the_default_seven_days(
    store: JobStore, run_mmr: RunMmr
) -> None:
    old = new_job(store, created_at=days_ago(8))
    recent = new_job(store, created_at=days_ago(6))

    result = run_mmr("jobs", "prune")

    assert result.code == 0
    assert result.out == '{"pruned":1,"retention_days":7,"cache_pruned":0}\n'
    assert not store.paths(old).root.exists()
    assert store.paths(recent).root.exists()


def test_prune_reads_the_project_root_config(
    store: JobStore, run_mmr: RunMmr, project: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The git top-level's ``.mmr.yaml`` applies even when run from a subdirectory."""
    old = new_job(store, created_at=days_ago(20))
    project.write({".mmr.yaml": "defaults:\n  job_retention_days: 30\n"})
    (project.root / "src").mkdir()
    monkeypatch.chdir(project.root / "src")

    result = run_mmr("jobs", "prune")

    assert result.out == '{"pruned":0,"retention_days":30,"cache_pruned":0}\n'
    assert store.paths(old).root.exists()


def test_prune_reads_the_user_config(store: JobStore, run_mmr: RunMmr) -> None:
    old = new_job(store, created_at=days_ago(1))
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text("defaults:\n  job_retention_days: 0.5\n")

    result = run_mmr("jobs", "prune")

    assert result.out == '{"pruned":1,"retention_days":0.5,"cache_pruned":0}\n'
    assert not store.paths(old).root.exists()


def test_prune_removes_old_half_written_job_dirs(store: JobStore, run_mmr: RunMmr) -> None:
    stale = jobs_dir() / "mmr-000000000000"
    stale.mkdir()
    (stale / "job.json").write_text("{trunc")
    fresh = jobs_dir() / "mmr-111111111111"
    fresh.mkdir()
    ten_days = time.time() - 10 * 86_400
    os.utime(stale, (ten_days, ten_days))

    result = run_mmr("jobs", "prune")

    assert result.out == '{"pruned":1,"retention_days":7,"cache_pruned":0}\n'
    assert not stale.exists()
    assert fresh.exists()


def test_prune_rejects_a_negative_retention(store: JobStore, run_mmr: RunMmr,
                                            project: GitRepo) -> None:
    job = new_job(store, created_at=days_ago(1))
    project.write({".mmr.yaml": "defaults:\n  job_retention_days: -1\n"})

    result = run_mmr("jobs", "prune")

    assert result.code == 1
    assert "job_retention_days" in result.err
    assert store.paths(job).root.exists()


def test_unknown_or_missing_action_is_a_usage_error(run_mmr: RunMmr) -> None:
    missing = run_mmr("jobs")
    unknown = run_mmr("jobs", "purge")
    extra = run_mmr("jobs", "list", "extra")

    assert (missing.code, unknown.code, extra.code) == (1, 1, 1)
    assert "mmr: error: unknown command 'purge'" in unknown.err
    assert "mmr: error: unexpected argument 'extra'" in extra.err
