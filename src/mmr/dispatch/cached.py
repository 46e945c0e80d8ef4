"""The review cache at dispatch: a reply reused instead of a run, and a good reply kept.

Only a channel's own pass is cached, never a compensating one; only a ``completed`` reply
that parsed is stored. A reused reply is written to the job exactly as a run's would be,
and its status says ``cached: true`` and ``cached_from: <job id>``, so the results
pipeline, every format and ``mmr results`` later treat it as that channel's reply — the
same reviewer as before, never one more independent voice.
"""

from __future__ import annotations

import contextlib

from pydantic import ValidationError

from mmr import __version__
from mmr.cache.key import executable_identity, review_cache_key
from mmr.dispatch.attempt import AttemptResult
from mmr.dispatch.auth import install_token
from mmr.dispatch.plan import ChannelPlan, DispatchContext
from mmr.dispatch.settle import RoundResult, parse_at_settle
from mmr.dispatch.store_io import in_thread, update_status
from mmr.models import Telemetry
from mmr.secrets.credentials import redact_credentials
from mmr.store.records import iso_timestamp


def cache_key(plan: ChannelPlan, ctx: DispatchContext) -> str | None:
    """The plan's key, or None when nothing may be cached for it."""
    if ctx.cache is None or not ctx.cache.enabled or plan.compensator is not None:
        return None
    channel = plan.channel
    command = getattr(channel, "command", None)
    token = install_token(command) if isinstance(command, str) else ""  # quotes honoured
    parser = plan.output_parser
    return review_cache_key(
        channel=channel.model_dump(mode="json"), prompt=plan.prompt,
        parser={"kind": parser} if isinstance(parser, str) else parser.model_dump(mode="json"),
        executable=executable_identity(token) if token else None, mmr_version=__version__,
        served_model=plan.served_model)


async def replay(plan: ChannelPlan, ctx: DispatchContext, key: str) -> RoundResult | None:
    """The cached reply as this run's round, written to the job; None on a miss."""
    if ctx.cache is None:
        return None
    hit = await in_thread(ctx.cache.get, key)
    if hit is None:
        return None
    started_at = iso_timestamp()
    telemetry = None
    with contextlib.suppress(ValidationError):  # a damaged entry's figures are left out
        telemetry = Telemetry.model_validate(hit.telemetry) if hit.telemetry else None
    result = parse_at_settle(AttemptResult("completed", started_at, raw=hit.output,
                                           telemetry=telemetry),
                             plan.output_parser, runs=1, repo_root=ctx.repo_root)
    if result.parsed is None:  # a parser change the key did not see: run it for real
        return None
    await in_thread(ctx.store.write_channel_output, ctx.job_id, plan.name, hit.output)
    await update_status(ctx, plan.name, output_parser=plan.output_parser, cached=True,
                        cached_from=hit.job_id)
    return result


async def remember(plan: ChannelPlan, ctx: DispatchContext, key: str, result: RoundResult) -> None:
    """Keep a completed, parsed reply for the next identical run."""
    if ctx.cache is None or result.status != "completed" or result.parsed is None \
            or result.raw is None:
        return
    await in_thread(ctx.cache.put, key, channel=plan.name,
                    output=redact_credentials(result.raw)[0], job_id=ctx.job_id,
                    telemetry=result.telemetry and result.telemetry.model_dump())
