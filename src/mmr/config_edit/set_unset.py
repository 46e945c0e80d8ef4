"""``mmr config set|unset <dotted.path>``: edit one key, kept only if valid.

The new file is written, then the config is loaded again (without the project layer for
``--global``, so a valid project value cannot hide a bad global one). If that load fails,
or ``set`` does not find its value at the path afterwards (a misspelt key the schema
dropped, or a value load-time enforcement rewrote), the file gets its exact old bytes
back — or is removed if the command created it — and the reason is reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmr.config.aliases import normalize_channel_name
from mmr.config.issues import ConfigValidationError
from mmr.config.loaded import LoadedConfig
from mmr.config.suggest import did_you_mean
from mmr.config_edit.command_errors import ConfigCommandError
from mmr.config_edit.scope import config_file, load
from mmr.config_edit.writer import (
    ConfigFile,
    ConfigWriteError,
    Scope,
    coerce_scalar,
    set_value,
    unset_value,
)
from mmr.errors import ConfigError

# The job store's rule (mmr.store.layout): every channel name becomes part of file names.
_CHANNEL_NAME = re.compile(r"[a-zA-Z0-9._-]+")


@dataclass(frozen=True)
class SetOutcome:
    file: ConfigFile


@dataclass(frozen=True)
class UnsetOutcome:
    file: ConfigFile
    removed: bool
    #: ``(True, value)`` when the merged config now supplies a value at the path.
    inherited: tuple[bool, Any] = (False, None)


def parse_path(typed: str) -> list[str]:
    """``channels.agy.timeout`` → ``["channels", "antigravity", "timeout"]``."""
    segments = typed.split(".")
    if len(segments) >= 2 and segments[0] == "channels":
        segments[1] = normalize_channel_name(segments[1])
    return segments


def set_config_value(typed: str, text: str, *, scope: Scope | None,
                     project_root: Path) -> SetOutcome:
    """Write ``text`` (coerced) at path ``typed`` in the user or project file."""
    segments = parse_path(typed)
    file = config_file(scope or "project", project_root)
    if len(segments) >= 2 and segments[0] == "channels":
        check_channel_target(segments, list(load(project_root).channels))
    value = coerce_scalar(segments, text)
    snapshot = _snapshot(file, f"Cannot set {typed}")
    try:
        set_value(file, segments, value)
    except ConfigWriteError as exc:
        raise ConfigCommandError(f"Cannot set {typed}: {exc}") from None
    reloaded, problem = _reload(project_root, file.scope)
    if reloaded is not None:
        found, loaded = lookup(reloaded, segments)
        if not found or not same_value(loaded, value):
            problem = f"'{typed}' is not a recognized config path"
    if problem is not None:
        file.restore(snapshot)
        raise ConfigCommandError(f"Cannot set {typed}: {problem}")
    return SetOutcome(file)


def check_channel_target(segments: Sequence[str], known: Sequence[str]) -> None:
    """Refuse a ``channels.<name>…`` path for an unknown channel, unless it creates one.

    ``channels.<new>.command <executable>`` is how a channel is added (MMR 4.0.1 cannot
    add one from the command line); the reload afterwards validates it like any edit.
    """
    name = segments[1]
    if name in known:
        return
    if list(segments[2:]) == ["command"] and _CHANNEL_NAME.fullmatch(name):
        return
    if not _CHANNEL_NAME.fullmatch(name):
        raise ConfigCommandError(f"Invalid channel name '{name}': use letters, digits, '.', "
                                 "'_' and '-' only.")
    raise ConfigCommandError(
        f"Unknown channel '{name}'{did_you_mean(name, known)}. Add it with `mmr config set "
        f"channels.{name}.command <executable>` first, or check the spelling."
    )


def unset_config_value(typed: str, *, scope: Scope | None, project_root: Path) -> UnsetOutcome:
    """Remove path ``typed`` from the user or project file; parents left empty go too."""
    segments = parse_path(typed)
    file = config_file(scope or "project", project_root)
    if not file.path.exists():
        raise ConfigCommandError(f"Nothing to unset: {file.path} does not exist.")
    snapshot = _snapshot(file, f"Cannot unset {typed}")
    try:
        removed = unset_value(file, segments)
    except ConfigWriteError as exc:
        raise ConfigCommandError(f"Cannot unset {typed}: {exc}") from None
    if not removed:
        return UnsetOutcome(file, removed=False)
    _, problem = _reload(project_root, file.scope)
    if problem is not None:
        file.restore(snapshot)
        raise ConfigCommandError(f"Cannot unset {typed}: {problem}")
    return UnsetOutcome(file, removed=True, inherited=lookup(load(project_root), segments))


def lookup(loaded: LoadedConfig, segments: Sequence[str]) -> tuple[bool, Any]:
    """``(found, value)`` at ``segments`` in the loaded config; unset optionals are not found."""
    node: Any = loaded.config.model_dump(mode="python", exclude_none=True)
    for segment in segments:
        if not isinstance(node, dict) or segment not in node:
            return False, None
        node = node[segment]
    return True, node


def same_value(loaded: Any, written: Any) -> bool:
    """Equal and of the same kind: ``True`` is not ``1``, but ``600`` is ``600.0``."""
    if isinstance(loaded, bool) or isinstance(written, bool):
        return type(loaded) is type(written) and loaded == written
    if isinstance(loaded, int | float) and isinstance(written, int | float):
        return bool(loaded == written)
    return type(loaded) is type(written) and bool(loaded == written)


def _snapshot(file: ConfigFile, prefix: str) -> bytes | None:
    try:
        return file.snapshot()
    except OSError as exc:  # a symlinked project file, an unreadable file
        raise ConfigCommandError(f"{prefix}: {exc}") from None


def _reload(project_root: Path, scope: Scope) -> tuple[LoadedConfig | None, str | None]:
    """The config after the edit (no project layer for ``--global``), or why it fails to load.

    The reason has one ``<file>: <path>: <message>`` line per schema issue.
    """
    try:
        return load(project_root, with_project=scope != "user", on_warning=_ignore), None
    except ConfigValidationError as exc:
        lines = "\n".join(f"  {issue.line()}" for issue in exc.issues)
        return None, f"the result does not validate\n{lines}"
    except ConfigError as exc:
        return None, str(exc)


def _ignore(_message: str) -> None:
    """Warnings of a validation load are not shown: the file may be rolled back."""
