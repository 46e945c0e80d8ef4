"""`mmr jobs list` and `mmr jobs prune` core logic."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mmr.store.jobs import JobStore

from .reference_job import REFERENCE_JOB_ID, write_reference_job

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)


def _job_at(store: JobStore, created: datetime, channels: tuple[str, ...] = ("codex",)) -> str:
    job = store.create_job(channels, fix_threshold="P2", format="json",
                           min_completed_channels=1, created_at=created)
    return job.job_id


def _age_dir(path: Path, moment: datetime) -> None:
    stamp = moment.timestamp()
    os.utime(path, (stamp, stamp))


def test_list_is_newest_first_with_channel_counts_and_skips_malformed(store: JobStore) -> None:
    old = _job_at(store, NOW - timedelta(days=3), ("a", "b"))
    new = _job_at(store, NOW - timedelta(hours=1), ("a",))
    write_reference_job(store)  # created 2026-05-01
    (store.root / "mmr-aaaaaaaaaaaa").mkdir()
    (store.root / "mmr-aaaaaaaaaaaa" / "job.json").write_text("{broken")
    (store.root / "mmr-bbbbbbbbbbbb").mkdir()  # no job.json at all
    (store.root / "not-a-job").mkdir()
    (store.root / "mmr-file").write_text("")
    entries = [job.list_entry() for job in store.list_jobs()]
    assert [e["job_id"] for e in entries] == [new, old, REFERENCE_JOB_ID]
    assert entries[0] == {"job_id": new, "status": "dispatched",
                          "created_at": "2026-06-01T11:00:00.000Z", "channels": 1}
    assert entries[1]["channels"] == 2
    assert entries[2]["status"] == "completed" and entries[2]["channels"] == 3


def test_list_of_an_empty_store(store: JobStore) -> None:
    assert store.list_jobs() == []


def test_prune_deletes_only_jobs_older_than_the_retention(store: JobStore) -> None:
    old = _job_at(store, NOW - timedelta(days=8))
    edge = _job_at(store, NOW - timedelta(days=7))  # exactly at the cutoff: kept
    fresh = _job_at(store, NOW - timedelta(days=1))
    pruned = store.prune(7, NOW)
    assert pruned == [old]
    assert sorted(p.name for p in store.root.iterdir()) == sorted([edge, fresh])


def test_prune_removes_a_job_dir_with_a_results_memo_left_by_an_older_mmr(
        store: JobStore) -> None:
    """An earlier mmr kept ``results-memo.json`` in each job directory; prune removes it
    with the rest of the directory."""
    old = _job_at(store, NOW - timedelta(days=8))
    (store.root / old / "results-memo.json").write_text('{"format":1,"key":"0"}')
    assert store.prune(7, NOW) == [old]
    assert not (store.root / old).exists()


def test_fractional_retention_and_zero(store: JobStore) -> None:
    twelve_hours = _job_at(store, NOW - timedelta(hours=12))
    assert store.prune(1, NOW) == []
    assert store.prune(0.25, NOW) == [twelve_hours]
    just_now = _job_at(store, NOW - timedelta(milliseconds=1))
    assert store.prune(0, NOW) == [just_now]


def test_prune_removes_old_malformed_dirs_by_mtime_and_keeps_fresh_ones(store: JobStore) -> None:
    old_broken = store.root / "mmr-aaaaaaaaaaaa"
    old_broken.mkdir()
    (old_broken / "job.json").write_text("{half")
    _age_dir(old_broken, NOW - timedelta(days=30))
    old_empty = store.root / "mmr-bbbbbbbbbbbb"
    old_empty.mkdir()
    _age_dir(old_empty, NOW - timedelta(days=30))
    fresh_broken = store.root / "mmr-cccccccccccc"
    fresh_broken.mkdir()
    _age_dir(fresh_broken, NOW - timedelta(hours=1))
    unrelated = store.root / "keep-me"
    unrelated.mkdir()
    _age_dir(unrelated, NOW - timedelta(days=30))
    assert sorted(store.prune(7, NOW)) == ["mmr-aaaaaaaaaaaa", "mmr-bbbbbbbbbbbb"]
    assert fresh_broken.exists() and unrelated.exists()


def test_prune_never_follows_a_symlinked_job_dir(store: JobStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("x")
    _age_dir(outside, NOW - timedelta(days=30))
    (store.root / "mmr-dddddddddddd").symlink_to(outside)
    assert store.prune(7, NOW) == []
    assert (outside / "precious").exists()


def test_prune_keeps_an_old_job_whose_worker_still_holds_the_lock(store: JobStore) -> None:
    job_id = _job_at(store, NOW - timedelta(days=30))
    with store.acquire_worker_lock(job_id):
        assert store.prune(7, NOW) == []
    assert store.prune(7, NOW) == [job_id]


def test_negative_retention_is_refused(store: JobStore) -> None:
    with pytest.raises(ValueError, match="retention"):
        store.prune(-1, NOW)


def test_prune_keeps_a_job_locked_by_another_process(store: JobStore) -> None:
    job_id = _job_at(store, NOW - timedelta(days=30))
    code = (
        "import sys, time; from pathlib import Path; from mmr.store.jobs import JobStore;"
        "lock = JobStore(Path(sys.argv[1])).acquire_worker_lock(sys.argv[2]);"
        "print('locked', flush=True); sys.stdin.read()"
    )
    with subprocess.Popen([sys.executable, "-c", code, str(store.root), job_id],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "locked\n"
        assert store.prune(7, NOW) == []
        child.stdin.close()
        child.wait(timeout=20)
    assert store.prune(7, NOW) == [job_id]


def test_prune_goes_past_a_job_whose_record_cannot_be_read(store: JobStore,
                                                           tmp_path: Path) -> None:
    """A symlinked or unreadable job.json is a damaged job: aged by its directory, pruned,
    and the jobs after it too (one StoreReadError used to stop the whole prune)."""
    from mmr.acks.jobs import read_job_findings

    damaged = _job_at(store, NOW - timedelta(days=30))
    record = store.root / damaged / "job.json"
    target = tmp_path / "elsewhere.json"
    target.write_bytes(record.read_bytes())
    record.unlink()
    record.symlink_to(target)
    _age_dir(store.root / damaged, NOW - timedelta(days=30))
    old = _job_at(store, NOW - timedelta(days=30))

    read_job_findings(store.root, damaged)  # the ack look-up scans it: no StoreReadError
    assert sorted(store.prune(7, NOW)) == sorted([damaged, old])
    assert target.exists()
