"""Pydantic models for every config key (spec ch. 01 §2, ch. 06 §2–3, ch. 02 §5.12).

Top-level, ``defaults`` and template models live here; channel models live in
``channel_schema`` and are re-exported, so ``mmr.config.schema`` is the one import.
Types are strict (§2.9, ``mmr.types``); fields are declared in dump order.
Unknown keys are dropped (``extra="ignore"``); the loader warns about each one first
(§2.10). Only ``defaults.compensator`` and a channel's ``telemetry`` are strict.
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
from mmr.models import Severity
from mmr.types import NumberValue, PositiveInt, StrictBool, StrictStr

__all__ = [
    "COMPENSATOR_EMPTY", "REGISTERED_PARSER_NAMES", "RETRY_TRIGGERS", "ChannelConfig",
    "ChannelRole", "CompensatorConfig", "ConfigModel", "Defaults", "HttpAuth", "HttpChannel",
    "LoopControl", "MmrConfig", "OutputFormat", "RetryPolicy", "SubprocessAuth",
    "SubprocessChannel", "Telemetry", "TemplateConfig",
]

DEFAULT_BRANCH_DOC = (
    "The branch a local review compares the project config and acks with (their merge "
    "base with HEAD); read from the user config only. Unset: origin/HEAD, else main or master.")

OutputFormat = Literal["json", "text", "markdown", "sarif", "github", "rdjsonl"]


class LoopControl(ConfigModel):
    max_rounds_default: PositiveInt = 5
    repeat_suppression_enabled: StrictBool = False
    repeat_downgrade_after: PositiveInt | None = None
    repeat_suppress_after: PositiveInt | None = None

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


class CompensatorConfig(ConfigModel):
    """Which channel runs compensating passes; strict, unlike every other block (§2.4)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    channel: StrictStr | None = None
    channel_focus_map: dict[StrictStr, StrictStr] | None = None

    @model_validator(mode="before")
    @classmethod
    def _canonical_names(cls, data: Any) -> Any:
        # mmr accepts aliases here (ch. 01 Q10); the canonical key wins over its alias.
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
    fix_threshold: Severity = "P2"
    min_completed_channels: PositiveInt = 2
    timeout: Seconds = 300
    format: OutputFormat = "json"
    parallel: StrictBool = True
    job_retention_days: Days = 7
    loop_control: LoopControl = Field(default_factory=LoopControl)
    compensator: CompensatorConfig | None = None
    ack_retention_days: Days = 90
    diff_exclude: list[StrictStr] = Field(default_factory=list)
    max_diff_lines: PositiveInt | None = None
    secret_findings: StrictBool = True
    default_branch: StrictStr | None = Field(default=None, description=DEFAULT_BRANCH_DOC)


class TemplateConfig(ConfigModel):
    """Extra criteria that ``--template <name>`` adds to the prompt."""

    criteria: list[StrictStr] | None = None


class MmrConfig(ConfigModel):
    """The whole merged configuration, as every command sees it."""

    version: NumberValue = 1
    defaults: Defaults = Field(default_factory=Defaults)
    channels: dict[StrictStr, ChannelConfig] = Field(default_factory=dict)
    channels_disabled: list[StrictStr] | None = None
    review_criteria: list[StrictStr] | None = None
    templates: dict[StrictStr, TemplateConfig] | None = None


#: Names the string form of ``output_parser`` understands (ch. 03); others fall back to default.
REGISTERED_PARSER_NAMES: tuple[str, ...] = ("default", "default-last", "gemini", "doc-conformance")
