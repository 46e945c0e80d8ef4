"""Which job files are fsynced: the job record and the final results, nothing else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmr.store.jobs import JobStore


@pytest.fixture
def fsynced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file name of every descriptor fsynced, in order."""
    seen: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        seen.append(Path(f"/proc/self/fd/{fd}").readlink().name)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return seen


def test_only_job_json_and_results_json_are_fsynced(tmp_path: Path, fsynced: list[str]) -> None:
    store = JobStore(tmp_path / "jobs")
    job_id = store.create_job(["a"], fix_threshold="P2", format="json",
                              min_completed_channels=1).job_id
    assert any(name.startswith(".job.json.") for name in fsynced)
    fsynced.clear()
    store.write_prompt(job_id, "prompt")
    store.write_diff(job_id, "diff")
    store.write_channel_output(job_id, "a", "{}")
    store.write_log(job_id, "a", "log")
    store.write_pid(job_id, "a", 123)
    store.update_channel(job_id, "a", status="completed")
    assert fsynced == []
    store.write_results(job_id, {"approved": True})
    assert [n for n in fsynced if n.startswith(".results.json.")]
    assert store.read_channel_output(job_id, "a") == "{}"
    assert store.load(job_id).channels["a"].status == "completed"


def test_results_json_behind_a_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs")
    job_id = store.create_job(["a"], fix_threshold="P2", format="json",
                              min_completed_channels=1).job_id
    outside = tmp_path / "outside.json"
    outside.write_text('{"verdict": "pass"}\n')
    results = store.existing(job_id).results
    results.symlink_to(outside)

    store.write_results_text(job_id, '{"verdict": "pass"}\n')  # same bytes as the target

    assert not results.is_symlink() and results.read_text() == '{"verdict": "pass"}\n'
