"""``mmr status <job-id>``: the document and the 0/1/2/5 exit codes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import pytest

from mmr.config.paths import jobs_dir, mmr_home
from mmr.store.jobs import JobStore
from tests.integration.cli_lifecycle.conftest import RunMmr, new_job, set_statuses


def test_all_completed_exits_0_with_elapsed(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store)
    set_statuses(store, job_id, claude="completed", codex="completed")

    result = run_mmr("status", job_id)

    assert result.code == 0
    assert result.json() == {
        "job_id": job_id,
        "status": "completed",
        "channels": {"claude": {"status": "completed", "elapsed": "12.3s"},
                     "codex": {"status": "completed", "elapsed": "12.3s"}},
    }
    assert result.out.startswith('{\n  "job_id"')  # 2-space JSON


def test_a_running_channel_exits_1(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store, ("claude", "codex", "grok"))
    set_statuses(store, job_id, claude="completed", codex="running")

    result = run_mmr("status", job_id)

    assert result.code == 1
    document = result.json()
    assert document["status"] == "running"
    assert document["channels"]["codex"] == {"status": "running", "elapsed": "running"}
    assert document["channels"]["grok"] == {"status": "dispatched"}
    assert "worker" not in document  # no worker.lock: a reference-style job


@pytest.mark.parametrize("failure", ["failed", "timeout", "auth_failed"])
def test_a_failed_channel_exits_2(store: JobStore, run_mmr: RunMmr, failure: str) -> None:
    job_id = new_job(store)
    set_statuses(store, job_id, claude="completed", codex=failure)

    result = run_mmr("status", job_id)

    assert result.code == 2
    assert result.json()["channels"]["codex"]["status"] == failure


def test_running_wins_over_failed(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store)
    set_statuses(store, job_id, claude="failed", codex="running")

    assert run_mmr("status", job_id).code == 1


@pytest.mark.parametrize(("structural", "code"), [("not_installed", 2), ("skipped", 0)])
def test_not_installed_fails_and_skipped_does_not(
    store: JobStore, run_mmr: RunMmr, structural: str, code: int
) -> None:
    """A channel that could not run exits 2, as MMR 4.0.1 does; a skipped one does not."""
    job_id = new_job(store)
    store.update_channel(job_id, "codex", status=structural, auth="failed")
    set_statuses(store, job_id, claude="completed")

    result = run_mmr("status", job_id)

    assert result.code == code
    assert result.json()["channels"]["codex"] == {"status": structural}


def test_reason_is_reported(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store)
    set_statuses(store, job_id, claude="completed")
    store.update_channel(job_id, "codex", status="failed", reason="parse_error")

    result = run_mmr("status", job_id)

    assert result.code == 2
    assert result.json()["channels"]["codex"]["reason"] == "parse_error"


def test_unknown_job_exits_5(run_mmr: RunMmr) -> None:
    result = run_mmr("status", "mmr-0123456789ab")

    assert result.code == 5
    assert "Job not found: mmr-0123456789ab" in result.err
    assert result.out == ""


def test_malformed_job_json_exits_5(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store)
    store.paths(job_id).job_json.write_text("{not json")

    result = run_mmr("status", job_id)

    assert result.code == 5
    assert f"Job not found: {job_id}" in result.err


def test_ids_escaping_the_jobs_dir_exit_5_even_when_a_job_is_there(
    store: JobStore, run_mmr: RunMmr
) -> None:
    """A real, complete job outside the jobs dir must not be reachable by path."""
    job_id = new_job(store)
    set_statuses(store, job_id, claude="completed", codex="completed")
    outside = mmr_home() / "elsewhere"
    outside.mkdir()
    shutil.copytree(store.paths(job_id).root, outside / job_id)

    for escaping in (f"../elsewhere/{job_id}", str(outside / job_id),
                     str(store.paths(job_id).root), ".", "..", f"{job_id}\x00", ""):
        result = run_mmr("status", escaping)
        assert result.code == 5, escaping
        assert "Job not found" in result.err
        assert "\x00" not in result.err


def test_dead_worker_is_reported_and_exits_2(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store)
    set_statuses(store, job_id, claude="completed", codex="running")
    worker = subprocess.Popen(
        [sys.executable, "-c", _HOLD_WORKER_LOCK, str(jobs_dir()), job_id],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "locked"

        alive = run_mmr("status", job_id)
        assert alive.code == 1
        assert alive.json()["worker"] == "running"

        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)

        dead = run_mmr("status", job_id)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        if worker.stdout is not None:
            worker.stdout.close()

    assert dead.code == 2
    document = dead.json()
    assert document["worker"] == "died"
    assert document["status"] == "completed"
    assert document["channels"]["codex"]["status"] == "failed"
    assert document["channels"]["codex"]["reason"] == "worker_died"
    assert document["channels"]["claude"] == {"status": "completed", "elapsed": "12.3s"}
    log = store.paths(job_id).log_file("codex").read_text()
    assert "worker exited before this channel finished" in log
    # A later call reads the converted job: still died, still exit 2.
    again = run_mmr("status", job_id)
    assert (again.code, again.json()["worker"]) == (2, "died")


def test_finished_worker(store: JobStore, run_mmr: RunMmr) -> None:
    job_id = new_job(store)
    store.acquire_worker_lock(job_id).release()
    set_statuses(store, job_id, claude="completed", codex="completed")

    result = run_mmr("status", job_id)

    assert (result.code, result.json()["worker"]) == (0, "finished")


def test_missing_job_id_is_a_usage_error(run_mmr: RunMmr) -> None:
    result = run_mmr("status")

    assert result.code == 1
    assert result.err == "mmr: error: missing argument JOB_ID\nTry 'mmr status --help'\n"


def test_status_through_a_real_process(store: JobStore) -> None:
    job_id = new_job(store)
    set_statuses(store, job_id, claude="completed", codex="timeout")

    done = subprocess.run([sys.executable, "-m", "mmr", "status", job_id],
                          capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 2, done.stderr
    assert '"codex": {\n      "status": "timeout"' in done.stdout
    assert done.stdout.endswith("}\n")


_HOLD_WORKER_LOCK = """
import sys, time
from pathlib import Path
from mmr.store.jobs import JobStore
lock = JobStore(Path(sys.argv[1])).acquire_worker_lock(sys.argv[2])
print("locked", flush=True)
time.sleep(120)
"""
