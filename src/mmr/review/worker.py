"""The detached worker of a fire-and-forget review (spec ch. 05 §2.9, ch. 04 §7.8).

Foreground — :func:`start_worker`: with the job created and its ``worker.lock`` held, start
``python -P -m mmr.review.worker <job-id> <lock-fd>`` in a new session (closing the
terminal cannot reach it), stdout and stderr appended to ``<job>/worker.log``, the
user's environment and current directory, and the locked descriptor passed along, so the
job is never unlocked while someone may still run it. The run plan goes down a stdin
pipe, never to disk (channel ``env``/``headers`` may hold secrets); then the foreground
returns the worker's pid without waiting for it.

Worker — :func:`main`: read the plan to EOF (first thing, before the heavy imports, so the
foreground's write returns at once), adopt the lock, record ``worker: {pid, started_at}``,
and run the gate, dispatch, compensation and the results pipeline
(:func:`mmr.review.execute.run_job`). It prints nothing anyone reads: notices, warnings
and any crash trace land in ``worker.log``. If it dies, its lock dies with it and the
next reader marks the unfinished channels ``failed`` (``reason: worker_died``).

``-P`` keeps the current directory — the repository under review, possibly someone
else's — off ``sys.path``, so a ``mmr/`` or ``anyio.py`` in it cannot be imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mmr.errors import MmrError

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
            process = subprocess.Popen(
                worker_argv(job_id, lock.fileno()), stdin=subprocess.PIPE, stdout=log_fd,
                stderr=log_fd, cwd=cwd, start_new_session=True, pass_fds=(lock.fileno(),),
            )
        except OSError as exc:
            raise MmrError(f"Could not start the review worker for job {job_id}: {exc}") from None
        finally:
            os.close(log_fd)
    # Our copy of the lock is closed; the worker's inherited copy now holds it alone.
    # Nobody waits for the worker; a thread reaps it should this process outlive it (an
    # in-process caller), so it never lingers as a zombie.
    threading.Thread(target=process.wait, name=f"reap-{process.pid}", daemon=True).start()
    _send_plan(process, payload, job_id, log_path)
    return process.pid


def _send_plan(process: subprocess.Popen[bytes], payload: bytes, job_id: str,
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


def main(argv: list[str] | None = None) -> int:
    """The worker process: ``python -P -m mmr.review.worker <job-id> <lock-fd>``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not args[1].isdigit():
        _log(f"usage: python -P -m {WORKER_MODULE} <job-id> <lock-fd> (run plan on stdin)")
        return 1
    payload = sys.stdin.buffer.read()
    _stdin_from_devnull()
    try:
        return run_worker(args[0], int(args[1]), payload)
    except KeyboardInterrupt:
        return 130
    except Exception:
        _log(f"[mmr] worker: job {args[0]} crashed:\n{traceback.format_exc().rstrip()}")
        return 1


def run_worker(job_id: str, lock_fd: int, payload: bytes) -> int:
    """Run job ``job_id`` to its results while holding the inherited ``worker.lock``."""
    from mmr.review.execute import run_job
    from mmr.review.preflight import no_channel_passed_message, run_preflight
    from mmr.review.run import ReviewIO
    from mmr.review.worker_plan import WorkerPlan
    from mmr.store.jobs import JobStore
    from mmr.store.locking import WorkerLock

    with WorkerLock.adopt(lock_fd):
        os.set_inheritable(lock_fd, False)  # channel processes must not keep the job locked
        plan = WorkerPlan.from_json(payload)
        if plan.job_id != job_id:
            raise MmrError(f"run plan is for job {plan.job_id}, not {job_id}")
        store = JobStore(Path(plan.jobs_root))
        store.record_worker(job_id, os.getpid())
        _log(f"[mmr] worker {os.getpid()} started job {job_id} at {_now()}")
        job_plan = plan.job_plan()
        io = ReviewIO(cwd=Path.cwd(), notice_sink=_log)
        gate = run_preflight(job_plan.planned, parallel=job_plan.loaded.defaults.parallel)
        if not any(result.passed for result in gate):
            io.notice(no_channel_passed_message(gate))  # no exit 1 here: the job completes
        results = run_job(job_plan, store, job_id, gate, io)
    _log(f"[mmr] worker {os.getpid()} finished job {job_id} at {_now()}: {results.verdict}")
    return 0


def _stdin_from_devnull() -> None:
    """After the plan, stdin reads EOF as from ``/dev/null`` (nothing can inherit the pipe)."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _log(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
