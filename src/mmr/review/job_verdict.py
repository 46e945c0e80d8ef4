"""``mmr results`` and ``mmr reconcile``: a finished job's verdict, again.

Both re-enter the review at "parse": every channel's stored output is parsed, reconciled
and gated afresh (with today's acks, per the job's persisted trust policy), the JSON form
overwrites ``results.json``, and the exit code is the verdict's. A job whose channels are
still running is waited for (``--wait-timeout``), or refused with exit 6 (still running)
under ``--no-wait`` or at the timeout — a fire-and-forget review's worker may still be
writing it — so neither command ever reports a half-finished job.

A job that was interrupted (a channel ``failed`` with reason ``interrupted``: SIGINT or
SIGTERM during the review; or ``worker_died``: its dispatcher was killed, or the store
stopped taking its writes) is not a finished review: where its verdict would exit 0 the
commands exit :data:`INTERRUPTED_JOB_EXIT` (4) with the reason on stderr; the JSON
``verdict`` is left as computed.
"""

from __future__ import annotations

import time
from typing import TextIO

from mmr.errors import MmrError
from mmr.formatters.json import render_json
from mmr.log import stderr_line
from mmr.reconcile.verdict import exit_code
from mmr.review.reconcile_input import external_findings, inject_channel, injected_channel_name
from mmr.review.results import job_results, save_results
from mmr.review.run import HEARTBEAT_S, ReviewOutcome, render_document
from mmr.store.job_status import ChannelsStillRunningError, require_results_ready
from mmr.store.jobs import JobStore
from mmr.store.records import WORKER_DIED, JobRecord
from mmr.vocabulary import EXIT_STILL_RUNNING

#: Exit code of ``results``/``reconcile`` for an interrupted job whose verdict exits 0.
INTERRUPTED_JOB_EXIT = 4


#: How often a waiting ``results``/``reconcile`` looks at the job, and says it still waits.
POLL_S = 0.1
#: The wait of a job created before ``wait_budget_s`` was recorded.
DEFAULT_WAIT_S = 1800.0


class WorkerStillRunningError(MmrError):
    """Every channel has settled but the worker has not finished the job (exit 6)."""

    exit_code = EXIT_STILL_RUNNING


def finished_job(store: JobStore, job_id: str, *, wait: bool = False,
                 wait_timeout: float | None = None) -> JobRecord:
    """The job, once it is finished: exit 5 if missing or a critique job, exit 6
    (``Channels still running: …``) while its channels run or its worker is still at work.

    With ``wait`` it waits while the job's worker is alive — up to ``wait_timeout`` seconds,
    by default the job's own budget (its longest channel timeout, twice, for compensation)
    — with a heartbeat line on stderr every 30 s; scripts written for MMR 4.0.1
    (review, then results) work unchanged. A job whose worker is gone is answered at once.
    """
    started = beat = time.monotonic()
    budget = wait_timeout
    while True:
        try:
            return _finished_now(store, job_id)
        except (ChannelsStillRunningError, WorkerStillRunningError):
            if not wait or store.is_worker_alive(job_id) is not True:
                # The worker may have finished between the two looks: one more.
                if wait:
                    return _finished_now(store, job_id)
                raise
            if budget is None:  # read from job.json once, not at every poll
                budget = _budget(store, job_id)
            now = time.monotonic()
            if now - started >= budget:
                raise
            if now - beat >= HEARTBEAT_S:
                beat = now
                stderr_line(f"[mmr] waiting for job {job_id} ({now - started:.0f}s of "
                            f"{budget:.0f}s; --no-wait answers at once)")
        time.sleep(POLL_S)


def _budget(store: JobStore, job_id: str) -> float:
    budget = store.load(job_id).wait_budget_s
    return float(budget) if budget else DEFAULT_WAIT_S


def _finished_now(store: JobStore, job_id: str) -> JobRecord:
    job = store.load(job_id)
    require_results_ready(job)
    if job.worker_state == "running":
        raise WorkerStillRunningError(
            f"The review worker of job {job_id} is still running (compensating passes or "
            "results)\nWait for completion or use `mmr status` to check progress.")
    return job


def job_verdict(store: JobStore, job_id: str, *, fmt: str | None = None,
                include_raw: bool = False, wait: bool = False,
                wait_timeout: float | None = None, terminal: bool = False) -> ReviewOutcome:
    """``mmr results``: run the results pipeline on the stored outputs, save, render."""
    job = finished_job(store, job_id, wait=wait, wait_timeout=wait_timeout)
    return _verdict(store, job, fmt, include_raw=include_raw, terminal=terminal)


def reconcile_external(store: JobStore, job_id: str, *, channel: str, source: str,
                       fmt: str | None = None, stdin: TextIO | None = None, wait: bool = False,
                       wait_timeout: float | None = None, terminal: bool = False) -> ReviewOutcome:
    """``mmr reconcile``: add ``--input``'s findings as channel ``channel``, then the verdict."""
    job = finished_job(store, job_id, wait=wait, wait_timeout=wait_timeout)
    name = injected_channel_name(channel, job)
    parsed = external_findings(source, stdin)
    inject_channel(store, job_id, name, parsed)
    return _verdict(store, job, fmt, include_raw=False, terminal=terminal)


def _verdict(store: JobStore, job: JobRecord, fmt: str | None, *,
             include_raw: bool, terminal: bool) -> ReviewOutcome:
    results = job_results(store, job.job_id, include_raw=include_raw)
    json_text = render_json(results)  # encoded once: for results.json and a JSON print
    save_results(store, results, json_text)
    # --format, else the format the review chose, else text for a person at a terminal.
    fmt = fmt or job.format or ("text" if terminal else "json")
    document = json_text if fmt == "json" else render_document(results, fmt)
    code = exit_code(results.verdict)
    interrupted = interruption(store, job)
    if interrupted and code == 0:
        stderr_line(f"mmr: warning: job {job.job_id} was interrupted ({interrupted}); "
                    f"its verdict covers only what finished (exit {INTERRUPTED_JOB_EXIT}). "
                    "Run the review again for a complete verdict")
        code = INTERRUPTED_JOB_EXIT
    return ReviewOutcome(document, code, job.job_id)


def interruption(store: JobStore, job: JobRecord) -> str | None:
    """``"<channel>: <log>"`` for the channels a signal or a dead worker stopped, or None."""
    reasons = []
    for name, entry in job.channels.items():
        if entry.reason in ("interrupted", WORKER_DIED):
            log = (store.read_log(job.job_id, name) or "").strip().splitlines()
            reasons.append(f"{name}: {log[-1] if log else entry.reason}")
    return ", ".join(reasons) or None
