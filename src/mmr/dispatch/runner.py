"""The fan-out runner behind ``mmr review``: every plan to a settled outcome.

``dispatch_all`` runs the plans in one anyio task group (``ctx.parallel``) or one after
another, in plan order. Each channel's task, start to finish:

1. snapshot the work tree when the channel sets ``assert_clean_tree``;
2. a *round*: one attempt (``attempt.run_attempt``); a ``completed`` reply that matches the
   parser's ``incomplete`` guard is re-dispatched once after the retry delay, and a second
   match is ``failed``/``incomplete``; the reply is then parsed at settle;
3. the channel's ``retry`` policy may start another round from a clean slate;
4. the final round is written once: ``<ch>.log`` (earlier rounds listed first), then the
   terminal status with ``completed_at``, the first round's ``started_at``, ``reason``,
   ``attempts`` (when ≥ 2) and ``telemetry``.

Every task catches its own errors (a failing store write marks that channel ``failed``
and nothing else). Cancellation (Ctrl-C) stops every child group, marks each channel not
yet settled ``failed`` with reason ``interrupted``, and re-raises.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import anyio

from mmr.dispatch import clean_tree
from mmr.dispatch.attempt import run_attempt
from mmr.dispatch.cached import cache_key, remember, replay
from mmr.dispatch.interrupts import interrupt_log, received_signal
from mmr.dispatch.isolation import sweep_once
from mmr.dispatch.plan import ChannelEvent, ChannelOutcome, ChannelPlan, DispatchContext
from mmr.dispatch.retry import INCOMPLETE_LOG, history_line, retry_delay_s, should_retry
from mmr.dispatch.settle import RoundResult, extract, parse_at_settle
from mmr.dispatch.store_io import emit, in_thread, update_status
from mmr.log import get_logger
from mmr.models import ChannelStatus, ParsedOutput
from mmr.parsers import matches_incomplete_guard
from mmr.store.layout import check_channel_name
from mmr.store.records import iso_timestamp

INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class _Final:
    """What gets written when a channel is done."""

    status: ChannelStatus
    reason: str | None = None
    log: str | None = None


async def _round(plan: ChannelPlan, ctx: DispatchContext, runs_before: int) -> RoundResult:
    """One attempt wrapped in the incomplete guard, then parsed at settle."""
    first = await run_attempt(plan, ctx, runs_before + 1)
    if first.raw is None or not matches_incomplete_guard(first.raw, plan.output_parser):
        return parse_at_settle(first, plan.output_parser, runs=1, repo_root=ctx.repo_root)
    await anyio.sleep(retry_delay_s())
    second = replace(await run_attempt(plan, ctx, runs_before + 2), started_at=first.started_at)
    if second.raw is not None and matches_incomplete_guard(second.raw, plan.output_parser):
        return RoundResult("failed", first.started_at, 2, reason="incomplete",
                           log=INCOMPLETE_LOG, raw=second.raw)
    return parse_at_settle(second, plan.output_parser, runs=2, repo_root=ctx.repo_root)


async def _finish(plan: ChannelPlan, ctx: DispatchContext, final: _Final, *, started: float,
                  runs: int = 1, started_at: str | None = None, history: Sequence[str] = (),
                  last: RoundResult | None = None) -> ChannelOutcome:
    """Write the log and the terminal status once, emit the event, build the outcome."""
    log_lines = [*history, final.log] if final.log is not None else list(history)
    if log_lines:
        await in_thread(ctx.store.write_log, ctx.job_id, plan.name, "\n".join(log_lines))
    telemetry = extract(plan.name, last.raw if last else None, plan.channel.telemetry)
    if telemetry is None and last is not None:
        telemetry = last.telemetry
    partial: dict[str, Any] = {
        "status": final.status, "completed_at": iso_timestamp(), "reason": final.reason,
        "attempts": runs if runs >= 2 else None, "telemetry": telemetry,
    }
    if started_at is not None:  # the first round's: elapsed covers every attempt
        partial["started_at"] = started_at
    await update_status(ctx, plan.name, **partial)
    elapsed = time.monotonic() - started
    emit(ctx, ChannelEvent(plan.name, final.status, elapsed, runs, final.reason))
    parsed = last.parsed if last is not None and final.status == "completed" else None
    error = None if final.status == "completed" else final.log
    if final.status == "timeout" and error is None:
        error = f"timed out after {plan.timeout_s:g}s"
    return ChannelOutcome(plan.name, final.status, elapsed, runs, final.reason, error, parsed,
                          telemetry)


async def _run_sharded(plan: ChannelPlan, ctx: DispatchContext) -> ChannelOutcome:
    """Each shard as ``<name>.shard-N`` (its own files, cache entry and retries, outside
    the job's channel list), at most ``shard_concurrency`` at once; the findings of the
    shards that completed become the channel's one reply, and the files of a shard that
    did not are recorded as ``unreviewed_files``."""
    started, started_at = time.monotonic(), iso_timestamp()
    await update_status(ctx, plan.name, status="running", started_at=started_at)
    emit(ctx, ChannelEvent(plan.name, "running"))
    limiter, quiet = anyio.CapacityLimiter(plan.channel.shard_concurrency), replace(
        ctx, on_event=None)
    subs = [replace(plan, name=f"{plan.name}.shard-{i}", prompt=shard.prompt, shards=())
            for i, shard in enumerate(plan.shards, 1)]
    done: dict[str, ChannelOutcome] = {}

    async def one(sub: ChannelPlan) -> None:
        async with limiter:
            await _run_guarded(sub, quiet, done)

    async with anyio.create_task_group() as group:
        for sub in subs:
            group.start_soon(one, sub)
    outcomes = [done[sub.name] for sub in subs]
    replies = [o.parsed for o in outcomes if o.parsed is not None]
    failed = [(s, o) for s, o in zip(plan.shards, outcomes, strict=True) if o.parsed is None]
    unreviewed = list(dict.fromkeys(f for shard, _ in failed for f in shard.files))
    log = "\n".join(f"{o.name}: {o.status} ({o.reason}): {o.error}" for _, o in failed)
    if not replies:
        return await _finish(plan, ctx, _Final(outcomes[0].status, outcomes[0].reason, log),
                             started=started, started_at=started_at)
    merged = ParsedOutput(approved=all(r.approved for r in replies),
                          findings=[f for r in replies for f in r.findings],
                          summary="\n\n".join(r.summary for r in replies if r.summary))
    raw = merged.model_dump_json(exclude_none=True)
    await in_thread(ctx.store.write_channel_output, ctx.job_id, plan.name, raw)
    await update_status(ctx, plan.name, output_parser="default", shards=len(subs),
                        unreviewed_files=unreviewed or None)
    outcome = await _finish(plan, ctx, _Final("completed", log=log or None), started=started,
                            started_at=started_at,
                            last=RoundResult("completed", started_at, 1, raw=raw, parsed=merged))
    return replace(outcome, cached=all(o.cached for o in outcomes))


async def _run_channel(plan: ChannelPlan, ctx: DispatchContext) -> ChannelOutcome:
    if plan.shards:
        return await _run_sharded(plan, ctx)
    started = time.monotonic()
    key = await in_thread(cache_key, plan, ctx)
    cached = await replay(plan, ctx, key) if key is not None else None
    if cached is not None:
        outcome = await _finish(plan, ctx, _Final("completed"), started=started,
                                started_at=cached.started_at, last=cached)
        return replace(outcome, cached=True)
    channel = plan.channel
    before = await in_thread(clean_tree.tree_state, ctx.repo_root) \
        if channel.assert_clean_tree else None
    history: list[str] = []
    runs = 0
    first_started_at: str | None = None
    while True:
        if runs:
            await in_thread(ctx.store.clear_attempt, ctx.job_id, plan.name)
        result = await _round(plan, ctx, runs)
        runs += result.runs
        first_started_at = first_started_at or result.started_at
        if not should_retry(channel.retry, result.status, result.reason, len(history) + 1):
            break
        history.append(history_line(len(history) + 1, result.status, result.reason))
        await anyio.sleep(retry_delay_s(channel.retry.delay_ms if channel.retry else None))
    final = _Final(result.status, result.reason, result.log)
    if before is not None:
        after = await in_thread(clean_tree.tree_state, ctx.repo_root)
        changed = clean_tree.dirt(before, after) if after is not None else []
        if changed:
            final = _Final("failed", clean_tree.DIRTIED_WORKTREE, clean_tree.dirt_log(changed))
    if key is not None and final.status == "completed":
        await remember(plan, ctx, key, result)
    return await _finish(plan, ctx, final, started=started, runs=runs,
                         started_at=first_started_at, history=history, last=result)


async def _run_guarded(plan: ChannelPlan, ctx: DispatchContext,
                       outcomes: dict[str, ChannelOutcome]) -> None:
    """One channel's task: never lets an ordinary error escape into the task group."""
    started = time.monotonic()
    try:
        outcomes[plan.name] = await _run_channel(plan, ctx)
    except Exception as exc:
        get_logger(__name__).exception("dispatch.channel_crashed", channel=plan.name)
        message = f"mmr could not run this channel: {type(exc).__name__}: {exc}"
        try:
            outcomes[plan.name] = await _finish(plan, ctx, _Final("failed", log=message),
                                                started=started)
        except Exception:  # the store itself is failing: report in memory only
            outcomes[plan.name] = ChannelOutcome(plan.name, "failed",
                                                 time.monotonic() - started, error=message)


async def _mark_interrupted(plans: Sequence[ChannelPlan], ctx: DispatchContext,
                            outcomes: dict[str, ChannelOutcome]) -> None:
    log = interrupt_log(received_signal())
    for plan in plans:
        if plan.name in outcomes:
            continue
        try:
            await in_thread(ctx.store.write_log, ctx.job_id, plan.name, log)
            await update_status(ctx, plan.name, status="failed", reason=INTERRUPTED,
                                completed_at=iso_timestamp())
        except Exception:  # best effort on the way out
            get_logger(__name__).exception("dispatch.interrupt_mark_failed", channel=plan.name)
        emit(ctx, ChannelEvent(plan.name, "failed", reason=INTERRUPTED))


async def dispatch_all(plans: Sequence[ChannelPlan],
                       ctx: DispatchContext) -> dict[str, ChannelOutcome]:
    """Dispatch every plan and return its outcome, keyed by channel name in plan order.

    Raises :class:`mmr.store.layout.UnsafeChannelNameError` before anything runs when a
    plan's name is not a safe file name. A cancellation is re-raised after the channels
    still in flight are marked ``failed``/``interrupted``.
    """
    for plan in plans:
        check_channel_name(plan.name)
    sweep_once()
    outcomes: dict[str, ChannelOutcome] = {}
    try:
        if ctx.parallel:
            async with anyio.create_task_group() as group:
                for plan in plans:
                    group.start_soon(_run_guarded, plan, ctx, outcomes)
        else:
            for plan in plans:
                await _run_guarded(plan, ctx, outcomes)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await _mark_interrupted(plans, ctx, outcomes)
        raise
    return {plan.name: outcomes[plan.name] for plan in plans}
