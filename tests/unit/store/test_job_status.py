"""`mmr status` document and exit code; `results` preconditions."""

from __future__ import annotations

import pytest

from mmr.store.job_status import (
    ChannelsStillRunningError,
    JobKindError,
    format_elapsed,
    require_results_ready,
    status_document,
    status_exit_code,
)
from mmr.store.jobs import JobStore
from mmr.store.records import ChannelJobEntry, JobRecord, elapsed_ms, iso_timestamp


def _job(*statuses: str, kind: str | None = None) -> JobRecord:
    channels = {f"c{i}": ChannelJobEntry.model_validate({"status": status})
                for i, status in enumerate(statuses)}
    return JobRecord.model_validate({"job_id": "mmr-0123456789ab", "channels": channels,
                                     "kind": kind})


@pytest.mark.parametrize(
    ("ms", "text"),
    [(41_250, "41.3s"), (250, "0.3s"), (150, "0.1s"), (10_000, "10.0s"), (0, "0.0s"),
     (12_300, "12.3s"), (300_000, "300.0s")],
)
def test_format_elapsed_rounds_like_javascript(ms: int, text: str) -> None:
    assert format_elapsed(ms) == text


def test_timestamps_are_utc_milliseconds_with_z() -> None:
    stamp = iso_timestamp()
    assert len(stamp) == 24 and stamp.endswith("Z") and stamp[19] == "."
    assert elapsed_ms("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:41.250Z") == 41_250
    assert elapsed_ms("2026-05-01T10:00:00.000Z", None) is None
    assert elapsed_ms("garbage", "2026-05-01T10:00:41.250Z") is None


def test_status_document_elapsed_forms(store: JobStore) -> None:
    job = store.create_job(["done", "busy", "waiting"], fix_threshold="P2", format="json",
                           min_completed_channels=1)
    store.update_channel(job.job_id, "done", status="failed", reason="parse_error",
                         started_at="2026-05-01T10:00:00.000Z",
                         completed_at="2026-05-01T10:05:00.000Z")
    store.update_channel(job.job_id, "busy", status="running",
                         started_at="2026-05-01T10:00:00.000Z")
    document = status_document(store.load(job.job_id))
    assert document == {
        "job_id": job.job_id,
        "status": "running",
        "channels": {
            "done": {"status": "failed", "elapsed": "300.0s", "reason": "parse_error"},
            "busy": {"status": "running", "elapsed": "running"},
            "waiting": {"status": "dispatched"},
        },
    }


@pytest.mark.parametrize(
    ("statuses", "code"),
    [
        (("completed", "running"), 1),
        (("dispatched",), 1),
        (("completed", "failed"), 2),
        (("completed", "timeout"), 2),
        (("completed", "auth_failed"), 2),
        (("completed", "not_installed"), 2),  # could not run: as MMR 4.0.1
        (("completed", "skipped"), 0),
        (("completed",), 0),
        (("failed", "running"), 1),
    ],
)
def test_status_exit_code(statuses: tuple[str, ...], code: int) -> None:
    assert status_exit_code(_job(*statuses)) == code


def test_results_refuse_running_jobs_with_two_lines() -> None:
    with pytest.raises(ChannelsStillRunningError) as info:
        require_results_ready(_job("running", "completed", "dispatched"))
    assert str(info.value) == (
        "Channels still running: c0, c2\n"
        "Wait for completion or use `mmr status` to check progress."
    )
    assert info.value.exit_code == 6  # issue 18: distinct from an error
    require_results_ready(_job("completed", "failed"))


def test_results_refuse_critique_jobs_with_exit_5() -> None:
    with pytest.raises(JobKindError, match="critique job") as info:
        require_results_ready(_job("completed", kind="critique"))
    assert info.value.exit_code == 5
    require_results_ready(_job("completed", kind="review"))
