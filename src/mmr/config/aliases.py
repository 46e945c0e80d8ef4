"""Channel-name aliases and retired channels."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: Short names accepted wherever a channel is named.
CHANNEL_ALIASES: Mapping[str, str] = {"agy": "antigravity", "opc": "opencode"}

#: Built-in retired channels and the channel that replaced each one.
RETIRED_REPLACEMENT: Mapping[str, str] = {"gemini": "antigravity"}


def normalize_channel_name(name: str) -> str:
    """The canonical channel name for ``name`` (an alias maps to its channel)."""
    return CHANNEL_ALIASES.get(name, name)


def alias_of(canonical: str) -> str | None:
    """The alias of a canonical channel name, if it has one."""
    for alias, target in CHANNEL_ALIASES.items():
        if target == canonical:
            return alias
    return None


def canonical_names(names: Iterable[str]) -> set[str]:
    """Canonical forms of a list of channel names (e.g. ``channels_disabled`` entries)."""
    return {normalize_channel_name(name) for name in names if isinstance(name, str)}


def normalize_channel_keys(
    channels: Mapping[str, Any], warn: Callable[[str], None]
) -> dict[str, Any]:
    """Rename alias keys of one layer's ``channels`` mapping to their canonical names.

    An alias without its canonical key is renamed in place (same position); an alias next
    to its canonical key is dropped. Both cases warn.
    """
    result: dict[str, Any] = {}
    for key, value in channels.items():
        canonical = CHANNEL_ALIASES.get(key)
        if canonical is None:
            result[key] = value
        elif canonical in channels:
            warn(
                f'mmr: config channel "{key}" is an alias for "{canonical}"; '
                f'"{canonical}" is also set — ignoring "{key}"'
            )
        else:
            warn(f'mmr: config channel "{key}" is an alias for "{canonical}"; using "{canonical}"')
            result[canonical] = value
    return result
