"""Compensating passes: a substitute model covers a channel that did not report.

After the review channels settle, :func:`plan_compensation` picks the channels to cover
(transient failures always; a structurally absent ``not_installed`` one only with
``--compensate-missing`` or ``required: true``). :func:`run_compensation` checks the
compensator once, registers a ``compensating-<channel>`` entry per pass in ``job.json``
(with ``compensator`` set, so all passes count as that one reviewer — Decisions), and
dispatches the passes concurrently through :func:`mmr.dispatch.runner.dispatch_all`. A
compensator that is not installed (or the default one while ``claude`` is switched off)
gets no entries, only a notice; one that is otherwise unavailable gets entries that record
why, and nothing runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from mmr.config.channel_schema import HttpChannel, ReplayChannel, SubprocessChannel
from mmr.config.defaults import default_compensator_channel
from mmr.config.loaded import LoadedConfig
from mmr.config.selection import is_effective
from mmr.config.wrapper import resolve_prompt_wrapper
from mmr.dispatch.auth import auth_status_to_channel_status, check_channel_async
from mmr.dispatch.findings_schema import coerce_parser_for_schema_flags
from mmr.dispatch.plan import AuthResult, ChannelOutcome, ChannelPlan, DispatchContext
from mmr.dispatch.runner import dispatch_all
from mmr.dispatch.store_io import in_thread
from mmr.errors import ConfigError
from mmr.models import ChannelStatus
from mmr.parsers.specs import ParserSpec
from mmr.prompt.assemble import compensating_prompt
from mmr.prompt.focus import focus_preamble
from mmr.store.layout import COMPENSATING_PREFIX, compensating_name

DEFAULT_COMPENSATOR = "claude"
_TRANSIENT: frozenset[str] = frozenset({"failed", "timeout", "auth_failed", "skipped"})
#: ``skipped`` because of the diff's content, not the channel: a substitute cannot help.
_CONTENT_REASONS: frozenset[str] = frozenset({"credential_refused", "diff_too_large"})


@dataclass(frozen=True, slots=True)
class CompensationPass:
    """One planned pass: ``name`` (``compensating-<original>``) stands in for ``original``."""

    original: str
    name: str


class CompensationPlan(list[CompensationPass]):
    """The planned passes, plus the ``not_installed`` channels deliberately left uncovered
    (``not_compensated``), which :func:`run_compensation` names in a notice."""

    not_compensated: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Compensator:
    """The channel that runs the passes, as resolved from ``defaults.compensator``."""

    name: str  #: its identity: the configured channel name, or ``claude`` for the default
    channel: SubprocessChannel | HttpChannel
    configured: bool
    timeout_s: float
    output_parser: ParserSpec  #: after the findings-schema coercion
    focus_map: Mapping[str, str]


def compensator_name(config: LoadedConfig) -> str:
    """The compensator's name; a channel of that name is never compensated (self-review)."""
    block = config.defaults.compensator
    return block.channel if block is not None and block.channel else DEFAULT_COMPENSATOR


def plan_compensation(outcomes: Mapping[str, ChannelStatus], config: LoadedConfig, *,
                      compensate_missing: bool, required: Mapping[str, bool],
                      reasons: Mapping[str, str | None] | None = None) -> CompensationPlan:
    """The passes to run for the job's channels, in job order.

    ``outcomes`` maps each resolved review channel to its final status; ``reasons`` (mmr)
    holds their ``reason`` codes, so a channel skipped for its diff content is left alone.
    """
    skip = compensator_name(config)
    passes = CompensationPlan()
    absent: list[str] = []
    for name, status in outcomes.items():
        if name == skip or name.startswith(COMPENSATING_PREFIX):
            continue
        if status in _TRANSIENT:
            if status == "skipped" and (reasons or {}).get(name) in _CONTENT_REASONS:
                continue
            passes.append(CompensationPass(name, compensating_name(name)))
        elif status == "not_installed":
            if compensate_missing or required.get(name, False):
                passes.append(CompensationPass(name, compensating_name(name)))
            else:
                absent.append(name)
    passes.not_compensated = tuple(absent)
    return passes


def not_compensated_notice(names: Sequence[str]) -> str:
    """The stderr notice for ``not_installed`` channels that get no pass."""
    listed = ", ".join(names)
    return (
        f"[mmr] not compensating structurally-absent channel(s): {listed}. Install them, mark "
        "them `required: true`, or pass --compensate-missing to have a compensating pass cover "
        "them; to silence this notice, stop dispatching them with `mmr config disable <name>`."
    )


