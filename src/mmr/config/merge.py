"""Pure functions over plain dicts: layer merging and ``extends`` resolution.

Values and their provenance are trees of the same shape (a provenance leaf is the name of
the layer that set it), so the same merge applies to both, and extends resolution walks
both side by side.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mmr.config.aliases import normalize_channel_name
from mmr.errors import ConfigError

MAX_EXTENDS_DEPTH = 4


def deep_merge(base: Any, overlay: Any) -> Any:
    """Overlay wins; mappings merge recursively, everything else (lists too) replaces.

    The result keeps base's key order and appends keys new in overlay. Neither input is
    modified.
    """
    if not isinstance(base, dict) or not isinstance(overlay, dict):
        return overlay
    result = dict(base)
    for key, value in overlay.items():
        result[key] = deep_merge(result[key], value) if key in result else value
    return result


def mark(value: Any, source: str) -> Any:
    """The provenance tree of one layer's value: every leaf (scalar or whole list) → source."""
    if isinstance(value, dict):
        return {key: mark(item, source) for key, item in value.items()}
    return source


def reset_redefined_channels(values: dict[str, Any], sources: dict[str, Any],
                             incoming: dict[str, Any]) -> None:
    """Extends-reset: a layer channel with a string ``extends`` replaces, not merges.

    The accumulated channel of that name becomes an empty mapping in place (its position in
    the registry order is kept), so no stale built-in field survives the redefinition.
    """
    layer_channels = incoming.get("channels")
    known = values.get("channels")
    if not isinstance(layer_channels, dict) or not isinstance(known, dict):
        return
    known_sources = sources.get("channels")
    for name, channel in layer_channels.items():
        if isinstance(channel, dict) and isinstance(channel.get("extends"), str) and name in known:
            known[name] = {}
            if isinstance(known_sources, dict):
                known_sources[name] = {}


def resolve_extends(values: dict[str, Any], sources: dict[str, Any],
                    describe: Callable[[str], str] | None = None,
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Resolve every channel's ``extends`` chain, in registry order, values and sources alike.

    ``describe(name)`` gives the prefix naming the file and key for an error (optional).
    Raises ConfigError for a missing parent, a cycle or a chain deeper than 4 hops.
    """
    done_values: dict[str, Any] = {}
    done_sources: dict[str, Any] = {}

    def fail(name: str, message: str) -> ConfigError:
        prefix = describe(name) if describe is not None else f"channels.{name}.extends: "
        return ConfigError(prefix + message)

    def resolve(name: str, stack: list[str]) -> None:
        # No memo: the depth rule counts the whole chain from every channel, as the
        # MMR 4.0.1 does (a parent resolved earlier does not shorten a child's chain).
        raw = values[name]
        own_sources = sources.get(name, {})
        parent = raw.get("extends") if isinstance(raw, dict) else None
        if not isinstance(parent, str):
            # A non-string extends is not followed; the schema then rejects it.
            done_values[name] = raw
            done_sources[name] = own_sources
            return
        parent = normalize_channel_name(parent)
        chain = [*stack, name]
        if parent in chain:
            arrow = " -> ".join([*chain, parent])
            raise fail(name, f"Channel extends cycle detected: {arrow}")
        if len(chain) > MAX_EXTENDS_DEPTH:
            arrow = " -> ".join([*chain, parent])
            raise fail(chain[0], f"Channel extends depth exceeds max ({MAX_EXTENDS_DEPTH}) "
                                 f"at {arrow}")
        if parent not in values:
            raise fail(name, f'Channel "{parent}" referenced by extends not found')
        resolve(parent, chain)
        done_values[name] = _inherit(done_values[parent], raw)
        done_sources[name] = _inherit(done_sources[parent], own_sources,
                                      keep_abstract="abstract" in raw)

    for channel_name in values:
        resolve(channel_name, [])
    order = list(values)
    return ({name: done_values[name] for name in order},
            {name: done_sources[name] for name in order})


def _inherit(parent: Any, child: dict[str, Any], keep_abstract: bool | None = None) -> Any:
    """The child's own mapping (minus ``extends``) merged over a copy of its resolved parent.

    ``abstract`` is never inherited: it survives only when the child itself set it.
    """
    own = {key: value for key, value in child.items() if key != "extends"}
    merged = deep_merge(copy.deepcopy(parent), own) if isinstance(parent, dict) else own
    if not (("abstract" in child) if keep_abstract is None else keep_abstract):
        merged.pop("abstract", None)
    return merged
