"""The part of ``mmr review`` that has a job: create it, gate, dispatch, compensate, report.

:func:`run_sync_review` is ``--sync``;
:func:`start_review_job` is the default (fire-and-forget) mode: it creates the job and
hands its :class:`~mmr.review.run.JobPlan` to a detached worker (:mod:`mmr.review.worker`).
Both share :func:`create_review_job` (the foreground part) and
:func:`run_job` (the worker's part), so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from mmr.cache.store import ReviewCache, open_review_cache
from mmr.config.paths import jobs_dir, mmr_home, sessions_dir
from mmr.config.schema import CacheConfig
from mmr.dispatch.auth import gate_update
from mmr.dispatch.interrupts import run_until_interrupted
from mmr.dispatch.plan import ChannelEvent, ChannelPlan, DispatchContext
from mmr.dispatch.runner import dispatch_all
from mmr.dispatch.versions import record_cli_versions_async
from mmr.dispatch.workspace import export_workspace, uses_workspace
from mmr.errors import MmrError
from mmr.formatters.json import dumps
from mmr.models import ReconciledResults
from mmr.reconcile.verdict import exit_code
from mmr.review.compensate import plan_compensation, run_compensation
from mmr.review.incremental import record_pull_review
from mmr.review.launch import start_worker
from mmr.review.preflight import GateResult, no_channel_passed_message
from mmr.review.results import (
    job_results,
    save_results,
    save_secret_findings,
)
from mmr.review.run import (
    JobPlan,
    Progress,
    ReviewIO,
    ReviewOutcome,
    ReviewSetup,
    render_document,
)
from mmr.review.voices import channel_voices
from mmr.store.held import holding
from mmr.store.jobs import JobStore
from mmr.store.layout import COMPENSATING_PREFIX
from mmr.store.pulls import PULL_STATE, write_stored
from mmr.store.records import JobRecord, ReviewControls, derive_job_status
from mmr.store.sessions import SessionStore, link_review_job


def wait_budget(setup: ReviewSetup) -> float:
    """How long ``results`` waits for this job: its longest channel, then a compensating
    pass as long again, and a minute of slack."""
    timeouts = [p.plan.timeout_s for p in setup.planned if p.plan is not None]
    return 2 * max(timeouts, default=float(setup.loaded.defaults.timeout)) + 60


def create_review_job(setup: ReviewSetup, store: JobStore) -> str:
    """The job (every channel ``dispatched``), its session link, prompt and diff."""
    request, loaded, trust = setup.request, setup.loaded, setup.trust
    record = store.create_job(
        setup.channel_names,
        fix_threshold=loaded.defaults.fix_threshold,
        format=loaded.chosen_format(),
        min_completed_channels=loaded.defaults.min_completed_channels,
        session_id=request.session,
        round=request.round if request.round is not None else (1 if request.session else None),
        review_controls=ReviewControls.model_validate(trust.review_controls(setup.max_rounds)),
        trust_mode=trust.mode,
        proposed_acks=list(setup.proposed.ack_files_changed) or None,
        proposed_config_change=True if setup.proposed.config_file_changed else None,
        project_root=trust.project_root,
        outside_diff_findings=loaded.defaults.outside_diff_findings,
        excluded_files=list(setup.excluded_files),
        wait_budget_s=wait_budget(setup),
        reconcile=loaded.defaults.reconcile,
        voices=channel_voices(setup.planned),
    )
    job_id = record.job_id
    if request.session is not None:
        link_review_job(SessionStore(sessions_dir()), request.session, job_id, request.round,
                        discard_job=store.delete_job)
    store.write_prompt(job_id, setup.base_prompt)
    store.write_diff(job_id, setup.prepared.redacted)
    if setup.secret_findings:
        save_secret_findings(store, job_id, setup.secret_findings)
    if setup.pull is not None:
        write_stored(store.existing(job_id).root / PULL_STATE, setup.pull)
    return job_id


def record_gate_results(store: JobStore, job_id: str, gate: Sequence[GateResult],
                        progress: Progress | None) -> None:
    """Each channel that will not be dispatched gets its status."""
    for result in gate:
        planned = result.planned
        if planned.excluded_files or planned.summarised_files:
            store.update_channel(job_id, result.name,
                                 excluded_files=list(planned.excluded_files) or None,
                                 summarised_files=list(planned.summarised_files) or None)
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


#: How long a finished dispatch waits for the ``--version`` probes still running beside it.
VERSION_GRACE_S = 0.5


def review_cache(config: CacheConfig) -> ReviewCache | None:
    """The review cache ``defaults.cache`` describes; None when it is off."""
    if not config.max_age > 0:
        return None
    return open_review_cache(mmr_home(), max_age_days=float(config.max_age),
                             max_size_mb=config.max_size_mb)


def dispatch_job(job_plan: JobPlan, store: JobStore, job_id: str, gate: Sequence[GateResult],
                 io: ReviewIO) -> None:
    """Dispatch the channels that passed, then the compensating passes, in
    the review workspace when a channel runs in one (removed when the dispatch ends)."""
    plans = [replace(r.planned.plan, served_model=r.auth.served_model if r.auth else None)
             for r in gate if r.passed and r.planned.plan is not None]
    workspace = None
    if job_plan.workspace is not None and any(uses_workspace(p.channel) for p in plans):
        workspace = export_workspace(job_plan.workspace, trusted_ref=job_plan.trusted_ref,
                                     cache_dir=mmr_home() / "cache" / "workspace")
    try:
        _dispatch(job_plan, store, job_id, plans, io,
                  workspace=None if workspace is None else workspace.root)
    finally:
        if workspace is not None:
            workspace.cleanup()


def _dispatch(job_plan: JobPlan, store: JobStore, job_id: str, plans: list[ChannelPlan],
              io: ReviewIO, *, workspace: Path | None) -> None:
    ctx = DispatchContext(job_id=job_id, store=store, repo_root=job_plan.project_root,
                          parallel=job_plan.loaded.defaults.parallel, on_event=io.progress,
                          cache=review_cache(job_plan.loaded.defaults.cache), workspace=workspace)

    async def work() -> list[str]:
        versions_recorded = anyio.Event()

        async def record_versions() -> None:
            await record_cli_versions_async(store, job_id, {p.name: p.channel for p in plans})
            versions_recorded.set()

        async with anyio.create_task_group() as group:
            # Which CLI versions reviewed this job, probed beside the dispatch (no wall time).
            group.start_soon(record_versions)
            outcomes = await dispatch_all(plans, ctx) if plans else {}
            # Every reply came from the cache: no CLI ran, so no version is worth a wait.
            if not outcomes or not all(o.cached for o in outcomes.values()):
                with anyio.move_on_after(VERSION_GRACE_S):
                    await versions_recorded.wait()
            group.cancel_scope.cancel()  # a CLI slow to say its version never delays a review

        job = store.load(job_id)  # compensation is decided from the statuses on disk
        resolved = {name: job.channels[name] for name in job_plan.channel_names}
        passes = plan_compensation(
            {name: entry.status for name, entry in resolved.items()}, job_plan.loaded,
            compensate_missing=job_plan.compensate_missing,
            required={p.name: bool(p.channel.required) for p in job_plan.planned},
            reasons={name: entry.reason for name, entry in resolved.items()},
        )
        _, notices = await run_compensation(passes, base_prompt=job_plan.base_prompt,
                                            config=job_plan.loaded, ctx=ctx)
        return notices

    showing = io.progress.showing(job_plan.channel_names) if io.progress else nullcontext()
    with showing:
        notices = anyio.run(run_until_interrupted, work)
    io.notice_all(notices)


def run_job(plan: JobPlan, store: JobStore, job_id: str, gate: Sequence[GateResult],
            io: ReviewIO, *, gated: Callable[[], None] | None = None) -> ReconciledResults:
    """The worker's part after the pre-flight: statuses, dispatch, compensation, and the
    results pipeline (written to ``results.json``).

    The caller holds the job's ``worker.lock`` throughout, results included,
    so ``mmr reconcile`` cannot slip a channel in before this run's ``results.json`` lands.
    ``gated`` runs once the gate statuses are on disk, before anything is dispatched.
    """
    # A write the store refuses from here on is held in memory: the verdict is still built.
    held = None
    try:
        with holding(store.existing(job_id).root) as held:
            record_gate_results(store, job_id, gate, io.progress)
            if gated is not None:
                gated()
            dispatch_job(plan, store, job_id, gate, io)
            results = job_results(store, job_id, warn=io.notice)
            save_results(store, results, warn=io.notice)
            record_pull_review(store.existing(job_id).root, results,
                               plan.loaded.defaults.min_completed_channels, io.notice)
    finally:  # the hold wrote its files back on the way out; an interrupted run says so too
        if held is not None:
            held.report(io.notice, store.reported_unsaved)
    return results


def run_sync_review(setup: ReviewSetup, gate: Sequence[GateResult], io: ReviewIO) -> ReviewOutcome:
    """``--sync``: the job run in the foreground; exit with the verdict's code."""
    if not any(r.passed for r in gate):
        raise MmrError(no_channel_passed_message(gate))
    store = JobStore(jobs_dir())
    job_id = create_review_job(setup, store)
    with store.acquire_worker_lock(job_id):
        results = run_job(setup.job_plan(), store, job_id, gate, io)
    document = render_document(results, setup.loaded.defaults.format)
    return ReviewOutcome(document, exit_code(results.verdict), job_id)


