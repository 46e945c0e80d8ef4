"""`mmr ack prune` core: retention, last seen, dry run."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mmr.acks.apply import AckPolicy, apply_acks
from mmr.acks.jobs import iter_job_findings
from mmr.acks.prune import prune_acks
from mmr.acks.seen import LAST_SEEN_NAME, read_last_seen, record_sightings
from mmr.acks.store import AckStore
from mmr.config.schema import Defaults
from mmr.errors import UsageError
from mmr.models import ReconciledFinding
from mmr.store.jobs import JobStore

from .ack_helpers import ack_for, reconciled

NOW = datetime(2026, 6, 1, tzinfo=UTC)
LONG_AGO = NOW - timedelta(days=200)
RECENT = NOW - timedelta(days=10)


@pytest.fixture
def store(tmp_path: Path) -> AckStore:
    return AckStore(user_root=tmp_path / "mmr", project_root=tmp_path / "repo")


def _ack(store: AckStore, description: str, *, created: datetime, scope: str = "user",
         location: str = "a.py:1") -> ReconciledFinding:
    finding = reconciled(location, description)
    store.add(ack_for(finding, now=created), scope)  # type: ignore[arg-type]
    return finding


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def test_old_unseen_acks_are_removed_and_recent_ones_kept(store: AckStore) -> None:
    old = _ack(store, "Old finding nobody reports any more", created=LONG_AGO)
    new = _ack(store, "New finding acknowledged last week", created=RECENT)
    report = prune_acks(store, ["project", "user"], retention_days=90, now=NOW, dry_run=False)
    data = report.to_json_dict()
    assert data["pruned"] == 1 and data["kept"] == 1 and data["skipped"] == []
    assert (data["scope"], data["dry_run"], data["retention_days"]) == ("all", False, 90)
    [removed] = data["removed"]
    assert removed == {"finding_key": old.finding_key, "scope": "user",
                       "path": str(store.user_root / "acks" / f"{old.finding_key}.json"),
                       "last_seen": "2025-11-13T00:00:00.000Z"}
    assert _files(store.user_root / "acks") == [f"{new.finding_key}.json"]
    assert [r.finding_key for r in store.list_all()] == [new.finding_key]


def test_dry_run_lists_without_removing(store: AckStore) -> None:
    old = _ack(store, "Old finding nobody reports any more", created=LONG_AGO, scope="project")
    before = _files(store.project_root / ".mmr" / "acks")  # type: ignore[operator]
    report = prune_acks(store, ["project"], retention_days=90, now=NOW, dry_run=True)
    data = report.to_json_dict()
    assert (data["pruned"], data["dry_run"], data["scope"]) == (1, True, "project")
    assert data["removed"][0]["finding_key"] == old.finding_key
    assert _files(store.project_root / ".mmr" / "acks") == before  # type: ignore[operator]


def test_an_ack_a_results_run_applied_yesterday_is_kept(store: AckStore) -> None:
    old = _ack(store, "Old finding that still shows up", created=LONG_AGO)
    apply_acks([old], store, AckPolicy("none"), now=NOW - timedelta(days=1))
    report = prune_acks(store, ["user"], retention_days=90, now=NOW, dry_run=False)
    assert (report.to_json_dict()["pruned"], report.kept) == (0, 1)
    assert _files(store.user_root / "acks") == [f"{old.finding_key}.json"]


def test_the_retention_boundary_and_override(store: AckStore) -> None:
    _ack(store, "Exactly ninety days since it was seen", created=NOW - timedelta(days=90))
    assert prune_acks(store, ["user"], retention_days=90, now=NOW, dry_run=True).kept == 1
    # --older-than 0 removes anything not seen at this very instant.
    assert len(prune_acks(store, ["user"], retention_days=0, now=NOW, dry_run=True).removed) == 1
    assert len(prune_acks(store, ["user"], retention_days=89.5, now=NOW,
                          dry_run=True).removed) == 1
    assert Defaults().ack_retention_days == 90  # the retention `mmr ack prune` applies


def test_jobs_still_in_the_store_count_as_sightings(store: AckStore, tmp_path: Path) -> None:
    exact = _ack(store, "Reported again in a stored job", created=LONG_AGO)
    fuzzy = _ack(store, TIMING := "Token compared with == allows a timing attack",
                 created=LONG_AGO, location="src/auth.ts:1")
    unseen = _ack(store, "Never reported again anywhere at all", created=LONG_AGO)
    jobs = JobStore(tmp_path / "mmr" / "jobs")
    job = jobs.create_job(["codex"], fix_threshold="P2", format="json", min_completed_channels=1,
                          created_at=NOW - timedelta(days=3))
    reworded = reconciled("src/auth.ts:7", TIMING + "s", "other fix")
    jobs.write_results(job.job_id, {"reconciled_findings": [exact.to_json_dict(),
                                                            reworded.to_json_dict()]})
    report = prune_acks(store, ["user"], retention_days=90, now=NOW, dry_run=False,
                        jobs=iter_job_findings(jobs.root))
    assert [r.finding_key for r in report.removed] == [unseen.finding_key]
    assert report.kept == 2
    kept = {p.name for p in (store.user_root / "acks").iterdir()}
    assert kept == {f"{exact.finding_key}.json", f"{fuzzy.finding_key}.json"}


def test_invalid_files_and_symlinks_are_listed_never_deleted(store: AckStore,
                                                             tmp_path: Path) -> None:
    acks = store.user_root / "acks"
    acks.mkdir(parents=True)
    broken = acks / f"{'a' * 40}.json"
    broken.write_text("{not json")
    target = tmp_path / "target.json"
    target.write_text(json.dumps({"finding_key": "b" * 40, "normalized_location": "x",
                                  "description_shingle": [], "created_at": "2000-01-01"}))
    link = acks / f"{'b' * 40}.json"
    link.symlink_to(target)
    report = prune_acks(store, ["user"], retention_days=0, now=NOW, dry_run=False)
    assert report.to_json_dict()["skipped"] == [
        {"path": str(broken), "reason": "not valid JSON"},
        {"path": str(link), "reason": "symlink"},
    ]
    assert report.removed == [] and broken.exists() and link.is_symlink() and target.exists()


def test_an_ack_with_an_unreadable_date_is_kept(store: AckStore) -> None:
    store.add({"finding_key": "c" * 40, "normalized_location": "x",
               "description_shingle": [], "created_at": "some day"}, "user")
    report = prune_acks(store, ["user"], retention_days=0, now=NOW, dry_run=False)
    assert (report.kept, report.removed) == (1, [])


def test_without_a_project_root_all_means_user(tmp_path: Path) -> None:
    store = AckStore(user_root=tmp_path / "mmr")
    _ack(store, "Old finding nobody reports any more", created=LONG_AGO)
    report = prune_acks(store, ["project", "user"], retention_days=90, now=NOW, dry_run=False)
    assert report.to_json_dict()["scope"] == "all" and len(report.removed) == 1


@pytest.mark.parametrize("days", [-1, float("nan"), True])
def test_bad_retention_is_a_usage_error(store: AckStore, days: float) -> None:
    with pytest.raises(UsageError, match="retention"):
        prune_acks(store, ["user"], retention_days=days, now=NOW, dry_run=True)


def test_huge_retention_never_prunes(store: AckStore) -> None:
    _ack(store, "Old finding nobody reports any more", created=LONG_AGO)
    assert prune_acks(store, ["user"], retention_days=1e12, now=NOW, dry_run=False).kept == 1


def test_last_seen_file_is_rewritten_when_corrupt_and_never_moves_back(tmp_path: Path) -> None:
    root = tmp_path / "mmr"
    root.mkdir()
    (root / LAST_SEEN_NAME).write_text("[corrupt")
    assert read_last_seen(root) == {}
    record_sightings(root, ["a" * 40], NOW)
    record_sightings(root, ["a" * 40, "b" * 40], NOW - timedelta(days=5))
    assert read_last_seen(root) == {"a" * 40: NOW, "b" * 40: NOW - timedelta(days=5)}
    assert json.loads((root / LAST_SEEN_NAME).read_text())["a" * 40] == "2026-06-01T00:00:00.000Z"
    assert not (root / f"{LAST_SEEN_NAME}.lock").exists()