def compensator_for(config: LoadedConfig) -> Compensator:
    """The compensator of this config; ConfigError for a dangling reference."""
    block = config.defaults.compensator
    focus_map = dict(block.channel_focus_map or {}) if block is not None else {}
    if block is None or not block.channel:
        channel = SubprocessChannel.model_validate(default_compensator_channel())
        preset = config.channel(DEFAULT_COMPENSATOR)
        if isinstance(preset, SubprocessChannel) and preset.auth is not None:
            # Check the default like a configured one, with the claude preset's check.
            channel = channel.model_copy(update={"auth": preset.auth})
        timeout = config.cli_timeout if config.cli_timeout is not None \
            else config.defaults.timeout
        parser = coerce_parser_for_schema_flags(channel.output_parser, channel.flags)
        return Compensator(DEFAULT_COMPENSATOR, channel, False, timeout, parser, focus_map)
    name = block.channel
    chosen = config.channel(name)
    if chosen is None:
        raise ConfigError(f'Compensator channel "{name}" not found in config; add it under '
                          "channels: or change defaults.compensator.channel")
    if chosen.abstract:
        raise ConfigError(f'Compensator channel "{name}" is abstract and cannot be dispatched; '
                          "name a concrete channel in defaults.compensator.channel")
    parser = coerce_parser_for_schema_flags(chosen.output_parser, chosen.flags)
    return Compensator(name, chosen, True, config.timeout_for(name), parser, focus_map)


async def compensator_availability(compensator: Compensator) -> AuthResult:
    """Install + auth check of the compensator, run once per review."""
    channel = compensator.channel
    if (isinstance(channel, SubprocessChannel) and not isinstance(channel, ReplayChannel)
            and not (channel.command or "").strip()):
        return AuthResult("skipped", recovery="Compensator channel has no command")
    return await check_channel_async(compensator.name, channel)


def compensation_plans(passes: Sequence[CompensationPass], compensator: Compensator,
                       base_prompt: str) -> list[ChannelPlan]:
    """One dispatch plan per pass: focus + blank line + base prompt, in the compensator's
    own wrapper."""
    channel = compensator.channel
    wrapper = resolve_prompt_wrapper(channel.prompt_wrapper, compensator.name)
    return [
        ChannelPlan(
            name=item.name, channel=channel,
            prompt=compensating_prompt(focus_preamble(item.original, compensator.focus_map),
                                       base_prompt, wrapper),
            timeout_s=compensator.timeout_s, output_parser=compensator.output_parser,
            compensator=compensator.name,
        )
        for item in passes
    ]


async def _record_unavailable(passes: Sequence[CompensationPass], compensator: Compensator,
                              result: AuthResult,
                              ctx: DispatchContext) -> dict[str, ChannelOutcome]:
    status = auth_status_to_channel_status(result)
    auth = "skipped" if status == "skipped" else "failed"
    recovery = None if result.status == "timeout" else result.recovery
    outcomes: dict[str, ChannelOutcome] = {}
    for item in passes:
        await in_thread(ctx.store.register_compensating_pass, ctx.job_id, item.original,
                        compensator=compensator.name, output_parser="default", status=status,
                        auth=auth, recovery=recovery)
        outcomes[item.name] = ChannelOutcome(item.name, status, 0.0, error=recovery)
    return outcomes


async def run_compensation(
    passes: Sequence[CompensationPass], *, base_prompt: str, config: LoadedConfig,
    ctx: DispatchContext,
) -> tuple[dict[str, ChannelOutcome], list[str]]:
    """Check the compensator, register and dispatch the passes; return outcomes and notices.

    ``base_prompt`` is the review prompt *before* any channel's wrapper. Passes always run
    concurrently, whatever ``ctx.parallel`` says. The notices are lines for stderr.
    """
    notices: list[str] = []
    absent = getattr(passes, "not_compensated", ())
    if absent:
        notices.append(not_compensated_notice(absent))
    if not passes:
        return {}, notices
    compensator = compensator_for(config)
    switched_off = not compensator.configured and not is_effective(config.config,
                                                                   DEFAULT_COMPENSATOR)
    availability = (AuthResult("skipped") if switched_off
                    else await compensator_availability(compensator))
    if switched_off or availability.status == "not_installed":
        # A pass that cannot run would only add rows saying so: one notice instead.
        listed = ", ".join(item.original for item in passes)
        notices.append(f"[mmr] no compensating pass for {listed}: the compensator "
                       f"{compensator.name} is {'off' if switched_off else 'not installed'}; "
                       "install it, or pick one that runs: `mmr config set "
                       "defaults.compensator.channel <channel>`")
        return {}, notices
    if availability.status != "ok":
        outcomes = await _record_unavailable(passes, compensator, availability, ctx)
        detail = f": {availability.recovery}" if availability.recovery else ""
        notices.append(
            f"[mmr] compensator {compensator.name} is unavailable ({availability.status}"
            f"{detail}); {len(passes)} compensating pass(es) not run."
        )
        return outcomes, notices
    for item in passes:
        await in_thread(ctx.store.register_compensating_pass, ctx.job_id, item.original,
                        compensator=compensator.name, output_parser=compensator.output_parser)
    plans = compensation_plans(passes, compensator, base_prompt)
    outcomes = await dispatch_all(plans, replace(ctx, parallel=True))
    return outcomes, notices
