"""Start the detached worker of a fire-and-forget review and hand it its plan (ch. 05 §2.9).

The worker itself is :mod:`mmr.review.worker`; it runs ``python -P`` so the reviewed
repository cannot shadow mmr's imports.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mmr.errors import MmrError
from mmr.process.detached import DetachedProcess, spawn_detached

if TYPE_CHECKING:
    from mmr.review.run import JobPlan
    from mmr.store.jobs import JobStore

WORKER_MODULE = "mmr.review.worker"


def worker_argv(job_id: str, lock_fd: int) -> list[str]:
    """The worker's command line: this interpreter, safe ``sys.path``, job and lock fd."""
    return [sys.executable, "-P", "-m", WORKER_MODULE, job_id, str(lock_fd)]


def start_worker(store: JobStore, job_id: str, plan: JobPlan, *, cwd: Path) -> int:
    """Start the detached worker of ``job_id`` and hand it ``plan``; its pid.

    Raises :class:`MmrError` when the worker cannot be started or dies before it has read
    its plan (the job then shows ``worker_died`` on the next ``mmr status``).
    """
    from mmr.review.worker_plan import WorkerPlan

    payload = WorkerPlan.for_job(job_id, store.root, plan).to_json()
    log_path = store.worker_log_path(job_id)
    with store.acquire_worker_lock(job_id) as lock:
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            process = spawn_detached(worker_argv(job_id, lock.fileno()), cwd=cwd,
                                     output_fd=log_fd, pass_fds=(lock.fileno(),))
        except OSError as exc:
            raise MmrError(f"Could not start the review worker for job {job_id}: {exc}") from None
        finally:
            os.close(log_fd)
    # Our copy of the lock is closed; the worker's inherited copy now holds it alone.
    _send_plan(process, payload, job_id, log_path)
    return process.pid


def _send_plan(process: DetachedProcess, payload: bytes, job_id: str,
               log_path: Path) -> None:
    stdin = process.stdin
    if stdin is None:  # cannot happen with stdin=PIPE; keeps the type checker honest
        raise MmrError(f"No pipe to the review worker of job {job_id}")
    try:
        stdin.write(payload)
        stdin.close()
    except OSError:  # BrokenPipeError: it died before reading its plan
        raise MmrError(f"The review worker for job {job_id} exited before it started; "
                       f"see {log_path}") from None
