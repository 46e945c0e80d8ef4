"""Checks that run after schema validation, and load-time warnings."""

from __future__ import annotations

import re
from collections.abc import Callable

from mmr.config.aliases import RETIRED_REPLACEMENT
from mmr.config.channel_schema import ReplayChannel
from mmr.config.schema import HttpChannel, MmrConfig, SubprocessChannel
from mmr.config.wrapper import PROMPT_TOKEN, wrapper_template
from mmr.errors import ConfigError
from mmr.parsers.registry import registered_names
from mmr.parsers.specs import ParserSpec, UnwrapJsonpathSpec

#: ``fail(path, message)`` builds the error, naming the file that supplied ``path``.
Fail = Callable[[tuple[str, ...], str], ConfigError]
DISPATCHABLE_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def enforce_tombstones(config: MmrConfig) -> MmrConfig:
    """Built-in retired channels stay retired and disabled, whatever the config says."""
    channels = dict(config.channels)
    changed = False
    for name in RETIRED_REPLACEMENT:
        channel = channels.get(name)
        if channel is not None and (channel.retired is not True or channel.enabled):
            channels[name] = channel.model_copy(update={"retired": True, "enabled": False})
            changed = True
    return config.model_copy(update={"channels": channels}) if changed else config


def check_compensator(config: MmrConfig, fail: Fail) -> None:
    """The compensator must name a concrete, dispatchable review channel."""
    compensator = config.defaults.compensator
    if compensator is None or compensator.channel is None:
        return
    path = ("defaults", "compensator", "channel")
    name = compensator.channel
    if not name.strip():
        raise fail(path, "defaults.compensator.channel cannot be empty. Configure a concrete "
                         "channel name in the channels: section, or remove the compensator block.")
    channel = config.channels.get(name)
    if channel is None:
        raise fail(path, f'defaults.compensator.channel references unknown channel "{name}". '
                         "Configure a channel with this name in the channels: section, or "
                         "remove the compensator block.")
    if channel.abstract:
        raise fail(path, f'defaults.compensator.channel "{name}" is marked abstract: true '
                         "(T1-A). Abstract channels are non-dispatchable templates; reference "
                         "a concrete channel that extends it instead.")
    if channel.retired:
        raise fail(path, f'defaults.compensator.channel "{name}" is retired and cannot be a '
                         "compensator. Reference a supported channel (e.g. antigravity) instead.")
    if channel.role != "review":
        raise fail(path, f'defaults.compensator.channel "{name}" has role {channel.role} and '
                         "cannot be a compensator. Reference a review channel instead.")
    if (isinstance(channel, SubprocessChannel) and not isinstance(channel, ReplayChannel)
            and not (channel.command or "").strip()):
        raise fail(path, f'defaults.compensator.channel "{name}" is missing command. '
                         "Compensator channels must be concrete dispatch targets.")


def check_runnable(config: MmrConfig, fail: Fail) -> None:
    """Every enabled, concrete subprocess channel needs a command."""
    for name, channel in config.channels.items():
        if (channel.abstract or not channel.enabled
                or isinstance(channel, HttpChannel | ReplayChannel)):
            continue
        if not (channel.command or "").strip():
            raise fail(("channels", name, "command"),
                       f'Channel "{name}" must define command after inheritance unless '
                       "abstract is set")


def load_warnings(config: MmrConfig) -> list[str]:
    """Suspicious but legal settings: secret-looking headers, wrappers, parser names, names."""
    from mmr.config.suggest import did_you_mean

    known_parsers = registered_names()
    messages: list[str] = []
    for name, channel in config.channels.items():
        messages.extend(_secret_header_warnings(name, channel))
        if not DISPATCHABLE_NAME.match(name):
            messages.append(f'mmr: config channel name "{name}" cannot be dispatched; use only '
                            'letters, digits, ".", "_" and "-"')
        if channel.abstract or channel.retired:
            continue
        wrapper = channel.prompt_wrapper
        if PROMPT_TOKEN not in wrapper and wrapper_template(wrapper) is None:
            messages.append(f"mmr: config channels.{name}.prompt_wrapper has no {PROMPT_TOKEN}; "
                            "the review content will not be sent")
        for parser in _parser_names(channel.output_parser):
            if parser not in known_parsers:
                hint = did_you_mean(parser, known_parsers)
                messages.append(f"mmr: config channels.{name}.output_parser: unknown "
                                f"output_parser '{parser}'; using default{hint}")
    return messages


def _secret_header_warnings(name: str, channel: SubprocessChannel | HttpChannel) -> list[str]:
    """A header *named* like a secret means a literal credential sits in the config."""
    if not channel.headers:
        return []
    from mmr.secrets.redact import is_secret_key

    return [
        f'[mmr] warning: channel "{name}" has a literal "{header}" header. For HTTP channels '
        "in v3.30, move the secret to an env var and reference it via api_key_env."
        for header in channel.headers
        if is_secret_key(header, exempt_env_name=False)
    ]


def _parser_names(spec: ParserSpec) -> list[str]:
    """The parser names a spec uses: the string itself, or an unwrap's ``then`` chain."""
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, UnwrapJsonpathSpec):
        return _parser_names(spec.then)
    return []
