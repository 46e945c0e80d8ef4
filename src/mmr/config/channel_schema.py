"""Channel models: both kinds, their ``auth`` blocks and the mmr channel keys.

Subprocess, http and replay channels are a union discriminated on ``kind``; a channel
without one is a subprocess channel. A replay channel is a subprocess channel whose process
prints a recorded reply, so every stage after the argv treats it as one. Field order is dump
order (``config show`` prints keys in it): the head fields of each kind first, then the
common fields, then mmr's additions.
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
#: A template variable: ``null`` drops the flag pair that uses it.
VarValue = StrictStr | StrictInt | StrictFloat | None


#: Meanings shared by a key both channel kinds (or both auth blocks) declare.
_KIND = ("`subprocess` (a local CLI, the default), `http`, or `replay` (a recorded reply "
         "served again).")
_AUTH = "Pre-flight login check run before dispatch."
_AUTH_TIMEOUT = "Seconds the check may take (a timeout is retried once)."
_AUTH_RECOVERY = "What to tell the user when the check fails."


class SubprocessAuth(ConfigModel):
    """``sh -c <check>``; an exit code in ``failure_exit_codes`` means "not logged in"."""

    check: StrictStr = Field(
        description="Shell command (`sh -c`) whose exit code tells logged-in.")
    timeout: Seconds = Field(5, description=_AUTH_TIMEOUT)
    failure_exit_codes: list[Integer] = Field(
        description="Exit codes of `check` meaning not logged in.")
    recovery: StrictStr = Field(description=_AUTH_RECOVERY)
    install: StrictStr | None = Field(
        default=None, description="How to install the CLI, shown when it is not on PATH.")


class HttpAuth(ConfigModel):
    check_endpoint: StrictStr | None = Field(
        None, description="URL probed before dispatch (default: the endpoint's `/models`).")
    check_method: StrictStr = Field("GET", description="HTTP method of the probe.")
    check_status_ok: list[Integer] = Field(
        default_factory=lambda: [200], description="Probe statuses that mean ready.")
    timeout: Seconds = Field(5, description=_AUTH_TIMEOUT)
    recovery: StrictStr | None = Field(None, description=_AUTH_RECOVERY)


class RetryPolicy(ConfigModel):
    """Re-dispatch after a transient failure."""

    attempts: NonNegativeInt = Field(0, description="Extra attempts after the first.")
    on: list[StrictStr] = Field(
        default_factory=lambda: ["failed"],
        description="Failures that are retried: failed, parse_error, gate_failed, incomplete.",
        json_schema_extra={"items": {"enum": list(RETRY_TRIGGERS)}})
    delay_ms: NonNegativeInt | None = Field(None, description="Pause before a retry.")

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
    """JSONPaths into the raw reply for each figure; the key set is fixed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    context_window: StrictStr | None = Field(None, description="Path of the context window size.")
    input_tokens: StrictStr | None = Field(None, description="Path of the input token count.")
    output_tokens: StrictStr | None = Field(None, description="Path of the output token count.")
    cost_usd: StrictStr | None = Field(None, description="Path of the cost in US dollars.")
    turns: StrictStr | None = Field(None, description="Path of the number of agent turns.")


class HttpRequest(ConfigModel):
    """Tuning of an HTTP channel's chat request; unset keys are not sent."""

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
        "json_schema`); a server that rejects it (HTTP 400, or a 500 naming the schema) is "
        "asked again with `json_object`.")
    extra_body: dict[StrictStr, Any] = Field(
        default_factory=dict, description="More top-level body fields, sent as given (they "
        "cannot replace `model` or `messages`).")


class _SubprocessHead(ConfigModel):
    kind: Literal["subprocess"] = Field("subprocess", description=_KIND)
    auth: SubprocessAuth | None = Field(None, description=_AUTH)


class _HttpHead(ConfigModel):
    kind: Literal["http"] = Field(description=_KIND)
    endpoint: StrictStr = Field(description="OpenAI-style chat completions URL.")
    model: StrictStr = Field(description="Model name sent in the request body.")
    endpoint_convention: Literal["openai-chat"] = Field(
        description="Request/response shape; only `openai-chat`.")
    api_key_env: StrictStr | None = Field(
        None, description="Environment variable that holds the API key.")
    api_key_header: StrictStr = Field(
        "Authorization", description="Header that carries the key.")
    api_key_prefix: StrictStr = Field(
        "Bearer ", description="Text put before the key in that header.")
    auth: HttpAuth = Field(default_factory=HttpAuth, description=_AUTH)
    request: HttpRequest = Field(default_factory=HttpRequest,
                                 description="Tuning of the chat request.")


