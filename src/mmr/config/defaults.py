"""The built-in layer: the default ``defaults`` block plus the shipped channel presets.

The ``defaults`` block is the schema's own defaults (each declared once, in
:mod:`mmr.config.schema`). Presets are pure data under ``channels/`` (one file per
channel, root key = channel name). Their registry order is the explicit constant below,
never directory order.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from mmr.errors import ConfigError

#: Registry order of the built-in channels, as MMR 4.0.1 lists them.
BUILTIN_CHANNEL_ORDER: tuple[str, ...] = (
    "claude", "gemini", "codex", "grok", "antigravity", "opencode", "doc-conformance",
    "minimax", "minimax-m3", "minimax-explore",
)

BUILTIN_LABEL = "built-in defaults"


def builtin_layer() -> dict[str, Any]:
    """A fresh copy of the built-in layer: ``version``, ``defaults`` and every preset."""
    return copy.deepcopy(_builtin_layer())


@cache
def _builtin_layer() -> dict[str, Any]:
    from mmr.config.schema import Defaults, MmrConfig

    channels = {name: _read_preset(name) for name in BUILTIN_CHANNEL_ORDER}
    defaults = Defaults().model_dump(mode="python", exclude_none=True)
    version = MmrConfig.model_fields["version"].default
    return {"version": version, "defaults": defaults, "channels": channels}


def _read_preset(name: str) -> dict[str, Any]:
    from mmr.config.yaml_io import parse_config_mapping
    from mmr.resources import channels_dir

    path = channels_dir() / f"{name}.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"built-in channel preset {path} cannot be read: {exc}") from None
    document = parse_config_mapping(text, str(path))
    if list(document) != [name] or not isinstance(document[name], dict):
        raise ConfigError(f"built-in channel preset {path} must hold one mapping, keyed {name!r}")
    channel: dict[str, Any] = document[name]
    return channel


#: Claude Code loads no project/local settings (hooks, plugins) and no ``.mcp.json``.
CLAUDE_ISOLATION_FLAGS = ("--setting-sources", "user", "--strict-mcp-config")


def default_compensator_channel() -> dict[str, Any]:
    """The fixed fallback compensator, as a raw subprocess channel mapping.

    Not the registry's ``claude``: ``claude -p --output-format json`` (with the preset's
    isolation flags: no project settings or MCP servers), stderr captured,
    ``defaults.timeout``, and the preset's parser (the claude envelope unwrapped before the
    default parser).
    Validate it with ``SubprocessChannel.model_validate``.
    """
    return {
        "kind": "subprocess",
        "command": "claude -p",
        "flags": ["--output-format", "json", *CLAUDE_ISOLATION_FLAGS],
        "output_parser": copy.deepcopy(_builtin_layer()["channels"]["claude"]["output_parser"]),
        "stderr": "capture",
    }
