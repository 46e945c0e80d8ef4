"""Read-only views of a loaded config: ``config channels``, ``config show``, ``config path``.

Pure functions from a :class:`~mmr.config.loaded.LoadedConfig` to text or JSON-ready
rows, so every rendering rule is tested without a terminal. Values are
redacted by :mod:`mmr.secrets.redact` unless the caller asked for ``--no-redact``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmr.config.aliases import normalize_channel_name
from mmr.config.loaded import LoadedConfig
from mmr.config.provenance import SOURCE_ORDER, Source
from mmr.config.selection import disabled_channels, is_effective
from mmr.secrets.redact import REDACTED, redact_channel_show, redact_inherited_value, redact_text

LIST_NO_REDACT_WARNING = (
    "WARNING: --no-redact is enabled; secrets in commands/env/headers may be printed verbatim."
)
SHOW_NO_REDACT_WARNING = (
    "WARNING: --no-redact is enabled; secrets in env/headers are printed verbatim."
)
#: Channel fields whose value is a fixed policy word, never a secret, although the key
#: name reads like one to the classifier (``on_credentials: redact``).
_POLICY_FIELDS = frozenset({"on_credentials"})


def js_value(value: Any) -> Any:
    """``value`` with integral floats as ints, as JavaScript prints numbers (``600``)."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(key): js_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [js_value(item) for item in value]
    return value


def compact_json(value: Any) -> str:
    """``["a","b"]``: the value rendering of ``config show`` and ``now inherits:``."""
    return json.dumps(js_value(value), separators=(",", ":"), ensure_ascii=False)


def channel_source(loaded: LoadedConfig, name: str) -> Source:
    """The source ``config channels`` and enable/disable report for a channel:
    the layer whose ``channels_disabled`` lists it, else the source of its ``enabled``.

    An ``enabled`` no layer set is the schema's, and MMR 4.0.1 then says ``default``
    even for a channel only the user or project file defines; mmr names that file's layer
    (docs/differences/config-commands.md).
    """
    if name in disabled_channels(loaded.config):
        listed = loaded.channels_disabled_source
        if listed is not None:
            return listed
    source = source_at(loaded, ("channels", name, "enabled"))
    return defined_in(loaded, name) if source == "default" else source


def defined_in(loaded: LoadedConfig, name: str) -> Source:
    """The first layer that defines channel ``name`` (``default`` for a built-in)."""
    for layer in loaded.layers:
        channels = layer.data.get("channels")
        if isinstance(channels, dict) and name in channels:
            return layer.source
    return "default"


def source_at(loaded: LoadedConfig, path: Sequence[str]) -> Source:
    """The layer that set the leaf at ``path``; a mapping set whole by one layer counts."""
    node: Any = loaded.provenance.tree
    for segment in path:
        if isinstance(node, str):
            break  # a whole value (e.g. a string parser) set by one layer
        if not isinstance(node, dict) or segment not in node:
            return "default"
        node = node[segment]
    if isinstance(node, str) and node in SOURCE_ORDER:
        return node
    return loaded.provenance.source_of(path)


def channel_rows(loaded: LoadedConfig, *, redact: bool = True) -> list[dict[str, Any]]:
    """One row per channel, registry order: name, enabled, effective, command, parser, source."""
    rows: list[dict[str, Any]] = []
    for name, channel in loaded.channels.items():
        row: dict[str, Any] = {
            "name": name,
            "enabled": channel.enabled,
            "effective": is_effective(loaded.config, name),
        }
        if channel.command is not None:
            row["command"] = redact_text(channel.command) if redact else channel.command
        parser = channel.output_parser
        row["parser"] = parser if isinstance(parser, str) else f"<{parser.kind}>"
        row["source"] = channel_source(loaded, name)
        rows.append(row)
    return rows


def channels_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The ``--format text`` table: CHANNEL padded to 18, STATUS to 11, SOURCE as is."""
    lines = [f"{'CHANNEL':<18}{'STATUS':<11}SOURCE"]
    for row in rows:
        status = "enabled" if row["effective"] else "disabled"
        lines.append(f"{row['name']:<18}{status:<11}{row['source']}")
    return "\n".join(lines)


def show_channel(loaded: LoadedConfig, name: str, *, redact: bool = True) -> str | None:
    """``config show <name>``: every field with ``# from <source>``; None if unknown.

    An alias names its channel; an empty mapping prints ``{}``.
    """
    canonical = normalize_channel_name(name)
    channel = loaded.channels.get(canonical)
    if channel is None:
        return None
    raw = channel.model_dump(mode="python", exclude_none=True)
    shown = _keep_policy_words(raw, redact_channel_show(raw)) if redact else raw
    lines = [f"# Channel: {canonical}"]
    _show_lines(loaded, ("channels", canonical), raw, shown=shown, indent="", lines=lines)
    return "\n".join(lines)


def redacted_inherited(segments: Sequence[str], value: Any) -> Any:
    """The value ``config unset`` reports as now inherited, redacted for display."""
    shown = redact_inherited_value(segments, value)
    is_channel = len(segments) == 2 and segments[0] == "channels"
    if is_channel and isinstance(value, Mapping) and isinstance(shown, dict):
        return _keep_policy_words(value, shown)
    if len(segments) == 3 and segments[0] == "channels" and segments[2] in _POLICY_FIELDS:
        return value
    return shown


def _keep_policy_words(raw: Mapping[str, Any], shown: dict[str, Any]) -> dict[str, Any]:
    return {key: raw[key] if key in _POLICY_FIELDS else item for key, item in shown.items()}


def _show_lines(loaded: LoadedConfig, path: tuple[str, ...], raw: Mapping[str, Any], *,
                shown: Mapping[str, Any], indent: str, lines: list[str]) -> None:
    for key, value in raw.items():
        here = (*path, key)
        display = shown.get(key, value)
        if isinstance(value, Mapping) and value and isinstance(display, Mapping):
            lines.append(f"{indent}{key}:")
            _show_lines(loaded, here, value, shown=display, indent=indent + "  ", lines=lines)
            continue
        whole = display == REDACTED and value != REDACTED
        text = REDACTED if whole else compact_json(display)
        lines.append(f"{indent}{key}: {text}  # from {source_at(loaded, here)}")


def paths_report(user_path: Path, project_path: Path, note: str | None = None) -> str:
    """``config path``: the layer search order and where writes go, then ``note``."""
    def status(path: Path) -> str:
        return "✓ exists" if path.exists() else "✗ not found"

    return "\n".join([
        "Search order (later wins):",
        "  1 built-in defaults      (always)",
        f"  2 {user_path}      {status(user_path)}",
        f"  3 {project_path}            {status(project_path)}",
        "  4 CLI flags              (per-invocation)",
        f"write target (default): {project_path}",
        f"                  --global → {user_path}",
        *([note] if note else []),
    ])
