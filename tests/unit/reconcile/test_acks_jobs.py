"""Finding the source of `mmr ack add` in stored jobs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mmr.acks.jobs import (
    InvalidAckJobIdError,
    check_ack_job_id,
    find_ack_source,
    iter_job_findings,
    source_not_found_message,
)
from mmr.store.jobs import JobStore

from .ack_helpers import reconciled

T0 = datetime(2026, 5, 1, tzinfo=UTC)


@pytest.fixture
def jobs(tmp_path: Path) -> JobStore:
    return JobStore(tmp_path / "mmr" / "jobs")


def _job(jobs: JobStore, created: datetime, document: object) -> str:
    job = jobs.create_job(["codex"], fix_threshold="P2", format="json",
                          min_completed_channels=1, created_at=created)
    if document is not None:
        jobs.paths(job.job_id).results.write_text(json.dumps(document))
    return job.job_id


def test_newest_job_with_the_key_wins(jobs: JobStore) -> None:
    finding = reconciled("src/a.ts:3", "Missing null check here")
    older = finding.model_copy(update={"location": "src/old.ts:1"})
    _job(jobs, T0, {"reconciled_findings": [older.to_json_dict()]})
    newest = _job(jobs, T0 + timedelta(days=1), {"reconciled_findings": [finding.to_json_dict()]})
    _job(jobs, T0 + timedelta(days=2), None)  # no results.json yet: skipped
    source = find_ack_source(jobs.root, finding.finding_key)
    assert source is not None
    assert (source.job_id, source.location) == (newest, "src/a.ts:3")
    assert source.description_shingle == finding.description_shingle


def test_the_hinted_job_only(jobs: JobStore) -> None:
    finding = reconciled("src/a.ts:3", "Missing null check here")
    with_it = _job(jobs, T0, {"reconciled_findings": [finding.to_json_dict()]})
    without = _job(jobs, T0 + timedelta(days=1), {"reconciled_findings": []})
    assert find_ack_source(jobs.root, finding.finding_key, without) is None
    found = find_ack_source(jobs.root, finding.finding_key, with_it)
    assert found is not None and found.job_id == with_it


@pytest.mark.parametrize("document", [
    {"reconciled_findings": "nope"}, ["not", "an", "object"], {"other": []},
])
def test_unusable_results_are_skipped(jobs: JobStore, document: object) -> None:
    _job(jobs, T0, document)
    assert list(iter_job_findings(jobs.root)) == []


def test_findings_without_a_shingle_or_location_are_not_sources(jobs: JobStore) -> None:
    finding = reconciled("src/a.ts:3", "Missing null check here")
    broken = {**finding.to_json_dict(), "description_shingle": None}
    _job(jobs, T0, {"reconciled_findings": [broken, {"finding_key": finding.finding_key}]})
    assert find_ack_source(jobs.root, finding.finding_key) is None


def test_oversized_results_are_skipped(jobs: JobStore,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    finding = reconciled("src/a.ts:3", "Missing null check here")
    _job(jobs, T0, {"reconciled_findings": [finding.to_json_dict()]})
    monkeypatch.setattr("mmr.acks.jobs.MAX_RESULTS_BYTES", 10)
    assert find_ack_source(jobs.root, finding.finding_key) is None


def test_job_id_rule_and_messages() -> None:
    assert check_ack_job_id("mmr-0123456789ab") == "mmr-0123456789ab"
    with pytest.raises(InvalidAckJobIdError) as caught:
        check_ack_job_id("../mmr-0123456789ab")
    assert str(caught.value) == ("Invalid job id: ../mmr-0123456789ab — must match "
                                 "^mmr-[a-f0-9]{12}$")
    key = "a" * 40
    assert source_not_found_message(key) == (
        f"No reconciled finding with key {key} found in recent jobs.\n"
        "Tip: pass --job <id> if you know which job surfaced this finding.")
    assert source_not_found_message(key, "mmr-0123456789ab").startswith(
        f"No reconciled finding with key {key} found in recent jobs (job=mmr-0123456789ab).\n")


def test_a_missing_jobs_dir_has_no_findings(tmp_path: Path) -> None:
    assert list(iter_job_findings(tmp_path / "nothing")) == []
    assert find_ack_source(tmp_path / "nothing", "a" * 40, "mmr-0123456789ab") is None
