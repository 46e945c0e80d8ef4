"""Telling a live dispatcher from a dead one.

Whoever dispatches a job's channels holds ``worker.lock`` (see :class:`WorkerLock` for
why a flock). A reader that finds unfinished channels and can take that lock knows
nobody will ever finish them: it marks each one ``failed`` with ``reason: worker_died``
and a log line, under both locks, so exactly one reader converts them. Jobs without a
``worker.lock`` (written by MMR 4.0.1) are never touched.
"""

from __future__ import annotations

from mmr.log import get_logger
from mmr.store.held import append_line
from mmr.store.job_reader import read_job
from mmr.store.job_writer import job_lock, merge_status_file
from mmr.store.layout import JobPaths
from mmr.store.locking import WorkerLock, worker_lock_held
from mmr.store.records import (
    WORKER_DIED,
    WORKER_DIED_LOG,
    JobRecord,
    WorkerState,
    iso_timestamp,
)


def sweep_dead_worker(paths: JobPaths) -> list[str]:
    """Fail the unfinished channels of a job whose dispatcher is gone; their names."""
    try:
        lock = WorkerLock.try_acquire(paths.worker_lock)
    except OSError:
        return []  # no worker.lock: a job MMR 4.0.1 wrote, left as it is
    if lock is None:
        return []  # the dispatcher is alive
    with lock, job_lock(paths):
        unfinished = read_job(paths).running_channels
        now = iso_timestamp()
        for channel in unfinished:
            merge_status_file(paths, channel,
                              {"status": "failed", "reason": WORKER_DIED, "completed_at": now})
            append_line(paths.log_file(channel), WORKER_DIED_LOG)
    if unfinished:
        get_logger("mmr.store").warning("job worker died; unfinished channels marked failed",
                                        job=paths.root.name, channels=unfinished)
    return unfinished


def worker_state(paths: JobPaths, job: JobRecord) -> WorkerState | None:
    """``running`` while the lock is held; ``died`` once a sweep converted channels;
    else ``finished``. None for jobs without ``worker.lock``."""
    held = worker_lock_held(paths.worker_lock)
    if held is None:
        return None
    if held:
        return "running"
    if any(entry.reason == WORKER_DIED for entry in job.channels.values()):
        return "died"
    return "finished"
