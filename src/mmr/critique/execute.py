"""The part of ``mmr critique`` that has a job (steps 11-15 of :mod:`mmr.critique.pipeline`).

Create the job (``kind: critique``, so ``mmr results`` refuses it), record the channels
that failed the pre-flight, dispatch the rest, read each reply, reconcile, run the
synthesis pass when it is eligible, append the session round, and save the report as the
job's results. Nothing here can make the critique fail: a channel that fails is reported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import anyio

from mmr.config.loaded import LoadedConfig
from mmr.critique.context import RepoContext
from mmr.critique.input import Artifact
from mmr.critique.models import (
    ChannelEntry,
    CritiqueReport,
    ParsedCritique,
    ReconciledItem,
    SynthesisResult,
)
from mmr.critique.parser import parse_critique_reply
from mmr.critique.plans import plan_critique
from mmr.critique.reconcile import reconcile_items
from mmr.critique.report import RoundInfo, build_report
from mmr.critique.request import CritiqueRequest
from mmr.critique.session import (
    CritiqueSessionStore,
    SessionRound,
    critique_sessions_dir,
    round_items,
)
from mmr.critique.synthesis import (
    SYNTHESIS_CHANNEL,
    SYNTHESIZER,
    parse_synthesis,
    skip_reason,
    synthesis_prompt,
    synthesizer_channel,
)
from mmr.dispatch.auth import auth_status_to_channel_status, check_channel_async, gate_update
from mmr.dispatch.interrupts import run_until_interrupted
from mmr.dispatch.plan import AuthResult, ChannelOutcome, ChannelPlan, DispatchContext
from mmr.dispatch.runner import dispatch_all
from mmr.dispatch.store_io import in_thread
from mmr.log import get_logger
from mmr.models import TrustMode
from mmr.review.run import Progress
from mmr.store.jobs import JobStore
from mmr.store.records import ChannelJobEntry
from mmr.vocabulary import DEFAULT_FIX_THRESHOLD


@dataclass(frozen=True)
class CritiqueSetup:
    """Everything decided before the job exists."""

    request: CritiqueRequest
    loaded: LoadedConfig
    trust_mode: TrustMode
    project_root: Path
    artifact: Artifact
    plans: Mapping[str, ChannelPlan]  #: every resolved channel, in resolution order
    base_prompt: str
    context: RepoContext | None
    lenses: tuple[str, ...]
    session: RoundInfo | None


def gate_entry(result: AuthResult) -> ChannelEntry:
    """``per_channel`` of a channel that did not pass the pre-flight."""
    return ChannelEntry(status=auth_status_to_channel_status(result), item_count=0,
                        recovery=result.recovery or None)


def create_critique_job(setup: CritiqueSetup, store: JobStore,
                        gate: Mapping[str, AuthResult]) -> str:
    """Step 11: the job with every resolved channel, the lens-free prompt, the gate's verdicts."""
    record = store.create_job(
        # The threshold is recorded in the job; no gate reads it (a critique has none).
        list(setup.plans), fix_threshold=DEFAULT_FIX_THRESHOLD,
        format=setup.request.output_format,
        min_completed_channels=setup.loaded.defaults.min_completed_channels, kind="critique",
        session_id=None if setup.session is None else setup.session.session_id,
        round=None if setup.session is None else setup.session.round,
        trust_mode=setup.trust_mode, project_root=setup.project_root,
    )
    store.write_prompt(record.job_id, setup.base_prompt)
    for name, result in gate.items():
        if result.status != "ok":
            store.update_channel(record.job_id, name, **gate_update(result))
    return record.job_id


def reply_text(outcome: ChannelOutcome, store: JobStore, job_id: str) -> str | None:
    """A completed channel's reply as its parser left it, else the saved output."""
    if outcome.parsed is not None:
        return outcome.parsed.summary
    return store.read_channel_output(job_id, outcome.name)


