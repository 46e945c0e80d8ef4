"""What each channel is sent: its copy of the diff, its prompt, timeout and parser.

The run-wide diff has already been through ``diff_exclude`` and the run's budget; each
channel's own limits then skip it or cut its copy (:func:`plan_channel`, in MMR 4.0.1's
order). A skipped channel never gets an auth check and is never compensated.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from mmr.config.channel_schema import HttpChannel
from mmr.config.loaded import Channel, LoadedConfig
from mmr.config.wrapper import resolve_prompt_wrapper
from mmr.diff.generated import GeneratedFile
from mmr.diff.shards import estimate_tokens, shard_diff
from mmr.dispatch.findings_schema import coerce_parser_for_schema_flags
from mmr.dispatch.http_context import server_context
from mmr.dispatch.plan import ChannelPlan, ShardPlan
from mmr.dispatch.workspace import WORKSPACE_NOTE, uses_workspace
from mmr.prompt.assemble import apply_wrapper, assemble_prompt, diff_fence
from mmr.secrets.credentials import (
    REFUSAL_MESSAGE,
    CredentialHit,
    redact_diff,
    redaction_warning,
    refusable,
)
from mmr.unidiff.sections import exclude_files, exclude_sections, normalize_pattern, split_sections

NOTHING_TO_REVIEW = "nothing left to review after the channel's diff_exclude"
SUMMARISED_NOTE = "## Summarised Files\nGenerated, vendored or lock files changed, not shown:"
#: Shards are cut to this share of the budget: the estimate errs by up to about a tenth.
SHARD_FILL = 0.9
#: A prompt this small fits any server (2,048 tokens of context or more): none is asked.
ASK_ABOVE_TOKENS = 1024


@dataclass(frozen=True)
class PreparedDiff:
    """The run's diff (after the run-wide ``diff_exclude``) and its redacted copy."""

    text: str
    redacted: str
    hits: tuple[CredentialHit, ...]
    line_count: int
    refusable: bool

    @classmethod
    def prepare(cls, text: str, line_count: int) -> PreparedDiff:
        redacted, hits = redact_diff(text)
        return cls(text=text, redacted=redacted, hits=tuple(hits), line_count=line_count,
                   refusable=refusable(text, hits))


@dataclass(frozen=True)
class PromptParts:
    """The prompt layers every channel shares; only the diff and the wrapper differ."""

    review_criteria: tuple[str, ...] = ()
    template_criteria: tuple[str, ...] = ()
    focus: str | None = None
    #: The review has a workspace: a channel that runs in it is told so.
    workspace: bool = False
    #: The ``## Incremental Review`` section of a follow-up ``--pr`` review.
    incremental: str | None = None

    #: Generated, vendored and lock files: named in every prompt, never sent.
    generated: tuple[GeneratedFile, ...] = ()

    def assemble(self, diff: str, notes: Sequence[str] = ()) -> str:
        """The unwrapped prompt for ``diff``: core prompt, criteria, focus, notes, the diff."""
        if self.incremental:  # a follow-up review of a pull request: what the diff leaves out
            notes = (self.incremental, *notes)
        return assemble_prompt(diff, review_criteria=self.review_criteria,
                               template_criteria=self.template_criteria, focus=self.focus,
                               notes=notes)


@dataclass(frozen=True)
class ChannelSkip:
    """Why a channel is ``skipped`` before any check: a reason MMR 4.0.1 also reports, its text."""

    reason: str
    message: str


@dataclass(frozen=True)
class PlannedChannel:
    """One resolved channel: a plan to dispatch, or the reason it is skipped."""

    name: str
    channel: Channel
    plan: ChannelPlan | None
    skip: ChannelSkip | None = None
    #: Files the channel's own ``diff_exclude`` left out of its copy.
    excluded_files: tuple[str, ...] = ()
    #: Generated files named in its prompt instead of sent.
    summarised_files: tuple[str, ...] = ()


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


