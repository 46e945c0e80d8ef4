"""Dead-worker detection through a flock on worker.lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from mmr.store.job_status import status_document, status_exit_code
from mmr.store.jobs import JobStore
from mmr.store.locking import WorkerLock, WorkerLockHeldError

from .reference_job import REFERENCE_JOB_ID, write_reference_job

# A stand-in worker: takes the lock itself, or adopts one passed with pass_fds.
_WORKER = """
import sys, time
from pathlib import Path
from mmr.store.jobs import JobStore
from mmr.store.locking import WorkerLock

if sys.argv[3] == "create":
    lock = JobStore(Path(sys.argv[1])).acquire_worker_lock(sys.argv[2])
else:
    lock = WorkerLock.adopt(int(sys.argv[3]))
print("locked", flush=True)
time.sleep(120)
"""


@contextmanager
def _worker(store: JobStore, job_id: str, fd: int | None = None) -> Iterator[subprocess.Popen[str]]:
    argv = [sys.executable, "-c", _WORKER, str(store.root), job_id,
            "create" if fd is None else str(fd)]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True,
                             pass_fds=() if fd is None else (fd,))
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "locked\n"
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=20)
        if child.stdout is not None:
            child.stdout.close()


def _running_job(store: JobStore) -> str:
    job = store.create_job(["codex", "gemini", "grok"], fix_threshold="P2", format="json",
                           min_completed_channels=2)
    store.update_channel(job.job_id, "codex", status="completed",
                         started_at="2026-05-22T00:00:00.000Z",
                         completed_at="2026-05-22T00:00:12.300Z")
    store.update_channel(job.job_id, "gemini", status="running",
                         started_at="2026-05-22T00:00:00.000Z")
    return job.job_id


@pytest.mark.slow
def test_a_sigkilled_worker_is_detected_and_its_channels_fail(store: JobStore) -> None:
    job_id = _running_job(store)
    with _worker(store, job_id) as child:
        assert store.is_worker_alive(job_id) is True
        live = store.load(job_id)
        assert live.worker_state == "running"
        assert live.status == "running"
        assert status_exit_code(live) == 1
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=20)
    assert store.is_worker_alive(job_id) is False
    job = store.load(job_id)
    assert job.worker_state == "died"
    assert job.status == "completed"
    assert job.channels["codex"].status == "completed"
    assert job.channels["codex"].reason is None
    for name in ("gemini", "grok"):
        entry = job.channels[name]
        assert (entry.status, entry.reason) == ("failed", "worker_died")
        assert entry.completed_at is not None and entry.completed_at.endswith("Z")
        assert store.read_log(job_id, name) == "worker exited before this channel finished\n"
    assert job.channels["gemini"].started_at == "2026-05-22T00:00:00.000Z"
    document = status_document(job)
    assert document["worker"] == "died"
    assert document["channels"]["gemini"]["reason"] == "worker_died"
    assert document["channels"]["codex"] == {"status": "completed", "elapsed": "12.3s"}
    assert status_exit_code(job) == 2
    # Later readers see the same, and the sweep does not run twice.
    again = store.load(job_id)
    assert again.worker_state == "died"
    assert store.read_log(job_id, "grok") == "worker exited before this channel finished\n"


@pytest.mark.slow
def test_a_lock_handed_to_a_worker_outlives_the_foreground(store: JobStore) -> None:
    job_id = _running_job(store)
    lock = store.acquire_worker_lock(job_id)
    with _worker(store, job_id, fd=lock.fileno()) as child:
        lock.release()  # the foreground exits; the worker's copy keeps the lock
        assert store.is_worker_alive(job_id) is True
        assert store.load(job_id).channels["gemini"].status == "running"
        child.kill()
        child.wait(timeout=20)
    assert store.load(job_id).channels["gemini"].reason == "worker_died"


def test_the_dispatching_process_never_sweeps_its_own_job(store: JobStore) -> None:
    job_id = _running_job(store)
    with store.acquire_worker_lock(job_id):
        job = store.load(job_id)
        assert job.worker_state == "running"
        assert job.channels["gemini"].status == "running"
    assert store.load(job_id).worker_state == "died"


def test_a_finished_worker_reads_finished(store: JobStore) -> None:
    job_id = _running_job(store)
    with store.acquire_worker_lock(job_id):
        for name in ("gemini", "grok"):
            store.update_channel(job_id, name, status="timeout")
    job = store.load(job_id)
    assert job.worker_state == "finished"
    assert all(entry.reason is None for entry in job.channels.values())


def test_a_job_without_worker_lock_keeps_reference_behaviour(store: JobStore) -> None:
    job_id = _running_job(store)
    job = store.load(job_id)
    assert store.is_worker_alive(job_id) is None
    assert job.worker_state is None
    assert job.channels["gemini"].status == "running"
    assert "worker" not in status_document(job)
    write_reference_job(store)
    assert store.load(REFERENCE_JOB_ID).worker_state is None


def test_the_worker_lock_is_created_once(store: JobStore) -> None:
    job_id = _running_job(store)
    with store.acquire_worker_lock(job_id):
        with pytest.raises(WorkerLockHeldError):
            store.acquire_worker_lock(job_id)
        assert WorkerLock.try_acquire(store.root / job_id / "worker.lock") is None
    assert sorted(p.name for p in (store.root / job_id).iterdir()) == [
        "channels", "job.json", "worker.lock"]
