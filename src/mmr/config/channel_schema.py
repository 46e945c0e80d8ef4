"""Channel models: both kinds, their ``auth`` blocks and the mmr channel keys.

Subprocess and http channels are a union discriminated on ``kind``; a channel without
one is a subprocess channel (ch. 01 §3.2). Field order is dump order (§2.5): the head
fields of each kind first, then the common fields, then mmr's additions (ch. 06 §2).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mmr.config.model_base import ConfigModel, Seconds
from mmr.parsers.specs import ParserSpec
from mmr.types import Integer, NonNegativeInt, PositiveInt, StrictBool, StrictStr

ChannelRole = Literal["review", "explore"]
RETRY_TRIGGERS: tuple[str, ...] = ("failed", "parse_error", "gate_failed", "incomplete")
#: A template variable: ``null`` drops the flag pair that uses it (ch. 06 §2).
VarValue = StrictStr | StrictInt | StrictFloat | None


class SubprocessAuth(ConfigModel):
    """``sh -c <check>``; an exit code in ``failure_exit_codes`` means "not logged in"."""

    check: StrictStr
    timeout: Seconds = 5
    failure_exit_codes: list[Integer]
    recovery: StrictStr
    install: StrictStr | None = Field(
        default=None, description="How to install the CLI, shown when it is not on PATH.")


class HttpAuth(ConfigModel):
    check_endpoint: StrictStr | None = None
    check_method: StrictStr = "GET"
    check_status_ok: list[Integer] = Field(default_factory=lambda: [200])
    timeout: Seconds = 5
    recovery: StrictStr | None = None


class RetryPolicy(ConfigModel):
    """Re-dispatch after a transient failure (ch. 02 §5.12)."""

    attempts: NonNegativeInt = 0
    on: list[StrictStr] = Field(default_factory=lambda: ["failed"])
    delay_ms: NonNegativeInt | None = None

    @field_validator("on")
    @classmethod
    def _retriable(cls, triggers: list[str]) -> list[str]:
        for trigger in triggers:
            if trigger not in RETRY_TRIGGERS:
                raise ValueError(
                    f'retry.on: "{trigger}" cannot be retried '
                    f"(allowed: {', '.join(RETRY_TRIGGERS)})"
                )
        return triggers


class Telemetry(ConfigModel):
    """JSONPaths into the raw reply for each figure; the key set is fixed (ch. 06 §2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    context_window: StrictStr | None = None
    input_tokens: StrictStr | None = None
    output_tokens: StrictStr | None = None
    cost_usd: StrictStr | None = None
    turns: StrictStr | None = None


class HttpRequest(ConfigModel):
    """Tuning of an HTTP channel's chat request (issue 17); unset keys are not sent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: PositiveInt | None = Field(
        default=None, description="Reply token cap (`max_tokens`); stops a small model padding "
        "a JSON reply until its context is full.")
    temperature: StrictInt | StrictFloat | None = Field(
        default=None, description="Sampling temperature; 0 for repeatable reviews.")
    seed: StrictInt | None = Field(
        default=None, description="Sampling seed, for servers that honour one.")
    system: StrictStr | None = Field(
        default=None, description="A system message sent before the prompt.")
    json_schema: StrictBool = Field(
        default=False, description="Ask for the findings JSON schema (`response_format: "
        "json_schema`); a server that rejects it with HTTP 400 is asked again with "
        "`json_object`.")
    extra_body: dict[StrictStr, Any] = Field(
        default_factory=dict, description="More top-level body fields, sent as given (they "
        "cannot replace `model` or `messages`).")


class _SubprocessHead(ConfigModel):
    kind: Literal["subprocess"] = "subprocess"
    auth: SubprocessAuth | None = None


class _HttpHead(ConfigModel):
    kind: Literal["http"]
    endpoint: StrictStr
    model: StrictStr
    endpoint_convention: Literal["openai-chat"]
    api_key_env: StrictStr | None = None
    api_key_header: StrictStr = "Authorization"
    api_key_prefix: StrictStr = "Bearer "
    auth: HttpAuth = Field(default_factory=HttpAuth)
    request: HttpRequest = Field(default_factory=HttpRequest,
                                 description="Tuning of the chat request.")


class _ChannelTail(ConfigModel):
    """Fields common to both kinds, in dump order (§2.5), then the mmr additions."""

    enabled: StrictBool = True
    command: StrictStr | None = None
    flags: list[StrictStr] = Field(default_factory=list)
    env: dict[StrictStr, StrictStr] = Field(default_factory=dict)
    headers: dict[StrictStr, StrictStr] | None = None
    prompt_wrapper: StrictStr = "{{prompt}}"
    prompt_delivery: Literal["stdin", "prompt-file"] | None = None
    cwd: StrictStr | None = None
    output_parser: ParserSpec = "default"
    stderr: Literal["capture", "suppress", "passthrough"] = "capture"
    timeout: Seconds | None = None
    extends: StrictStr | None = None
    abstract: StrictBool = False
    required: StrictBool | None = None
    retired: StrictBool | None = None
    #: ``review`` channels run under ``mmr review``, ``explore`` ones under ``mmr explore``.
    role: ChannelRole = "review"
    #: Values for ``{{var.NAME}}`` in flags; a null drops its ``--flag value`` pair.
    vars: dict[StrictStr, VarValue] | None = None
    retry: RetryPolicy | None = None
    telemetry: Telemetry | None = None
    #: Fail the channel if the work tree changed while it ran (never reverted).
    assert_clean_tree: StrictBool = False
    #: What a credential-shaped string in the diff does: redact it, skip the channel, or send it.
    on_credentials: Literal["redact", "refuse", "allow"] = "redact"
    #: Skip this channel when the diff is longer (``diff_too_large``).
    max_diff_lines: PositiveInt | None = None
    #: Pathspec globs left out of this channel's copy of the diff (added to the run's list).
    diff_exclude: list[StrictStr] | None = None


class SubprocessChannel(_ChannelTail, _SubprocessHead):
    """A channel run as a local CLI (``command`` split on whitespace, no shell)."""


class HttpChannel(_ChannelTail, _HttpHead):
    """A channel that POSTs to an OpenAI-style chat endpoint."""

    @model_validator(mode="after")
    def _probe_derivable(self) -> HttpChannel:
        if self.auth.check_endpoint is None and not self.endpoint.rstrip("/").endswith(
            "/chat/completions"
        ):
            raise PydanticCustomError(
                "check_endpoint_required",
                'endpoint "{endpoint}" does not end in /chat/completions; '
                "auth.check_endpoint is required.",
                {"endpoint": self.endpoint},
            )
        return self

    @property
    def probe_url(self) -> str:
        """The auth probe's URL: ``check_endpoint``, else the endpoint's ``/models`` (§2.7)."""
        if self.auth.check_endpoint is not None:
            return self.auth.check_endpoint
        base = self.endpoint.rstrip("/")
        return base[: -len("/chat/completions")] + "/models"


def _inject_kind(data: Any) -> Any:
    if isinstance(data, dict) and "kind" not in data:
        return {**data, "kind": "subprocess"}
    return data


ChannelConfig = Annotated[
    Annotated[SubprocessChannel | HttpChannel, Field(discriminator="kind")],
    BeforeValidator(_inject_kind),
]
