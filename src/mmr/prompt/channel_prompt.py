"""The pure core of a channel's plan: its copy of the diff and its prompt, from plain data.

:func:`mmr.prompt.plans.plan_channel` builds a :class:`ChannelPromptSpec` from the merged
channel config and calls :func:`channel_prompt`; the early start (:mod:`mmr.review.early`)
builds the same spec from a recipe and calls the same function, so the prompt a
speculative child is sent is the prompt the pipeline would send, byte for byte. Nothing
here imports pydantic or the config models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from mmr.config.wrapper import resolve_prompt_wrapper
from mmr.prompt.assemble import apply_wrapper, assemble_prompt
from mmr.secrets.credentials import REFUSAL_MESSAGE, CredentialHit, redact_diff, refusable
from mmr.unidiff.sections import exclude_sections, normalize_pattern

NOTHING_TO_REVIEW = "nothing left to review after the channel's diff_exclude"


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

    def assemble(self, diff: str) -> str:
        """The unwrapped prompt for ``diff`` (ch. 05 §2.6)."""
        return assemble_prompt(diff, review_criteria=self.review_criteria,
                               template_criteria=self.template_criteria, focus=self.focus)


@dataclass(frozen=True)
class ChannelSkip:
    """Why a channel is ``skipped`` before any check: a ch. 04 §7.4 reason and its text."""

    reason: str
    message: str


class ChannelPromptSpec(NamedTuple):
    """What of a channel's config decides its prompt (``wrapper``: its ``prompt_wrapper``)."""

    max_diff_lines: int | None
    on_credentials: str
    diff_exclude: tuple[str, ...]
    wrapper: str


class ChannelPrompt(NamedTuple):
    """A channel's prompt, or its skip; and the files its ``diff_exclude`` left out."""

    prompt: str | None
    skip: ChannelSkip | None
    excluded_files: tuple[str, ...] = ()


def channel_prompt(name: str, spec: ChannelPromptSpec, diff: PreparedDiff,
                   parts: PromptParts) -> ChannelPrompt:
    """The checks of :mod:`mmr.prompt.plans` in order, then the wrapped prompt."""
    budget = spec.max_diff_lines
    if budget is not None and diff.line_count > budget:
        message = f"diff too large: {diff.line_count} lines > {budget}"
        return ChannelPrompt(None, ChannelSkip("diff_too_large", message))
    if spec.on_credentials == "refuse" and diff.refusable:
        return ChannelPrompt(None, ChannelSkip("credential_refused", REFUSAL_MESSAGE))
    text = diff.text if spec.on_credentials == "allow" else diff.redacted
    text, excluded = exclude_sections(text, _patterns(spec.diff_exclude))
    if excluded and not text.strip():
        return ChannelPrompt(None, ChannelSkip("nothing_to_review", NOTHING_TO_REVIEW),
                             tuple(excluded))
    wrapper = resolve_prompt_wrapper(spec.wrapper, name)
    return ChannelPrompt(apply_wrapper(wrapper, parts.assemble(text)), None, tuple(excluded))


def _patterns(diff_exclude: Sequence[str]) -> list[str]:
    return [p for p in map(normalize_pattern, diff_exclude) if p]