class _ChannelTail(ConfigModel):
    """Fields common to both kinds, in dump order, then the mmr additions."""

    enabled: StrictBool = Field(
        True, description="Part of the default selection (`--channels` ignores it).")
    command: StrictStr | None = Field(
        None, description="Program and leading arguments, split on whitespace (no shell).")
    flags: list[StrictStr] = Field(
        default_factory=list,
        description="Arguments after `command`; placeholders such as `{{findings_schema}}` "
                    "and `{{var.NAME}}` are substituted.")
    env: dict[StrictStr, StrictStr] = Field(
        default_factory=dict,
        description="Environment variables added for the channel (values are strings).")
    headers: dict[StrictStr, StrictStr] | None = Field(
        None, description="Extra HTTP headers (put secrets in `api_key_env` instead).")
    prompt_wrapper: StrictStr = Field(
        "{{prompt}}", description="Text around the prompt; `{{prompt}}` marks where it goes.")
    prompt_delivery: Literal["stdin", "prompt-file"] | None = Field(
        None, description="How the prompt reaches the CLI: stdin or a prompt file.")
    cwd: StrictStr | None = Field(
        None, description="Working directory (`{{neutral_cwd}}`: an empty private one).")
    workspace: Literal["snapshot", "none", "repo"] | None = Field(
        None, description="Working directory when `cwd` is unset: `snapshot` a read-only "
                          "redacted copy of the reviewed files, `none` an empty private one, "
                          "`repo` the real work tree.")
    output_parser: ParserSpec = Field(
        "default", description="How the reply becomes findings: a parser name or an "
                   "`output_parser` object.")
    stderr: Literal["capture", "suppress", "passthrough"] = Field(
        "capture", description="What happens to the CLI's stderr.")
    timeout: Seconds | None = Field(
        None, description="Seconds this channel may run (`--timeout` wins).")
    extends: StrictStr | None = Field(
        None, description="Inherit every field of another channel, then override.")
    abstract: StrictBool = Field(
        False, description="A template for `extends`; never dispatched. Not inherited.")
    required: StrictBool | None = Field(
        None, description="Compensate this channel even when its CLI is not installed.")
    retired: StrictBool | None = Field(
        None, description="A tombstone: never dispatched (built-in `gemini`).")
    role: ChannelRole = Field(
        "review",
        description="`review` channels run in `mmr review`, `explore` in `mmr explore`.")
    vars: dict[StrictStr, VarValue] | None = Field(
        None, description="Values for `{{var.NAME}}`; null drops the flag pair using it.")
    retry: RetryPolicy | None = Field(None, description="Re-dispatch after a transient failure.")
    telemetry: Telemetry | None = Field(
        None, description="JSONPaths into the raw reply for usage figures.")
    assert_clean_tree: StrictBool = Field(
        False, description="Fail the channel if the work tree changed while it ran.")
    on_credentials: Literal["redact", "refuse", "allow"] = Field(
        "redact",
        description="A credential in the diff: redact it, refuse to send the diff, or allow it.")
    max_diff_lines: PositiveInt | None = Field(
        None, description="Skip this channel for a longer diff.")
    diff_exclude: list[StrictStr] | None = Field(
        None, description="Pathspecs left out of this channel's diff "
                          "(added to `defaults.diff_exclude`).")
    max_prompt_tokens: PositiveInt | None = Field(
        None, description="Prompt budget in estimated tokens: a larger diff is reviewed in "
        "shards that fit it (default: the built-in preset's; an HTTP channel also keeps "
        "under the context its server reports). Unset: one prompt.")
    shard_concurrency: PositiveInt = Field(
        4, description="How many shards of this channel are reviewed at once.")


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
        """The auth probe's URL: ``check_endpoint``, else the endpoint's ``/models``."""
        if self.auth.check_endpoint is not None:
            return self.auth.check_endpoint
        base = self.endpoint.rstrip("/")
        return base[: -len("/chat/completions")] + "/models"


class ReplaySource(ConfigModel):
    """Where a replay channel's recorded reply comes from: a file, or an earlier job."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: StrictStr | None = Field(
        None, description="A file holding the reply, printed byte for byte (a relative path "
        "counts from the directory mmr runs in).")
    job: StrictStr | None = Field(
        None, description="An earlier job's id: its stored reply of `channel` is served.")
    channel: StrictStr | None = Field(
        None, description="With `job`: whose reply to serve (default: this channel's name).")

    @model_validator(mode="after")
    def _one_source(self) -> ReplaySource:
        if (self.file is None) == (self.job is None):
            raise PydanticCustomError(
                "replay_source", "replay needs exactly one of file or job", {})
        if self.channel is not None and self.job is None:
            raise PydanticCustomError(
                "replay_source", "replay.channel names a channel of replay.job; set job", {})
        return self


class ReplayChannel(SubprocessChannel):
    """A subprocess channel whose process prints a recorded reply instead of asking a model.

    Its process is ``python -m mmr.dispatch.replay_serve`` (this interpreter, no shell);
    ``command`` and ``flags`` are ignored. Parsing, reconciliation and the gate are those of
    any channel: a recorded reply re-scored with a new parser or threshold, or a test's
    reply, goes through the same code as a live one.
    """

    kind: Literal["replay"] = Field(description=_KIND)  # type: ignore[assignment]
    replay: ReplaySource = Field(description="The recorded reply to serve.")


def with_default_kind(data: Any) -> Any:
    """``kind: subprocess`` for a channel mapping that (after extends) has no kind."""
    if isinstance(data, dict) and "kind" not in data:
        return {**data, "kind": "subprocess"}
    return data


ChannelConfig = Annotated[
    Annotated[SubprocessChannel | HttpChannel | ReplayChannel, Field(discriminator="kind")],
    BeforeValidator(with_default_kind),
]