async def synthesize(setup: CritiqueSetup, items: Sequence[ReconciledItem], completed: int,
                     ctx: DispatchContext) -> SynthesisResult:
    """The synthesis pass when eligible (module :mod:`mmr.critique.synthesis`); never raises."""
    log = get_logger(__name__)
    channel = synthesizer_channel(setup.loaded.config)
    reason = skip_reason(requested=setup.request.synthesis, items=len(items),
                         completed=completed, channel=channel)
    if reason is not None or channel is None:
        log.info("critique.synthesis_skipped", reason=reason)
        return SynthesisResult()
    try:
        auth = await check_channel_async(SYNTHESIZER, channel)
        if auth.status != "ok":
            log.info("critique.synthesis_skipped", reason=f"{SYNTHESIZER}: {auth.status}")
            return SynthesisResult()
        plan = plan_critique(SYNTHESIS_CHANNEL, channel, setup.loaded,
                             synthesis_prompt(items), config_name=SYNTHESIZER)
        await in_thread(ctx.store.register_channel, ctx.job_id, SYNTHESIS_CHANNEL,
                        ChannelJobEntry(status="dispatched"))
        outcome = (await dispatch_all([plan], ctx))[SYNTHESIS_CHANNEL]
    except Exception:
        log.exception("critique.synthesis_failed")
        return SynthesisResult()
    if outcome.status != "completed":
        return SynthesisResult()
    return parse_synthesis(reply_text(outcome, ctx.store, ctx.job_id))


@dataclass
class _Run:
    """What the dispatch produced, filled in inside the event loop."""

    outcomes: dict[str, ChannelOutcome]
    replies: dict[str, ParsedCritique]
    items: list[ReconciledItem]
    synthesis: SynthesisResult


def run_critique_job(setup: CritiqueSetup, store: JobStore, job_id: str,
                     gate: Mapping[str, AuthResult], *, progress: Progress | None = None,
                     notice: Callable[[str], None] | None = None) -> CritiqueReport:
    """Steps 12-15: dispatch, parse, reconcile, synthesise, append the round, save."""
    started = time.monotonic()
    passing = [plan for name, plan in setup.plans.items() if gate[name].status == "ok"]
    ctx = DispatchContext(job_id=job_id, store=store, repo_root=setup.project_root,
                          parallel=setup.loaded.defaults.parallel, on_event=progress)

    async def work() -> _Run:
        outcomes = await dispatch_all(passing, ctx) if passing else {}
        replies = {name: parse_critique_reply(reply_text(outcome, store, job_id))
                   for name, outcome in outcomes.items() if outcome.status == "completed"}
        items = reconcile_items({name: reply.items for name, reply in replies.items()})
        synthesis = await synthesize(setup, items, len(replies), ctx)
        return _Run(outcomes, replies, items, synthesis)

    showing = progress.showing(list(setup.plans)) if progress else nullcontext()
    with store.acquire_worker_lock(job_id), showing:
        run = anyio.run(run_until_interrupted, work)
    report = build_report(job_id=job_id, source=setup.artifact.source, items=run.items,
                          per_channel=_per_channel(setup, gate, run), dispatched=len(passing),
                          completed=len(run.replies), elapsed_s=time.monotonic() - started,
                          context=setup.context, lenses=setup.lenses, synthesis=run.synthesis,
                          session=setup.session)
    if setup.session is not None and run.replies:
        CritiqueSessionStore(critique_sessions_dir(), warn=notice).append(
            setup.session.session_id,
            SessionRound(round=setup.session.round, artifact_source=setup.artifact.source,
                         items=round_items(run.items)))
    store.write_results(job_id, report.to_json_dict())
    return report


def _per_channel(setup: CritiqueSetup, gate: Mapping[str, AuthResult],
                 run: _Run) -> dict[str, ChannelEntry]:
    entries: dict[str, ChannelEntry] = {}
    for name in setup.plans:
        outcome = run.outcomes.get(name)
        reply = run.replies.get(name)
        if outcome is None:
            entries[name] = gate_entry(gate[name])
        elif reply is not None:
            entries[name] = ChannelEntry(status="completed", item_count=len(reply.items),
                                         summary=reply.summary)
        else:
            entries[name] = ChannelEntry(status=outcome.status, item_count=0, reason=outcome.reason)
    return entries
