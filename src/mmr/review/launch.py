"""Start the detached worker of a fire-and-forget review and hand it its plan.

The worker itself is :mod:`mmr.review.worker`; it runs ``python -P`` so the reviewed
repository cannot shadow mmr's imports.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mmr.errors import MmrError
from mmr.process.detached import DetachedProcess, spawn_detached
from mmr.review.run import JobPlan
from mmr.review.worker_plan import WorkerPlan
from mmr.store.jobs import JobStore

WORKER_MODULE = "mmr.review.worker"


def worker_argv(job_id: str, lock_fd: int, gate_fd: int) -> list[str]:
    """The worker's command line: this interpreter, safe ``sys.path``, job, lock fd and
    the pipe it reports its gate on."""
    return [sys.executable, "-P", "-m", WORKER_MODULE, job_id, str(lock_fd), str(gate_fd)]


@dataclass(frozen=True)
class StartedWorker:
    """A started worker: its pid, and the read end of the pipe it reports its gate on."""

    pid: int
    gate_fd: int

    def gate_report(self, timeout_s: float) -> list[dict[str, str]] | None:
        """The channels the worker's gate did not pass (``{channel, status, reason}``),
        once it has written them; None when it died first or took over ``timeout_s``.

        Waits on the pipe itself (data or EOF); the timeout is only a bound."""
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout_s
        try:
            while (left := deadline - time.monotonic()) > 0:
                ready, _, _ = select.select([self.gate_fd], [], [], left)
                if not ready:
                    return None
                chunk = os.read(self.gate_fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
            else:
                return None
        finally:
            os.close(self.gate_fd)
        try:
            report = json.loads(b"".join(chunks))
        except ValueError:
            return None
        return report if isinstance(report, list) else None


def start_worker(store: JobStore, job_id: str, plan: JobPlan, *, cwd: Path) -> StartedWorker:
    """Start the detached worker of ``job_id`` and hand it ``plan``.

    Raises :class:`MmrError` when the worker cannot be started or dies before it has read
    its plan (the job then shows ``worker_died`` on the next ``mmr status``).
    """
    payload = WorkerPlan.for_job(job_id, store.root, plan).model_dump_json().encode()
    log_path = store.worker_log_path(job_id)
    gate_read, gate_write = os.pipe()
    with store.acquire_worker_lock(job_id) as lock:
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            process = spawn_detached(worker_argv(job_id, lock.fileno(), gate_write), cwd=cwd,
                                     output_fd=log_fd, pass_fds=(lock.fileno(), gate_write))
        except OSError as exc:
            os.close(gate_read)
            raise MmrError(f"Could not start the review worker for job {job_id}: {exc}") from None
        finally:
            os.close(log_fd)
            os.close(gate_write)  # the worker's copy alone: EOF once it reports or dies
    # Our copy of the lock is closed; the worker's inherited copy now holds it alone.
    try:
        _send_plan(process, payload, job_id, log_path)
    except MmrError:
        os.close(gate_read)
        raise
    return StartedWorker(process.pid, gate_read)


def report_gate(gate_fd: int, not_dispatched: list[dict[str, str]]) -> None:
    """The worker's side: write the channels its gate did not pass, then close the pipe."""
    try:
        os.write(gate_fd, json.dumps(not_dispatched).encode())
    except OSError:
        pass  # the foreground is gone; nobody needs the report
    finally:
        os.close(gate_fd)


def _send_plan(process: DetachedProcess, payload: bytes, job_id: str, log_path: Path) -> None:
    stdin = process.stdin
    if stdin is None:  # cannot happen with stdin=PIPE; keeps the type checker honest
        raise MmrError(f"No pipe to the review worker of job {job_id}")
    try:
        stdin.write(payload)
        stdin.close()
    except OSError:  # BrokenPipeError: it died before reading its plan
        raise MmrError(f"The review worker for job {job_id} exited before it started; "
                       f"see {log_path}") from None
