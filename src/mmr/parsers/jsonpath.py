"""The JSONPath subset of ``unwrap-jsonpath`` and of channel telemetry.

``path := "$" segment*`` with ``.name``, ``[digits]`` and ``.[digits]`` segments. Paths
are parsed whole (so config load can reject a bad one), then walked; a walk that
finds nothing returns :data:`NO_MATCH`, which is distinct from a JSON ``null``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Prop:
    name: str


@dataclass(frozen=True, slots=True)
class Index:
    position: int


@dataclass(frozen=True, slots=True)
class FirstMember:
    """``.*`` in a telemetry path: the first member of an object, in document order."""


Segment = Prop | Index | FirstMember


class _NoMatch:
    _instance: _NoMatch | None = None

    def __new__(cls) -> _NoMatch:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_MATCH"

    def __bool__(self) -> bool:
        return False


NO_MATCH: Final = _NoMatch()

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_DIGITS = re.compile(r"[0-9]+")
# Names that would reach JavaScript's prototype chain in MMR 4.0.1: never a match.
_UNSAFE_NAMES = frozenset({"__proto__", "constructor", "prototype"})


@lru_cache(maxsize=512)
def parse_path(path: str, *, allow_wildcard: bool = False) -> tuple[Segment, ...]:
    """Parse ``path`` into segments; raise ValueError with MMR 4.0.1's messages."""
    if not path.startswith("$"):
        raise ValueError(f"jsonpath must start with $ (got: {path})")
    segments: list[Segment] = []
    i = 1
    while i < len(path):
        char = path[i]
        if char == ".":
            i += 1
            if path.startswith("[", i):
                continue
            if allow_wildcard and path.startswith("*", i):
                segments.append(FirstMember())
                i += 1
                continue
            name = _NAME.match(path, i)
            if name is None:
                raise ValueError(
                    f"jsonpath malformed empty property at offset {i - 1} (path: {path})"
                )
            segments.append(Prop(name.group()))
            i = name.end()
        elif char == "[":
            end = path.find("]", i + 1)
            if end < 0:
                raise ValueError(f"jsonpath malformed: unclosed [ at offset {i} (path: {path})")
            inside = path[i + 1 : end]
            if not _DIGITS.fullmatch(inside):
                raise ValueError(
                    f'jsonpath invalid index "{inside}" (only numeric indices supported) '
                    f"at offset {i} (path: {path})"
                )
            segments.append(Index(int(inside)))
            i = end + 1
        else:
            raise ValueError(f'jsonpath unexpected character "{char}" at offset {i} (path: {path})')
    return tuple(segments)


def resolve(root: Any, segments: tuple[Segment, ...]) -> Any:
    """Walk ``segments`` from ``root``; :data:`NO_MATCH` when any step finds nothing."""
    cursor = root
    for segment in segments:
        if isinstance(segment, Prop):
            if not isinstance(cursor, dict) or segment.name in _UNSAFE_NAMES:
                return NO_MATCH
            if segment.name not in cursor:
                return NO_MATCH
            cursor = cursor[segment.name]
        elif isinstance(segment, Index):
            if not isinstance(cursor, list) or segment.position >= len(cursor):
                return NO_MATCH
            cursor = cursor[segment.position]
        else:
            if not isinstance(cursor, dict) or not cursor:
                return NO_MATCH
            cursor = next(iter(cursor.values()))
    return cursor


def resolve_path(root: Any, path: str) -> Any:
    """Parse (ValueError on bad syntax) and walk a parser path."""
    return resolve(root, parse_path(path))


def resolve_telemetry_path(root: Any, path: str) -> Any:
    """Parse (ValueError on bad syntax) and walk a telemetry path, ``*`` allowed."""
    return resolve(root, parse_path(path, allow_wildcard=True))


def path_label(path: str) -> str:
    """How a guard names its path in messages: ``$.stopReason`` → ``stopReason``, ``$`` → ``$``."""
    return path[2:] if path.startswith("$.") else path
