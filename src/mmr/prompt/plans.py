"""What each channel is sent: its copy of the diff, its prompt, timeout and parser (ch. 06 §2.1).

The run-wide diff has already been through ``diff_exclude`` and the run's budget. Per
channel, in this order: its own ``max_diff_lines`` (over it: ``skipped``,
``diff_too_large``), its ``on_credentials`` policy (``redact`` gets the redacted copy,
``allow`` the verbatim one, ``refuse`` is ``skipped`` with ``credential_refused`` when an
RM-3 pattern matches or any high-confidence credential was found — name- and entropy-judged
values only redact), then its own ``diff_exclude`` (nothing left: ``skipped``,
``nothing_to_review``). A skipped channel never gets an auth check and is never
compensated. The rest get a :class:`~mmr.dispatch.plan.ChannelPlan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mmr.config.loaded import Channel, LoadedConfig
from mmr.dispatch.findings_schema import (
    coerce_parser_for_schema_flags,
    has_findings_schema_flag,
    substitute_findings_schema,
)
from mmr.dispatch.plan import ChannelPlan
from mmr.prompt.channel_prompt import (
    NOTHING_TO_REVIEW,
    ChannelPromptSpec,
    ChannelSkip,
    PreparedDiff,
    PromptParts,
    channel_prompt,
)
from mmr.secrets.credentials import redaction_warning

__all__ = ["NOTHING_TO_REVIEW", "ChannelSkip", "PlannedChannel", "PreparedDiff", "PromptParts",
           "plan_channel", "plan_channels", "prompt_spec", "redaction_notice"]


@dataclass(frozen=True)
class PlannedChannel:
    """One resolved channel: a plan to dispatch, or the reason it is skipped."""

    name: str
    channel: Channel
    plan: ChannelPlan | None
    skip: ChannelSkip | None = None
    #: Files the channel's own ``diff_exclude`` left out of its copy.
    excluded_files: tuple[str, ...] = ()


def plan_channels(names: Sequence[str], loaded: LoadedConfig, diff: PreparedDiff,
                  parts: PromptParts) -> list[PlannedChannel]:
    """One :class:`PlannedChannel` per resolved channel, in resolution order."""
    planned: list[PlannedChannel] = []
    for name in names:
        channel = loaded.channel(name)
        if channel is None:  # selection already rejected it; keep the loop total
            raise KeyError(name)
        planned.append(plan_channel(name, channel, loaded, diff, parts))
    return planned


def prompt_spec(channel: Channel) -> ChannelPromptSpec:
    """What of ``channel`` decides its prompt, as plain data (the early start keeps it)."""
    return ChannelPromptSpec(
        max_diff_lines=channel.max_diff_lines, on_credentials=channel.on_credentials,
        diff_exclude=tuple(channel.diff_exclude or ()), wrapper=channel.prompt_wrapper)


def plan_channel(name: str, channel: Channel, loaded: LoadedConfig, diff: PreparedDiff,
                 parts: PromptParts) -> PlannedChannel:
    """The plan for one channel, or its skip (checks in the module docstring's order)."""
    built = channel_prompt(name, prompt_spec(channel), diff, parts)
    if built.prompt is None:
        return PlannedChannel(name, channel, None, built.skip, built.excluded_files)
    plan = ChannelPlan(
        name=name,
        channel=_with_schema_flags(channel),
        prompt=built.prompt,
        timeout_s=loaded.timeout_for(name),
        output_parser=coerce_parser_for_schema_flags(channel.output_parser, channel.flags),
    )
    return PlannedChannel(name, channel, plan, None, built.excluded_files)


def _with_schema_flags(channel: Channel) -> Channel:
    """The channel with ``{{findings_schema}}`` substituted in its flags (ch. 03 §9)."""
    if not has_findings_schema_flag(channel.flags):
        return channel
    return channel.model_copy(update={"flags": substitute_findings_schema(channel.flags)})


def redaction_notice(planned: Sequence[PlannedChannel], diff: PreparedDiff) -> str | None:
    """The stderr warning when a channel is about to receive a redacted diff."""
    receives_redacted = any(p.plan is not None and p.channel.on_credentials == "redact"
                            for p in planned)
    if not diff.hits or not receives_redacted:
        return None
    return redaction_warning(len(diff.hits))
