"""What each critique channel is sent and how its reply is read.

A critique reply is prose with a JSON object somewhere in it, not findings, so the review
parsers do not apply. The dispatcher still parses every reply as it settles; critique hands
it a pass-through ``answer`` parser (no citation gate) that keeps the reply text. A
channel whose parser unwraps a CLI envelope keeps that step, so its guards still work:
grok's cancelled run is re-dispatched, claude's ``is_error`` reply is a failure. The
flags carrying ``{{findings_schema}}`` are dropped: the reply is not findings-shaped.
"""

from __future__ import annotations

from mmr.config.loaded import Channel, LoadedConfig
from mmr.config.wrapper import resolve_prompt_wrapper
from mmr.dispatch.findings_schema import strip_findings_schema_flags
from mmr.dispatch.plan import ChannelPlan
from mmr.parsers.specs import AnswerGate, AnswerSpec, ParserSpec, UnwrapJsonpathSpec
from mmr.prompt.assemble import apply_wrapper

#: The reply text as it is (an empty reply still fails: there is nothing to critique).
PASS_THROUGH = AnswerSpec(kind="answer", gate=AnswerGate(require_citation=False))


def critique_parser(spec: ParserSpec) -> ParserSpec:
    """The parser a critique channel is dispatched with (see the module docstring)."""
    if isinstance(spec, UnwrapJsonpathSpec):
        return spec.model_copy(update={"then": PASS_THROUGH})
    return PASS_THROUGH


def critique_channel(channel: Channel) -> Channel:
    """The channel without its findings-schema flags (a critique reply is not findings)."""
    stripped = strip_findings_schema_flags(channel.flags)
    if stripped == channel.flags:
        return channel
    return channel.model_copy(update={"flags": stripped})


def plan_critique(name: str, channel: Channel, loaded: LoadedConfig, prompt: str, *,
                  config_name: str | None = None) -> ChannelPlan:
    """A dispatch plan named ``name``: the wrapped prompt, the stripped flags, the
    pass-through parser, and the timeout of config channel ``config_name`` (default ``name``)."""
    wrapper = resolve_prompt_wrapper(channel.prompt_wrapper, config_name or name)
    return ChannelPlan(name=name, channel=critique_channel(channel),
                       prompt=apply_wrapper(wrapper, prompt),
                       timeout_s=loaded.timeout_for(config_name or name),
                       output_parser=critique_parser(channel.output_parser))
