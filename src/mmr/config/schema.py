"""Pydantic models for every config key.

Top-level, ``defaults`` and template models live here; channel models live in
``channel_schema`` and are re-exported, so ``mmr.config.schema`` is the one import.
Every key is declared once, here: type, default and the one-line meaning in its ``Field``
(``docs/config.md`` and ``docs/mmr.schema.json`` are generated from these models).
Types are strict (``mmr.types``); fields are declared in dump order.
Unknown keys are dropped (``extra="ignore"``); the loader warns about each one first.
Only ``defaults.compensator`` and a channel's ``telemetry`` are strict.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from mmr.config.aliases import normalize_channel_name
from mmr.config.channel_schema import (
    RETRY_TRIGGERS,
    ChannelConfig,
    ChannelRole,
    HttpAuth,
    HttpChannel,
    RetryPolicy,
    SubprocessAuth,
    SubprocessChannel,
    Telemetry,
)
from mmr.config.model_base import ConfigModel, Days, Seconds
from mmr.types import NumberValue, PositiveInt, StrictBool, StrictStr
from mmr.vocabulary import (
    DEFAULT_FIX_THRESHOLD,
    DEFAULT_RECONCILE_RULE,
    Format,
    ReconcileRule,
    Severity,
)

__all__ = [
    "COMPENSATOR_EMPTY", "RETRY_TRIGGERS", "ChannelConfig",
    "ChannelRole", "CompensatorConfig", "ConfigModel", "Defaults", "HttpAuth", "HttpChannel",
    "LoopControl", "MmrConfig", "OutputFormat", "RetryPolicy", "SubprocessAuth",
    "SubprocessChannel", "Telemetry", "TemplateConfig",
]

DEFAULT_BRANCH_DOC = (
    "The branch a local review compares the project config and acks with (their merge "
    "base with HEAD); read from the user config only. Unset: origin/HEAD, else main or master.")

OutputFormat = Format


class LoopControl(ConfigModel):
    max_rounds_default: PositiveInt = Field(
        5, description="Round cap when `--max-rounds` is not given.")
    repeat_suppression_enabled: StrictBool = Field(
        False, description="Downgrade, then suppress, findings repeated across rounds.")
    repeat_downgrade_after: PositiveInt | None = Field(
        None, description="Rounds a finding may repeat before its severity is lowered.")
    repeat_suppress_after: PositiveInt | None = Field(
        None, description="Rounds a finding may repeat before it is suppressed "
                          "(>= downgrade_after).")

    @model_validator(mode="after")
    def _thresholds(self) -> LoopControl:
        down, suppress = self.repeat_downgrade_after, self.repeat_suppress_after
        if self.repeat_suppression_enabled and (down is None or suppress is None):
            raise ValueError(
                "loop_control.repeat_suppression_enabled requires both "
                "repeat_downgrade_after and repeat_suppress_after"
            )
        if down is not None and suppress is not None and suppress < down:
            raise ValueError(
                "loop_control.repeat_suppress_after must be greater than or equal to "
                "repeat_downgrade_after"
            )
        return self


COMPENSATOR_EMPTY = "defaults.compensator must define channel or channel_focus_map"


class CacheConfig(ConfigModel):
    max_age: Days = Field(
        7, description="Days a channel's reply is reused for the same channel, CLI and prompt; "
                       "0 turns the review cache off (as `--no-cache` does for one run).")
    max_size_mb: PositiveInt = Field(
        256, description="Size cap of `<MMR_HOME>/cache/reviews/`; the least recently used "
                         "replies go first.")


class CompensatorConfig(ConfigModel):
    """Which channel runs compensating passes; strict, unlike every other block."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    channel: StrictStr | None = Field(
        None, description="Channel that runs the passes (default: a built-in claude).")
    channel_focus_map: dict[StrictStr, StrictStr] | None = Field(
        None, description="Per failed channel, the focus text of its compensating pass.")

    @model_validator(mode="before")
    @classmethod
    def _canonical_names(cls, data: Any) -> Any:
        # mmr accepts aliases here; the canonical key wins over its alias.
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("channel"), str):
            data["channel"] = normalize_channel_name(data["channel"])
        focus = data.get("channel_focus_map")
        if isinstance(focus, dict):
            renamed: dict[Any, Any] = {}
            for key, value in focus.items():
                canonical = normalize_channel_name(key) if isinstance(key, str) else key
                if canonical != key and canonical in focus:
                    continue  # the canonical key is set as well and wins
                renamed[canonical] = value
            data["channel_focus_map"] = renamed
        return data

    @model_validator(mode="after")
    def _not_empty(self) -> CompensatorConfig:
        if self.channel is None and self.channel_focus_map is None:
            raise ValueError(COMPENSATOR_EMPTY)
        return self