def plan_channel(name: str, channel: Channel, loaded: LoadedConfig, diff: PreparedDiff,
                 parts: PromptParts) -> PlannedChannel:
    """The plan for one channel, or its skip: over its ``max_diff_lines``
    (``diff_too_large``), ``on_credentials: refuse`` and a diff :func:`refusable` flags
    (``credential_refused``; ``redact`` gets the redacted copy, ``allow`` the verbatim
    one), nothing left after its ``diff_exclude`` (``nothing_to_review``)."""
    budget = channel.max_diff_lines
    if budget is not None and diff.line_count > budget:
        message = f"diff too large: {diff.line_count} lines > {budget}"
        return PlannedChannel(name, channel, None, ChannelSkip("diff_too_large", message))
    if channel.on_credentials == "refuse" and diff.refusable:
        return PlannedChannel(name, channel, None,
                              ChannelSkip("credential_refused", REFUSAL_MESSAGE))
    text = diff.text if channel.on_credentials == "allow" else diff.redacted
    patterns = [p for p in map(normalize_pattern, channel.diff_exclude or []) if p]
    text, excluded = exclude_sections(text, patterns)
    if excluded and not text.strip():
        return PlannedChannel(name, channel, None,
                              ChannelSkip("nothing_to_review", NOTHING_TO_REVIEW),
                              tuple(excluded))
    text, summarised = exclude_files(text, {g.path for g in parts.generated})
    wrapper = resolve_prompt_wrapper(channel.prompt_wrapper, name)
    summary = [_listing(SUMMARISED_NOTE, [g.line() for g in parts.generated
                                          if g.path in summarised])] if summarised else []

    def prompt(diff: str, part: Sequence[str] = ()) -> str:
        return apply_wrapper(wrapper, parts.assemble(diff, [*part, *summary]) + (
            WORKSPACE_NOTE if parts.workspace and uses_workspace(channel) else ""))

    whole = prompt(text)
    tokens = estimate_tokens(whole)
    budget = prompt_budget(channel, tokens)
    shards: tuple[ShardPlan, ...] = ()
    if budget is not None and tokens > budget:
        files = _listing("", [json.dumps(s.display_path, ensure_ascii=False)
                              for s in split_sections(text)[1]])
        fixed = estimate_tokens(prompt("", [_part_note(999, 999) + files]))
        cuts = shard_diff(text, max(int(SHARD_FILL * budget) - fixed, 1))
        if len(cuts) > 1:
            shards = tuple(ShardPlan(prompt(cut.diff, [_part_note(i, len(cuts)) + files]),
                                     cut.files) for i, cut in enumerate(cuts, 1))
    plan = ChannelPlan(
        name=name,
        channel=channel,
        prompt=shards[0].prompt if shards else whole,
        timeout_s=loaded.timeout_for(name),
        output_parser=coerce_parser_for_schema_flags(channel.output_parser, channel.flags),
        shards=shards,
        max_prompt_tokens=budget,
    )
    return PlannedChannel(name, channel, plan, None, tuple(excluded), tuple(summarised))


def prompt_budget(channel: Channel, tokens: int) -> int | None:
    """The channel's ``max_prompt_tokens`` for a prompt of ``tokens``; an HTTP channel's is
    kept within the context its server reports, less room for the reply
    (``request.max_tokens``, else half)."""
    budget = channel.max_prompt_tokens
    context = server_context(channel) if isinstance(channel, HttpChannel) \
        and tokens > ASK_ABOVE_TOKENS else None
    if context is None or not isinstance(channel, HttpChannel):
        return budget
    room = context - (channel.request.max_tokens or context // 2)
    return room if budget is None else min(budget, room)


def _listing(heading: str, items: Sequence[str]) -> str:
    """A section listing file names the branch chose, fenced, each as a JSON string so
    that no name can break out of the list and read as instructions."""
    body = "\n".join(items)
    fence = diff_fence(body)
    return f"{heading}\n{fence}\n{body}\n{fence}"


def _part_note(index: int, total: int) -> str:
    return (f"## Part {index} of {total}\nThis change is too large for one prompt, so it is "
            f"reviewed in {total} parts and this prompt holds part {index}. Review the diff "
            "below; the other parts are reviewed beside it. Every file the change touches:")


def redaction_notice(planned: Sequence[PlannedChannel], diff: PreparedDiff) -> str | None:
    """The stderr warning when a channel is about to receive a redacted diff."""
    receives_redacted = any(p.plan is not None and p.channel.on_credentials == "redact"
                            for p in planned)
    if not diff.hits or not receives_redacted:
        return None
    return redaction_warning(len(diff.hits))
