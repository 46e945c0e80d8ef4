"""Which layer set each loaded value: ``default``, ``user``, ``project`` or ``cli``.

The tree mirrors the config: mappings are recursed into, and every leaf (a scalar or a
whole list) holds the name of the last layer that set it. ``config show`` annotates
leaves with it, ``config channels`` shows a channel's ``enabled`` source, and load errors
use it to name the file that supplied a bad value.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Source = Literal["default", "user", "project", "cli"]
SOURCE_ORDER: tuple[Source, ...] = ("default", "user", "project", "cli")


@dataclass(frozen=True)
class Provenance:
    """Per-leaf sources for ``defaults.*`` and ``channels.<name>.*``."""

    tree: dict[str, Any] = field(default_factory=dict)

    def source_of(self, path: Sequence[str], *, nearest: bool = False) -> Source:
        """The layer that set the leaf at ``path``; ``default`` when nothing set it.

        For a mapping-valued path, the newest layer among its leaves. ``nearest``: a missing
        leaf reports its closest existing parent instead.
        """
        node: Any = self.tree
        for segment in path:
            if isinstance(node, dict) and segment in node:
                node = node[segment]
            elif nearest:
                break
            else:
                return "default"
        return _newest(node)


def fill_missing(tree: dict[str, Any], value: Any, source: Source = "default") -> None:
    """Mark every leaf of ``value`` that ``tree`` has no source for (schema-filled fields)."""
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        if item is None:
            continue
        if isinstance(item, dict):
            sub = tree.get(key)
            if not isinstance(sub, dict):
                if isinstance(sub, str):
                    continue  # the whole mapping came from one layer as a unit
                sub = tree[key] = {}
            fill_missing(sub, item, source)
        else:
            tree.setdefault(key, source)


def _leaves(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for item in node.values():
            yield from _leaves(item)
    elif isinstance(node, str):
        yield node


def _newest(node: Any) -> Source:
    found = set(_leaves(node))
    for source in reversed(SOURCE_ORDER):
        if source in found:
            return source
    return "default"
