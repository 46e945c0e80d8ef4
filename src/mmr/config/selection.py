"""Which channels a command runs.

Default selection: the registry's enabled channels of the command's role, minus
``channels_disabled`` (aliases canonicalised), never abstract or retired. An explicit
``--channels`` list replaces it: it may name disabled channels (the operator asked for
them) but never unknown, retired, abstract, wrong-role or command-less ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mmr.config.aliases import RETIRED_REPLACEMENT, canonical_names, normalize_channel_name
from mmr.config.channel_schema import ReplayChannel
from mmr.config.schema import ChannelRole, HttpChannel, MmrConfig
from mmr.errors import ChannelSelectionError

#: The channel ``mmr explore`` runs when no explore channel is enabled.
FALLBACK_EXPLORE_CHANNEL = "minimax-explore"


def split_channel_args(values: Iterable[str]) -> list[str]:
    """``["qwen,deepseek", "agy", "antigravity,qwen"]`` → canonical, de-duplicated names."""
    names: list[str] = []
    for value in values:
        for piece in value.split(","):
            name = normalize_channel_name(piece.strip())
            if name and name not in names:
                names.append(name)
    return names


def disabled_channels(config: MmrConfig) -> set[str]:
    """Canonical names listed in ``channels_disabled`` (unknown names included, harmlessly)."""
    return canonical_names(config.channels_disabled or [])


def is_effective(config: MmrConfig, name: str) -> bool:
    """Whether default selection would run ``name`` (``config channels``' effective column).

    Abstract channels are not effective: default dispatch never runs them.
    """
    channel = config.channels.get(normalize_channel_name(name))
    return bool(
        channel is not None
        and channel.enabled
        and not channel.retired
        and not channel.abstract
        and normalize_channel_name(name) not in disabled_channels(config)
    )


def default_channels(config: MmrConfig, role: ChannelRole = "review") -> list[str]:
    """Effective channels of ``role``, in registry order."""
    return [name for name, channel in config.channels.items()
            if channel.role == role and is_effective(config, name)]


def select_channels(config: MmrConfig, requested: Sequence[str] | None,
                    *, role: ChannelRole = "review") -> list[str]:
    """The channels to dispatch, in order; ``requested`` is the raw ``--channels`` values.

    ``None`` means no ``--channels`` flag (default selection); an empty list is an empty
    explicit selection. ``mmr explore`` falls back to ``minimax-explore`` when no explore
    channel is enabled.
    """
    if requested is None:
        chosen = default_channels(config, role)
        if not chosen and role == "explore":
            return select_channels(config, [FALLBACK_EXPLORE_CHANNEL], role=role)
        return chosen
    names = split_channel_args(requested)
    for name in names:
        check_dispatchable(config, name, role=role)
    return names


def check_dispatchable(config: MmrConfig, name: str, *, role: ChannelRole = "review") -> None:
    """Raise ChannelSelectionError when ``name`` (canonical) cannot be dispatched by ``role``."""
    channel = config.channels.get(name)
    shown = _shown(name)
    if channel is None:
        raise ChannelSelectionError(_not_found(config, name))
    if channel.retired:
        replacement = RETIRED_REPLACEMENT.get(name)
        hint = f' — use "{replacement}" instead.' if replacement else "."
        raise ChannelSelectionError(f'Channel "{shown}" is retired and cannot be dispatched{hint}')
    if channel.abstract:
        raise ChannelSelectionError(f'Channel "{shown}" is abstract and cannot be dispatched')
    if channel.role != role:
        raise ChannelSelectionError(
            f'Channel "{shown}" has role {channel.role} and cannot be dispatched by {role}'
        )
    if not is_runnable(channel):
        raise ChannelSelectionError(
            f'Channel "{shown}" is not fully configured (missing command or kind: http)'
        )


def is_runnable(channel: object) -> bool:
    """An HTTP or replay channel, or a subprocess channel with a command."""
    return (isinstance(channel, HttpChannel | ReplayChannel)
            or bool((getattr(channel, "command", "") or "").strip()))


def _not_found(config: MmrConfig, name: str) -> str:
    from mmr.config.suggest import closest

    known = list(config.channels)
    best = closest(name, known)
    shown = _shown(name)
    if best is not None:
        return f'Channel "{shown}" not found in config; did you mean "{_shown(best)}"?'
    return f'Channel "{shown}" not found in config. Known channels: {", ".join(map(_shown, known))}'


def _shown(name: str) -> str:
    # Names reach error lines: escape control characters so none can forge a line.
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in name)