class Defaults(ConfigModel):
    fix_threshold: Severity = Field(
        DEFAULT_FIX_THRESHOLD,
        description="Findings at or above this severity block the change (exit 2).")
    min_completed_channels: PositiveInt = Field(
        2, description="Channels that must complete; with fewer the verdict is "
                       "needs-user-decision (exit 3).")
    timeout: Seconds = Field(
        300, description="Seconds a channel may run unless it sets its own `timeout`.")
    format: OutputFormat = Field(
        "json", description="Output format of the verdict; when no config file sets it, "
                            "text on a terminal and json otherwise.")
    parallel: StrictBool = Field(
        True, description="Dispatch channels concurrently (false: one after another).")
    job_retention_days: Days = Field(
        7, description="Age after which `mmr jobs prune` removes a job.")
    loop_control: LoopControl = Field(
        default_factory=LoopControl, description="Multi-round review sessions.")
    compensator: CompensatorConfig | None = Field(
        None, description="Who runs compensating passes for failed channels; needs `channel` "
                          "or `channel_focus_map`. Unknown keys here are errors.")
    ack_retention_days: Days = Field(
        90, description="`mmr ack prune` removes acks whose findings were not seen for this "
                        "many days.")
    diff_exclude: list[StrictStr] = Field(
        default_factory=list,
        description="Pathspecs left out of every channel's copy of the diff.")
    max_diff_lines: PositiveInt | None = Field(
        None, description="Refuse a diff longer than this many lines.")
    review_generated: StrictBool = Field(
        False, description="Send generated, vendored and lock files to the reviewers; by "
        "default they are listed with their size instead (see docs/large-changes.md).")
    secret_findings: StrictBool = Field(
        True, description="Report credentials found in the diff as findings.")
    outside_diff_findings: Literal["advisory", "block"] = Field(
        default="advisory",
        description=(
            "How findings the diff does not cover are gated: those about a repository file "
            "the change does not touch, and unanchored ones (no usable location, a path not "
            "in the repository, a line past the end of the file). `advisory` (default) "
            "reports them without gating and says so in the verdict line, except that an "
            "unacknowledged P0 among them turns a pass into `needs-user-decision`; `block` "
            "gates them like findings in the diff."
        ),
    )
    default_branch: StrictStr | None = Field(default=None, description=DEFAULT_BRANCH_DOC)
    max_inline_comments: PositiveInt = Field(
        10, description="Most findings `mmr comment --inline` places on the diff's lines in "
                        "one run; the rest are listed in the review's body. Read from the user's "
                        "config only, never from the reviewed branch.")
    reconcile: ReconcileRule = Field(
        DEFAULT_RECONCILE_RULE,
        description="How findings of different channels become one: `calibrated` (default) "
                    "merges findings in one file within 10 lines that say the same thing in "
                    "their own words, and lists each channel's finding as `members`; "
                    "`reference` is MMR 4.0.1's rule (same location, near-identical wording).")
    cache: CacheConfig = Field(
        default_factory=CacheConfig,
        description="The review cache: a channel's parsed reply reused when the same channel "
                    "gets the same (redacted) prompt again (an HTTP channel: while its "
                    "server lists the same entry for the model at /models). Failed, "
                    "timed-out and compensating runs are never cached.")


class TemplateConfig(ConfigModel):
    """Extra criteria that ``--template <name>`` adds to the prompt."""

    criteria: list[StrictStr] | None = Field(
        None, description="Criteria the template adds to the prompt.")


class MmrConfig(ConfigModel):
    """The whole merged configuration, as every command sees it."""

    version: NumberValue = Field(1, description="Config format version; optional.")
    defaults: Defaults = Field(default_factory=Defaults, description="Run-wide settings.")
    channels: dict[StrictStr, ChannelConfig] = Field(
        default_factory=dict,
        description="The channel registry; built-in presets can be overridden key by key.")
    channels_disabled: list[StrictStr] | None = Field(
        None, description="Channels left out of the default selection (aliases accepted); "
                          "replaces, never merges with, a lower layer's list.")
    review_criteria: list[StrictStr] | None = Field(
        None, description="Extra review criteria added to every prompt.")
    templates: dict[StrictStr, TemplateConfig] | None = Field(
        None, description="Named criteria sets selected with `--template <name>`.")
