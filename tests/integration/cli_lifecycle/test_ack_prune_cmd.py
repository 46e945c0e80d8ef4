"""``mmr ack prune``: the reference's no-op, made real (Decisions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mmr.acks.record import AckScope, new_ack_record
from mmr.acks.seen import record_sightings
from mmr.acks.store import AckStore
from mmr.config.paths import find_project_root, mmr_home
from mmr.store.jobs import JobStore
from tests.integration.cli_lifecycle.conftest import (
    RunMmr,
    new_job,
    reconciled_finding,
    write_results,
)
from tests.integration.git_repo_builder import GitRepo

NOW = datetime.now(UTC)
LONG_AGO = NOW - timedelta(days=100)

STALE = reconciled_finding("src/a.py:1", "Stale finding nobody reports any more")
SEEN_IN_JOB = reconciled_finding("src/b.py:2", "Finding a recent job still reports")
SEEN_BY_RUN = reconciled_finding("src/c.py:3", "Finding a recent results run matched")
FRESH = reconciled_finding("src/d.py:4", "Finding acknowledged just now")


def ack(finding: dict[str, Any], scope: AckScope, created: datetime) -> Path:
    store = AckStore(user_root=mmr_home(), project_root=find_project_root())
    record = new_ack_record(finding["finding_key"], finding["location"],
                            finding["description_shingle"], now=created)
    return store.add(record, scope)


@pytest.fixture
def acks(store: JobStore) -> dict[str, Path]:
    """Four acks: one stale in each scope, one kept alive by a job, one by a sighting."""
    paths = {
        "stale_user": ack(STALE, "user", LONG_AGO),
        "stale_project": ack(STALE, "project", LONG_AGO),
        "seen_in_job": ack(SEEN_IN_JOB, "user", LONG_AGO),
        "seen_by_run": ack(SEEN_BY_RUN, "project", LONG_AGO),
        "fresh": ack(FRESH, "project", NOW),
    }
    recent_job = new_job(store, created_at=NOW - timedelta(days=3))
    # Reported at a drifted line: the ack still matches by key.
    write_results(store, recent_job, {**SEEN_IN_JOB, "location": "src/b.py:40"})
    record_sightings(mmr_home(), [SEEN_BY_RUN["finding_key"]], NOW - timedelta(days=5))
    return paths


def removed_keys(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((r["scope"], r["finding_key"]) for r in report["removed"])


def test_dry_run_lists_without_removing(acks: dict[str, Path], run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "prune", "--dry-run")

    assert result.code == 0
    report = result.json()
    assert report["pruned"] == 2
    assert report["scope"] == "all"
    assert report["dry_run"] is True
    assert report["retention_days"] == 90
    assert report["kept"] == 3
    assert report["skipped"] == []
    assert removed_keys(report) == [("project", STALE["finding_key"]),
                                    ("user", STALE["finding_key"])]
    entry = next(r for r in report["removed"] if r["scope"] == "user")
    assert entry["path"] == str(acks["stale_user"])
    assert entry["last_seen"] == new_ack_record(STALE["finding_key"], "x", [],
                                                now=LONG_AGO).created_at
    assert all(path.exists() for path in acks.values())


def test_prune_removes_only_unseen_acks(acks: dict[str, Path], run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "prune")

    assert result.code == 0
    report = result.json()
    assert (report["pruned"], report["dry_run"], report["kept"]) == (2, False, 3)
    assert not acks["stale_user"].exists()
    assert not acks["stale_project"].exists()
    assert all(acks[name].exists() for name in ("seen_in_job", "seen_by_run", "fresh"))
    assert run_mmr("ack", "prune").json()["pruned"] == 0


def test_scope_limits_what_is_pruned(acks: dict[str, Path], run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "prune", "--scope", "user")

    report = result.json()
    assert report["scope"] == "user"
    assert removed_keys(report) == [("user", STALE["finding_key"])]
    assert report["kept"] == 1
    assert acks["stale_project"].exists()


def test_project_config_sets_the_retention(acks: dict[str, Path], run_mmr: RunMmr,
                                           project: GitRepo) -> None:
    project.write({".mmr.yaml": "defaults:\n  ack_retention_days: 200\n"})

    report = run_mmr("ack", "prune").json()

    assert (report["pruned"], report["retention_days"]) == (0, 200)


def test_older_than_overrides_the_config(acks: dict[str, Path], run_mmr: RunMmr,
                                         project: GitRepo) -> None:
    project.write({".mmr.yaml": "defaults:\n  ack_retention_days: 200\n"})

    report = run_mmr("ack", "prune", "--older-than", "4", "--dry-run").json()

    assert report["retention_days"] == 4
    # Seen 3 days ago (job) and just now (fresh) stay; seen 5 days ago goes.
    assert removed_keys(report) == sorted([("project", STALE["finding_key"]),
                                           ("user", STALE["finding_key"]),
                                           ("project", SEEN_BY_RUN["finding_key"])])


@pytest.mark.parametrize("value", ["-1", "abc", "nan"])
def test_bad_older_than_is_a_usage_error(acks: dict[str, Path], run_mmr: RunMmr,
                                         value: str) -> None:
    result = run_mmr("ack", "prune", "--older-than", value)

    assert result.code == 1
    assert result.out == ""
    assert all(path.exists() for path in acks.values())


def test_invalid_files_and_symlinks_are_skipped_not_deleted(
    run_mmr: RunMmr, tmp_path: Path
) -> None:
    old = ack(STALE, "user", LONG_AGO)
    acks_dir = old.parent
    broken = acks_dir / f"{'b' * 40}.json"
    broken.write_text("{not json")
    target = tmp_path / "target.json"
    target.write_text("{}")
    link = acks_dir / f"{'c' * 40}.json"
    link.symlink_to(target)

    report = run_mmr("ack", "prune").json()

    assert report["pruned"] == 1
    assert sorted((s["path"], s["reason"]) for s in report["skipped"]) == [
        (str(broken), "not valid JSON"), (str(link), "symlink")]
    assert broken.exists() and link.is_symlink() and target.exists()
    assert not old.exists()


def test_prune_without_acks(run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "prune")

    assert result.code == 0
    assert result.json() == {"pruned": 0, "scope": "all", "dry_run": False,
                             "retention_days": 90, "removed": [], "kept": 0, "skipped": []}
