"""Load the config: built-in → user file → project ``.mmr.yaml`` → CLI flags.

One readable pipeline: read and alias-normalise each layer, merge (with the extends-reset),
resolve ``extends``, warn about unknown keys, validate, re-assert tombstones, warn about
suspicious settings, check the compensator and that every enabled channel can run. Any
failure is a :class:`~mmr.errors.ConfigError` naming the file and the dotted key path.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mmr.config import checks
from mmr.config.aliases import normalize_channel_keys
from mmr.config.channel_schema import with_default_kind
from mmr.config.defaults import BUILTIN_LABEL, builtin_layer
from mmr.config.issues import ConfigIssue, ConfigValidationError, issues_from
from mmr.config.loaded import (
    ConfigLayer,
    LoadedConfig,
    ProjectSource,
    ProjectText,
    WarningSink,
)
from mmr.config.merge import deep_merge, mark, reset_redefined_channels, resolve_extends
from mmr.config.paths import project_config_path, user_config_path
from mmr.config.provenance import Provenance, Source, fill_missing
from mmr.config.schema import COMPENSATOR_EMPTY, MmrConfig
from mmr.config.unknown_keys import find_unknown_keys
from mmr.config.yaml_io import parse_config_mapping
from mmr.errors import ConfigError

CLI_LABEL = "command line"


def load_config(
    project_root: Path,
    *,
    project_source: ProjectSource | None,
    cli_overrides: Mapping[str, Any] | None = None,
    on_warning: Callable[[str], None] | None = None,
    default_format: str | None = None,
) -> LoadedConfig:
    """Load and validate the layered config.

    ``project_source``: ``WorkingTree()`` reads ``<project_root>/.mmr.yaml``;
    ``ProjectText`` supplies the text (trust mode reads it from a git ref); ``None``
    skips the project layer (untrusted modes). ``cli_overrides`` holds ``defaults``
    keys from flags (``fix_threshold``, ``timeout``, ``format``); None values are absent.
    ``default_format`` replaces the built-in ``defaults.format`` (text when stdout is a
    terminal), so a format set in a config file or by ``--format`` still wins.
    """
    sink = WarningSink(on_warning)
    builtin = builtin_layer()
    if default_format is not None:
        builtin["defaults"]["format"] = default_format
    layers = [ConfigLayer("default", BUILTIN_LABEL, None, builtin)]
    for layer in (_file_layer("user", user_config_path(), sink),
                  _project_layer(project_root, project_source, sink), _cli_layer(cli_overrides)):
        if layer is not None:
            layers.append(layer)
    labels: dict[str, str] = {layer.source: layer.label for layer in layers}

    values, sources = _merge(layers)
    provenance = Provenance(sources)

    def file_of(path: tuple[str | int, ...]) -> str:
        keys = tuple(str(segment) for segment in path)
        return labels.get(provenance.source_of(keys, nearest=True), BUILTIN_LABEL)

    def fail(path: tuple[str, ...], message: str) -> ConfigError:
        return ConfigError(f"{file_of(path)}: {'.'.join(path)}: {message}")

    if isinstance(values.get("channels"), dict):
        resolved, resolved_sources = resolve_extends(
            values["channels"], sources.get("channels", {}),
            describe=lambda name: f"{file_of(('channels', name, 'extends'))}: "
                                  f"channels.{name}.extends: ",
        )
        values["channels"] = {name: with_default_kind(ch) for name, ch in resolved.items()}
        sources["channels"] = resolved_sources

    _warn_unknown_keys(layers, values, sink)
    config = checks.enforce_tombstones(_validate(values, file_of))
    _fill_provenance(sources, config)
    for message in checks.load_warnings(config):
        sink(message)
    checks.check_compensator(config, fail)
    checks.check_runnable(config, fail)
    cli_timeout = config.defaults.timeout if "timeout" in _cli_defaults(layers) else None
    return LoadedConfig(config, provenance, tuple(layers), tuple(sink.messages), cli_timeout)


def _file_layer(source: Source, path: Path, warn: Callable[[str], None]) -> ConfigLayer | None:
    """A config file's layer; None when the file does not exist (or cannot be read: warned)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise ConfigError(f"Failed to parse {path}: the file is not UTF-8 text") from None
    except OSError as exc:
        warn(f"mmr: config file {path} cannot be read ({exc.strerror or exc}); ignoring it")
        return None
    return _text_layer(source, text, str(path), path, warn)


