"""The part of ``mmr review`` that has a job: create it, gate, dispatch, compensate, report.

Steps 19–26 of spec ch. 05 §2.2. :func:`run_sync_review` is ``--sync``;
:func:`start_review_job` is the default (fire-and-forget) mode, where the detached worker
of §2.9 will plug in. Both share :func:`create_review_job` (the foreground part) and
:func:`run_job` (the worker's part), so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

from mmr.config.paths import jobs_dir, sessions_dir
from mmr.dispatch.auth import gate_update
from mmr.dispatch.plan import ChannelEvent, DispatchContext
from mmr.errors import MmrError
from mmr.models import ReconciledResults
from mmr.review.preflight import GateResult, no_channel_passed_message, run_preflight
from mmr.review.results import job_results, results_exit_code, save_results, save_secret_findings
from mmr.review.run import Progress, ReviewIO, ReviewOutcome, ReviewSetup, render_document
from mmr.store.jobs import JobStore
from mmr.store.layout import COMPENSATING_PREFIX
from mmr.store.records import JobRecord, ReviewControls


def create_review_job(setup: ReviewSetup, store: JobStore) -> str:
    """Steps 20, 21, 23: the job (every channel ``dispatched``), its session, prompt and diff."""
    request, loaded, trust = setup.request, setup.loaded, setup.trust
    record = store.create_job(
        setup.channel_names,
        fix_threshold=loaded.defaults.fix_threshold,
        format=loaded.defaults.format,
        min_completed_channels=loaded.defaults.min_completed_channels,
        session_id=request.session,
        round=request.round if request.round is not None else (1 if request.session else None),
        review_controls=ReviewControls.model_validate(trust.review_controls(setup.max_rounds)),
        trust_mode=trust.mode,
        proposed_acks=list(setup.proposed.ack_files_changed) or None,
        proposed_config_change=True if setup.proposed.config_file_changed else None,
        project_root=trust.project_root,
    )
    job_id = record.job_id
    if request.session is not None:
        from mmr.store.sessions import SessionStore, link_review_job

        link_review_job(SessionStore(sessions_dir()), request.session, job_id, request.round,
                        discard_job=store.delete_job)
    store.write_prompt(job_id, setup.base_prompt)
    store.write_diff(job_id, setup.prepared.redacted)
    save_secret_findings(store, job_id, setup.secret_findings)
    return job_id


def record_gate_results(store: JobStore, job_id: str, gate: Sequence[GateResult],
                        progress: Progress | None) -> None:
    """Step 22: each channel that will not be dispatched gets its status (ch. 02 §4.5)."""
    for result in gate:
        planned = result.planned
        if planned.excluded_files:
            store.update_channel(job_id, result.name, excluded_files=list(planned.excluded_files))
        if result.passed:
            continue
        if planned.skip is not None:
            store.update_channel(job_id, result.name, status="skipped", auth="skipped",
                                 reason=planned.skip.reason)
            store.write_log(job_id, result.name, planned.skip.message)
        elif result.auth is not None:
            store.update_channel(job_id, result.name, **gate_update(result.auth))
        if progress is not None:
            progress(ChannelEvent(result.name, result.channel_status,
                                  reason=planned.skip.reason if planned.skip else None))


def dispatch_job(setup: ReviewSetup, store: JobStore, job_id: str, gate: Sequence[GateResult],
                 io: ReviewIO) -> None:
    """Steps 24–25: dispatch the channels that passed, then the compensating passes."""
    import anyio

    from mmr.dispatch.compensate import plan_compensation, run_compensation
    from mmr.dispatch.interrupts import run_until_interrupted
    from mmr.dispatch.runner import dispatch_all

    plans = [r.planned.plan for r in gate if r.passed and r.planned.plan is not None]
    ctx = DispatchContext(job_id=job_id, store=store, repo_root=setup.trust.project_root,
                          parallel=setup.loaded.defaults.parallel, on_event=io.progress)

    async def work() -> list[str]:
        if plans:
            await dispatch_all(plans, ctx)
        job = store.load(job_id)  # compensation is decided from the statuses on disk
        resolved = {name: job.channels[name] for name in setup.channel_names}
        passes = plan_compensation(
            {name: entry.status for name, entry in resolved.items()}, setup.loaded,
            compensate_missing=setup.request.compensate_missing,
            required={p.name: bool(p.channel.required) for p in setup.planned},
            reasons={name: entry.reason for name, entry in resolved.items()},
        )
        _, notices = await run_compensation(passes, base_prompt=setup.base_prompt,
                                            config=setup.loaded, ctx=ctx)
        return notices

    showing = io.progress.showing(setup.channel_names) if io.progress else nullcontext()
    with store.acquire_worker_lock(job_id), showing:
        notices = anyio.run(run_until_interrupted, work)
    io.notice_all(notices)


def run_job(setup: ReviewSetup, store: JobStore, job_id: str, gate: Sequence[GateResult],
            io: ReviewIO) -> ReconciledResults:
    """The worker's part after the pre-flight: statuses, dispatch, compensation, and the
    results pipeline (written to ``results.json``)."""
    record_gate_results(store, job_id, gate, io.progress)                    # 22
    dispatch_job(setup, store, job_id, gate, io)                             # 24, 25
    results = job_results(store, job_id, warn=io.notice)                     # 26
    save_results(store, results)
    return results


def run_sync_review(setup: ReviewSetup, gate: Sequence[GateResult],
                    io: ReviewIO) -> ReviewOutcome:
    """``--sync``: steps 19–26 in the foreground; exit with the verdict's code."""
    if not any(r.passed for r in gate):
        raise MmrError(no_channel_passed_message(gate))                     # 19
    store = JobStore(jobs_dir())
    job_id = create_review_job(setup, store)                                 # 20, 21, 23
    results = run_job(setup, store, job_id, gate, io)
    document = render_document(results, setup.loaded.defaults.format)
    return ReviewOutcome(document, results_exit_code(results), job_id)


def start_review_job(setup: ReviewSetup, io: ReviewIO) -> ReviewOutcome:
    """Default mode: create the job, hand it to the worker, print the dispatch summary, exit 0.

    The detached worker (ch. 05 §2.9) is the next step: it will receive ``setup`` as its
    run plan and call :func:`run_job`. Until then the job runs here, in this process, and
    the summary shows each channel's final status (the reference's behaviour).
    """
    from mmr.formatters.json import dumps

    store = JobStore(jobs_dir())
    job_id = create_review_job(setup, store)
    gate = run_preflight(setup.planned, parallel=setup.loaded.defaults.parallel)
    if not any(r.passed for r in gate):
        io.notice(no_channel_passed_message(gate))
    run_job(setup, store, job_id, gate, io)
    summary = dispatch_summary(store.load(job_id), setup, [r.name for r in gate if r.passed])
    return ReviewOutcome(dumps(summary), 0, job_id)


def dispatch_summary(job: JobRecord, setup: ReviewSetup, valid_channels: Sequence[str],
                     worker_pid: int | None = None) -> dict[str, Any]:
    """The default-mode summary (ch. 04 §6.2), keys in the reference's order."""
    summary: dict[str, Any] = {
        "job_id": job.job_id,
        "status": job.status,
        "trust_mode": setup.trust.mode,
        "channels": {name: entry.status for name, entry in job.channels.items()
                     if not name.startswith(COMPENSATING_PREFIX)},
        "valid_channels": list(valid_channels),
        **setup.proposed.job_fields(),
    }
    if worker_pid is not None:
        summary["worker_pid"] = worker_pid
    return summary