def start_review_job(setup: ReviewSetup, io: ReviewIO) -> ReviewOutcome:
    """Default mode: create the job, start its detached worker, print the dispatch summary
    at once and exit 0. The worker runs the gate, dispatch, compensation and
    the results pipeline; ``mmr status``/``mmr results`` follow it."""
    store = JobStore(jobs_dir())
    job_id = create_review_job(setup, store)
    job = store.load(job_id)  # every channel still `dispatched`: what the summary shows
    worker = start_worker(store, job_id, setup.job_plan(), cwd=io.cwd)
    # The worker reports its install + auth gate before it dispatches, so the summary
    # never calls a channel that cannot run `dispatched`.
    not_dispatched = worker.gate_report(gate_wait_budget(setup))
    if not_dispatched is None:
        io.notice(f"[mmr] warning: the review worker did not report its install + auth check; "
                  f"`mmr status {job_id}` shows which channels were dispatched.")
    summary = dispatch_summary(job, setup, not_dispatched or [], worker_pid=worker.pid)
    return ReviewOutcome(dumps(summary), 0, job_id)


def gate_wait_budget(setup: ReviewSetup) -> float:
    """How long the summary waits for the worker's gate: every auth check timing out twice
    (the one retry of a timed-out check), and half a minute for the worker to start."""
    timeouts = [float(p.channel.auth.timeout) for p in setup.planned
                if p.plan is not None and p.channel.auth is not None]
    return 2 * max(timeouts, default=0.0) + 30.0


def dispatch_summary(job: JobRecord, setup: ReviewSetup, not_dispatched: Sequence[dict[str, str]],
                     worker_pid: int | None = None) -> dict[str, Any]:
    """The default-mode summary, keys in MMR 4.0.1's order.

    ``channels`` and ``valid_channels`` mean what MMR 4.0.1's do; a channel the gate
    stopped shows its gate status and is listed (mmr, additive) under ``not_dispatched``."""
    gated = {entry["channel"]: entry["status"] for entry in not_dispatched}
    channels = {name: gated.get(name, entry.status) for name, entry in job.channels.items()
                if not name.startswith(COMPENSATING_PREFIX)}
    summary: dict[str, Any] = {
        "job_id": job.job_id,
        "status": derive_job_status(channels.values()),
        "trust_mode": setup.trust.mode,
        "channels": channels,
        "valid_channels": [name for name in setup.channel_names if name not in gated],
        **setup.proposed.job_fields(),
    }
    if not_dispatched:
        summary["not_dispatched"] = list(not_dispatched)
    if worker_pid is not None:
        summary["worker_pid"] = worker_pid
    return summary
