"""Running channels synchronously in a scratch job (``mmr explore`` and the MiniMax wrappers).

These commands reuse the review dispatcher (timeouts, the retry policy, parse at settle,
the clean-tree assertion, telemetry) but keep nothing in ``~/.mmr/jobs``: the job lives in
a directory inside the command's own temporary directory (same layout), which
the caller removes on exit. Also here: the per-run ``vars`` overrides (``--m3``,
``--effort``, ``--max-turns``), the exact argv a channel would get (for dry runs), the
reply text behind a parser's envelope, and the one-line telemetry summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from mmr.config.channel_schema import SubprocessChannel
from mmr.config.loaded import Channel
from mmr.dispatch.interrupts import run_until_interrupted
from mmr.dispatch.placeholders import PlaceholderValues, expand_argv
from mmr.dispatch.plan import ChannelOutcome, ChannelPlan, DispatchContext, EventSink
from mmr.dispatch.runner import dispatch_all
from mmr.formatters.labels import telemetry_parts
from mmr.models import Telemetry
from mmr.parsers.errors import ParseError
from mmr.parsers.specs import ParserSpec, UnwrapJsonpathSpec, coerce_parser_spec
from mmr.parsers.unwrap import unwrap_payload
from mmr.store.jobs import JobStore
from mmr.vocabulary import DEFAULT_FIX_THRESHOLD

#: Context windows below this mean the 1M pin (the ``[1m]`` model suffix) did not take.
ONE_MILLION = 1_000_000


@dataclass(frozen=True)
class ScratchRun:
    """The settled outcomes of a scratch dispatch, and each channel's last raw reply."""

    outcomes: dict[str, ChannelOutcome]
    raw: dict[str, str | None]


def with_vars(channel: Channel, overrides: Mapping[str, object]) -> Channel:
    """``channel`` with ``overrides`` laid over its ``vars`` (a None value drops a flag pair)."""
    if not overrides:
        return channel
    merged: dict[str, Any] = {**(channel.vars or {}), **overrides}
    return channel.model_copy(update={"vars": merged})


def preview_argv(name: str, channel: Channel, *, repo_root: Path,
                 roots: Sequence[Path] | None = None) -> list[str]:
    """The argv ``channel`` would be started with (the neutral directory left as a token)."""
    if not isinstance(channel, SubprocessChannel):
        return [f"<http {channel.endpoint}>"]
    values = PlaceholderValues(channel=name, repo_root=repo_root,
                               roots=None if roots is None else [str(root) for root in roots],
                               vars=channel.vars or {})
    return expand_argv(channel.command or "", channel.flags, values=values)


def run_in_scratch(plans: Sequence[ChannelPlan], *, scratch: Path, repo_root: Path,
                   roots: Sequence[Path] | None = None,
                   on_event: EventSink | None = None) -> ScratchRun:
    """Dispatch ``plans`` in a job under ``scratch`` and wait for every one to settle.

    A SIGINT/SIGTERM stops every child and exits 130/143 (``SystemExit``), as for review.
    """
    store = JobStore(scratch / "jobs")
    job = store.create_job([plan.name for plan in plans], fix_threshold=DEFAULT_FIX_THRESHOLD,
                           format="json", min_completed_channels=1, project_root=repo_root)
    ctx = DispatchContext(job_id=job.job_id, store=store, repo_root=repo_root, on_event=on_event,
                          roots=None if roots is None else tuple(str(root) for root in roots))

    async def work() -> dict[str, ChannelOutcome]:
        return await dispatch_all(plans, ctx)

    outcomes = anyio.run(run_until_interrupted, work)
    raw = {plan.name: store.read_channel_output(job.job_id, plan.name) for plan in plans}
    return ScratchRun(outcomes, raw)


def reply_text(raw: str | None, spec: ParserSpec) -> str | None:
    """The reply behind the parser's envelopes (``$.result``), gates ignored; None if absent.

    Used for what a gate rejected: an explore answer without a citation is still written
    to ``--out``, and the review wrapper tells an ``is_error`` envelope
    (MiniMax failed, exit 2) from a reply whose findings failed the gate (exit 3).
    """
    if raw is None:
        return None
    spec = coerce_parser_spec(spec)
    text = raw
    try:
        while isinstance(spec, UnwrapJsonpathSpec):
            text = unwrap_payload(text, spec)
            spec = spec.then
    except (ParseError, ValueError):
        return None
    return text


def telemetry_line(prefix: str, channel: str, telemetry: Telemetry | None, elapsed_s: float) -> str:
    """``<prefix> <channel>: tokens in 1,234 · out 56 · context 1,000,000 · … · 12.3s``."""
    parts = [*telemetry_parts(telemetry), f"{elapsed_s:.1f}s"]
    return f"{prefix} {channel}: {' · '.join(parts)}"


def context_window_warning(prefix: str, channel: str, telemetry: Telemetry | None) -> str | None:
    """A warning when the reported context window is below 1M (an unknown model id)."""
    window = None if telemetry is None else telemetry.context_window
    if window is None or window >= ONE_MILLION:
        return None
    return (f"{prefix} warning: {channel} ran with a {int(window):,}-token context window, not "
            "1M; the model id may be unknown to the provider (check --m3 / vars.model)")