def _project_layer(project_root: Path, project_source: ProjectSource | None,
                   warn: Callable[[str], None]) -> ConfigLayer | None:
    if project_source is None:
        return None
    if isinstance(project_source, ProjectText):
        return _text_layer("project", project_source.text, project_source.origin, None, warn)
    return _file_layer("project", project_config_path(project_root), warn)


def _text_layer(source: Source, text: str, label: str, path: Path | None,
                warn: Callable[[str], None]) -> ConfigLayer:
    data = parse_config_mapping(text, label)
    return ConfigLayer(source, label, path, _normalise_layer(data, label, warn))


def _normalise_layer(data: dict[str, Any], label: str,
                     warn: Callable[[str], None]) -> dict[str, Any]:
    """Null top-level mappings are "not set"; channel aliases become canonical."""
    data = {key: value for key, value in data.items()
            if not (value is None and key in ("defaults", "channels", "templates"))}
    channels = data.get("channels")
    if isinstance(channels, dict):
        kept: dict[str, Any] = {}
        for name, channel in channels.items():
            if channel is None:
                warn(f"mmr: config {label}: channels.{name} has no settings; ignoring it")
            else:
                kept[name] = channel
        data["channels"] = normalize_channel_keys(kept, warn)
    return data


def _cli_layer(overrides: Mapping[str, Any] | None) -> ConfigLayer | None:
    given = {key: value for key, value in (overrides or {}).items() if value is not None}
    return ConfigLayer("cli", CLI_LABEL, None, {"defaults": given}) if given else None


def _cli_defaults(layers: list[ConfigLayer]) -> dict[str, Any]:
    cli = next((layer for layer in layers if layer.source == "cli"), None)
    return cli.data["defaults"] if cli is not None else {}


def _merge(layers: list[ConfigLayer]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Deep-merge the layers in order, values and provenance alike."""
    values: dict[str, Any] = copy.deepcopy(layers[0].data)  # the extends-reset edits in place
    sources: dict[str, Any] = mark(values, layers[0].source)
    for layer in layers[1:]:
        if layer.source != "cli":
            reset_redefined_channels(values, sources, layer.data)
        values = deep_merge(values, layer.data)
        sources = deep_merge(sources, mark(layer.data, layer.source))
    return values, sources


def _warn_unknown_keys(layers: list[ConfigLayer], merged: dict[str, Any],
                       warn: Callable[[str], None]) -> None:
    """One warning per unknown key, naming its file, with a did-you-mean."""
    for layer in layers[1:]:
        for unknown in find_unknown_keys(MmrConfig, layer.data, merged):
            from mmr.config.suggest import did_you_mean

            hint = did_you_mean(unknown.key, unknown.known)
            warn(f'mmr: config {layer.label}: unknown key "{unknown.dotted}" ignored{hint}')


def _validate(values: dict[str, Any], file_of: Callable[[tuple[str | int, ...]], str]) -> MmrConfig:
    """Schema validation collecting every issue before failing."""
    issues: list[ConfigIssue] = []
    config: MmrConfig | None = None
    try:
        config = MmrConfig.model_validate(values)
    except ValidationError as exc:
        issues.extend(issues_from(exc, values, file_of))
    compensator = values.get("defaults", {}).get("compensator") if isinstance(
        values.get("defaults"), dict) else None
    if isinstance(compensator, dict) and not {"channel", "channel_focus_map"} & set(compensator):
        path = ("defaults", "compensator")
        empty = ConfigIssue("defaults.compensator", COMPENSATOR_EMPTY, file_of(path))
        if empty not in issues:
            issues.append(empty)
    if issues or config is None:
        raise ConfigValidationError(issues)
    return config


def _fill_provenance(sources: dict[str, Any], config: MmrConfig) -> None:
    """Schema-filled leaves are ``default`` — after extends, so inherited sources show."""
    defaults_tree = sources.setdefault("defaults", {})
    if isinstance(defaults_tree, dict):
        fill_missing(defaults_tree, config.defaults.model_dump(mode="python"))
    channel_trees = sources.setdefault("channels", {})
    if not isinstance(channel_trees, dict):
        return
    for name, channel in config.channels.items():
        tree = channel_trees.get(name)
        if not isinstance(tree, dict):
            tree = channel_trees[name] = {}
        fill_missing(tree, channel.model_dump(mode="python"))
