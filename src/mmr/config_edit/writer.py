"""Edit a config file in place of the user: set, unset, enable/disable, prune.

Each edit reads the file, applies a change to its round-trip document (comments, order
and quoting kept, :mod:`mmr.config_edit.yaml_edit`) and writes it back atomically
(:mod:`mmr.config_edit.atomic_file`: 0600 for a new file, an existing file's mode kept, the
project file never written through a symlink). A file that does not exist yet starts as
``version: 1``. Validating the result and rolling it back is the caller's job
(``config set``/``unset``); the writer only refuses files it cannot edit safely.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mmr.config.aliases import alias_of, normalize_channel_name
from mmr.config_edit.atomic_file import (
    SymlinkRefused,
    ensure_parent_dir,
    read_snapshot,
    replace_file,
    restore_snapshot,
    symlink_refusal,
)
from mmr.config_edit.yaml_edit import NEW_FILE_TEXT, EditableConfig, YamlEditError
from mmr.errors import MmrError

Scope = Literal["user", "project"]
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
#: Path segments whose children are always strings.
_STRING_MAPS = frozenset({"env", "headers"})


class ConfigWriteError(MmrError):
    """The writer refused to touch the file (symlink, syntax error, several documents …)."""


@dataclass(frozen=True)
class ConfigFile:
    """A config file mmr may write: the user file (its link is followed) or the project one."""

    path: Path
    scope: Scope

    @property
    def follow_symlink(self) -> bool:
        return self.scope == "user"

    def snapshot(self) -> bytes | None:
        """The current bytes, or None when the file does not exist (for a rollback)."""
        return read_snapshot(self.path, follow_symlink=self.follow_symlink)

    def restore(self, snapshot: bytes | None) -> None:
        """Put back a :meth:`snapshot` exactly (or remove a file the edit created)."""
        restore_snapshot(self.path, snapshot, follow_symlink=self.follow_symlink)


def edit_config(file: ConfigFile, edit: Callable[[EditableConfig], bool], *,
                create: bool = True) -> bool:
    """Apply ``edit`` to the file's document and write it if ``edit`` returns True.

    ``create=False`` (unset) never creates a missing file: returns False instead.
    Raises :class:`ConfigWriteError` with the reason for a file that cannot be edited.
    """
    if file.path.is_symlink() and not file.follow_symlink:
        raise ConfigWriteError(symlink_refusal(file.path))
    snapshot = file.snapshot()
    if snapshot is None and not create:
        return False
    try:
        text = NEW_FILE_TEXT if snapshot is None else snapshot.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigWriteError(f"cannot edit {file.path}: it is not UTF-8 text") from None
    try:
        document = EditableConfig.parse(text, str(file.path))
        if not edit(document):
            return False
        output = document.dump()
    except YamlEditError as exc:
        raise ConfigWriteError(str(exc)) from None
    try:
        ensure_parent_dir(file.path)
        replace_file(file.path, output.encode("utf-8"), follow_symlink=file.follow_symlink)
    except SymlinkRefused as exc:
        raise ConfigWriteError(str(exc)) from None
    except OSError as exc:
        raise ConfigWriteError(f"cannot write {file.path}: {exc.strerror or exc}") from None
    return True


def coerce_scalar(segments: Sequence[str], text: str) -> bool | int | float | str:
    """The typed value ``config set`` writes for ``text``.

    Under ``env``/``headers`` everything stays a string. Otherwise ``true``/``false``
    are booleans and plain decimals (optional sign and exponent) are numbers, integral
    ones as ints (``600``, ``1e3`` → 1000); anything else (``0x10``, ``Infinity``,
    ``1_000``) stays a string.
    """
    if any(segment in _STRING_MAPS for segment in segments[:-1]):
        return text
    if text in ("true", "false"):
        return text == "true"
    trimmed = text.strip()
    if not _DECIMAL.fullmatch(trimmed):
        return text
    number = float(trimmed)
    if math.isfinite(number) and number.is_integer() and abs(number) < 2**63:
        return int(number)
    return number


def channel_key(document: EditableConfig, name: str) -> str:
    """The key to edit for channel ``name`` in this file: the one already present.

    A file that spells the channel with its alias (``agy:``) is edited under that key
    rather than gaining a second, canonical block that would hide it.
    """
    canonical = normalize_channel_name(name)
    found, channels = document.get(["channels"])
    if found and isinstance(channels, dict) and canonical not in channels:
        alias = alias_of(canonical)
        if alias is not None and alias in channels:
            return alias
    return canonical


def file_segments(document: EditableConfig, segments: Sequence[str]) -> list[str]:
    """``segments`` with a ``channels.<name>`` part spelt as this file spells it."""
    if len(segments) >= 2 and segments[0] == "channels":
        return ["channels", channel_key(document, segments[1]), *segments[2:]]
    return list(segments)


def set_value(file: ConfigFile, segments: Sequence[str], value: Any) -> None:
    """Write ``value`` at ``segments`` (mappings created as needed, the file too)."""
    def edit(document: EditableConfig) -> bool:
        document.set(file_segments(document, segments), value)
        return True

    edit_config(file, edit)


def unset_value(file: ConfigFile, segments: Sequence[str]) -> bool:
    """Remove the key at ``segments``; False when the file or the key does not exist."""
    return edit_config(file, lambda document: document.delete(file_segments(document, segments)),
                       create=False)


def set_channel_enabled(file: ConfigFile, name: str, enabled: bool) -> None:
    """``channels.<name>.enabled``; enabling also drops the name from this file's
    ``channels_disabled`` (aliases included). A name with a dot stays one key."""
    def edit(document: EditableConfig) -> bool:
        document.set(["channels", channel_key(document, name), "enabled"], enabled)
        if enabled:
            drop_from_channels_disabled(document, name)
        return True

    edit_config(file, edit)


def drop_from_channels_disabled(document: EditableConfig, name: str) -> bool:
    """Remove every entry whose canonical form is ``name``'s; True when one was removed."""
    found, entries = document.get(["channels_disabled"])
    if not found or not isinstance(entries, list):
        return False
    canonical = normalize_channel_name(name)
    doomed = [index for index, entry in enumerate(entries)
              if isinstance(entry, str) and normalize_channel_name(entry) == canonical]
    for index in reversed(doomed):
        del entries[index]
    return bool(doomed)
