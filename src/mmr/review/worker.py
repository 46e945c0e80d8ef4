"""The detached worker of a fire-and-forget review.

Foreground — :func:`mmr.review.launch.start_worker`: with the job created and its
``worker.lock`` held, start ``python -P -m mmr.review.worker <job-id> <lock-fd> <gate-fd>``
in a new session (closing the terminal cannot reach it), stdout and stderr appended to
``<job>/worker.log``, the user's environment and current directory, and the locked
descriptor passed along, so the job is never unlocked while someone may still run it. The
run plan goes down a stdin pipe, never to disk (channel ``env``/``headers`` may hold
secrets); then the foreground waits only for the gate report on ``<gate-fd>`` (which
channels the install + auth check stopped, written before anything is dispatched) to
print the dispatch summary.

Worker — :func:`main`: read the plan to EOF (first thing, before the heavy imports, so the
foreground's write returns at once), adopt the lock, record ``worker: {pid, started_at}``,
and run the gate, dispatch, compensation and the results pipeline
(:func:`mmr.review.execute.run_job`). It prints nothing anyone reads: notices, warnings
and any crash trace land in ``worker.log``. If it dies, its lock dies with it and the
next reader marks the unfinished channels ``failed`` (``reason: worker_died``); the
watchdog of :mod:`mmr.process.reaper` kills the channels it was running.

``-P`` keeps the current directory — the repository under review, possibly someone
else's — off ``sys.path``, so a ``mmr/`` or ``anyio.py`` in it cannot be imported.
"""

from __future__ import annotations

import os
import sys
import traceback
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from mmr.errors import MmrError
from mmr.log import stderr_line
from mmr.vocabulary import EXIT_INTERRUPTED


def main(argv: list[str] | None = None) -> int:
    """The worker process: ``python -P -m mmr.review.worker <job-id> <lock-fd> <gate-fd>``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or not all(arg.isdigit() for arg in args[1:]):
        stderr_line("usage: python -P -m mmr.review.worker <job-id> <lock-fd> <gate-fd> "
                    "(run plan on stdin)")
        return 1
    payload = sys.stdin.buffer.read()
    _stdin_from_devnull()
    try:
        return run_worker(args[0], int(args[1]), payload, int(args[2]))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception:
        stderr_line(f"[mmr] worker: job {args[0]} crashed:\n{traceback.format_exc().rstrip()}")
        return 1


def run_worker(job_id: str, lock_fd: int, payload: bytes, gate_fd: int) -> int:
    """Run job ``job_id`` to its results while holding the inherited ``worker.lock``;
    tell the foreground on ``gate_fd`` which channels its gate stopped."""
    # Imported only after the plan is read: the foreground waits for that read, and
    # these imports take ~0.7 s, which would otherwise delay every fire-and-forget review.
    from mmr.process.reaper import start_watchdog
    from mmr.review.execute import run_job
    from mmr.review.launch import report_gate
    from mmr.review.preflight import no_channel_passed_message, not_dispatched, run_preflight
    from mmr.review.run import ReviewIO
    from mmr.review.worker_plan import WorkerPlan
    from mmr.store.jobs import JobStore
    from mmr.store.locking import WorkerLock

    with WorkerLock.adopt(lock_fd):
        os.set_inheritable(lock_fd, False)  # channel processes must not keep the job locked
        os.set_inheritable(gate_fd, False)
        plan = WorkerPlan.model_validate_json(payload)
        if plan.job_id != job_id:
            raise MmrError(f"run plan is for job {plan.job_id}, not {job_id}")
        store = JobStore(Path(plan.jobs_root))
        store.record_worker(job_id, os.getpid())
        start_watchdog()  # a `kill -9` of this worker still kills its channels
        stderr_line(f"[mmr] worker {os.getpid()} started job {job_id} at {_now()}")
        job_plan = plan.job_plan()
        io = ReviewIO(cwd=Path.cwd(), notice_sink=stderr_line)
        gate = run_preflight(job_plan.planned, parallel=job_plan.loaded.defaults.parallel)
        if not any(result.passed for result in gate):
            io.notice(no_channel_passed_message(gate))  # no exit 1 here: the job completes
        results = run_job(job_plan, store, job_id, gate, io,
                          gated=partial(report_gate, gate_fd, not_dispatched(gate)))
    stderr_line(f"[mmr] worker {os.getpid()} finished job {job_id} at {_now()}: {results.verdict}")
    return 0


def _stdin_from_devnull() -> None:
    """After the plan, stdin reads EOF as from ``/dev/null`` (nothing can inherit the pipe)."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"



if __name__ == "__main__":
    raise SystemExit(main())
