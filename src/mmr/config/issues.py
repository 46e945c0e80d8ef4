"""Turn pydantic validation errors into one-line config issues.

Each issue names the dotted key path (``channels.codex.timeout``), what was expected and
what was found, and the loader adds the file that supplied the value. Union branches
(``str`` vs object parser, ``subprocess`` vs ``http``) are folded away so the user sees
one message per problem rather than pydantic's per-branch attempts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from mmr.config.yaml_io import yaml_kind
from mmr.errors import ConfigError

Path = tuple[str | int, ...]

_TYPE_WORDS = {
    "string_type": "string", "int_type": "integer", "float_type": "number",
    "bool_type": "boolean", "model_attributes_type": "mapping", "dict_type": "mapping",
    "model_type": "mapping", "list_type": "list",
}


@dataclass(frozen=True)
class ConfigIssue:
    """One problem at one key path; ``file`` is the layer that supplied the value."""

    path: str
    message: str
    file: str | None = None

    def line(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{where}{self.path}: {self.message}" if self.path else f"{where}{self.message}"


class ConfigValidationError(ConfigError):
    """A config that parsed but does not fit the schema; ``issues`` lists every problem."""

    def __init__(self, issues: Sequence[ConfigIssue]) -> None:
        self.issues = tuple(issues)
        super().__init__(_one_line(self.issues))


def _one_line(issues: Sequence[ConfigIssue]) -> str:
    """``<file>: a: …; b: …`` — the file is named once for consecutive issues from it."""
    parts: list[str] = []
    previous: str | None = None
    for issue in issues:
        text = f"{issue.path}: {issue.message}" if issue.path else issue.message
        if issue.file and issue.file != previous:
            text = f"{issue.file}: {text}"
        previous = issue.file
        parts.append(text)
    return "; ".join(parts)


def dotted(path: Path) -> str:
    """``("channels", "grok", "flags", 3)`` → ``channels.grok.flags[3]``."""
    text = ""
    for segment in path:
        text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else segment)
    return text


@dataclass(frozen=True)
class _Raw:
    path: Path
    kind: str
    message: str
    from_union: bool


def issues_from(exc: ValidationError, data: Any,
                file_for: Callable[[Path], str | None]) -> list[ConfigIssue]:
    """Every issue of ``exc`` (raised validating ``data``), deduplicated, in order."""
    raws = [_clean(error, data) for error in exc.errors()]
    raws = _fold_unions(raws)
    issues: list[ConfigIssue] = []
    for raw in raws:
        issue = ConfigIssue(dotted(raw.path), raw.message, file_for(raw.path))
        if issue not in issues:
            issues.append(issue)
    return issues


def _clean(error: Any, data: Any) -> _Raw:
    """Drop union-branch labels from the location by walking it against the input data."""
    loc = tuple(error["loc"])
    kind = error["type"]
    path: list[str | int] = []
    node: Any = data
    from_union = False
    for index, segment in enumerate(loc):
        if _has(node, segment):
            node = node[segment]
            path.append(segment)
        elif index == len(loc) - 1 and kind in ("missing", "extra_forbidden"):
            path.append(segment)
        else:
            from_union = True  # a union member's label, not a key
    return _Raw(tuple(path), kind, _message(error, tuple(path)), from_union)


def _has(node: Any, segment: str | int) -> bool:
    if isinstance(node, dict):
        return segment in node
    return isinstance(node, list) and isinstance(segment, int) and segment < len(node)


def _message(error: Any, path: Path) -> str:  # noqa: PLR0911 - one branch per error type
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    if kind in _TYPE_WORDS:
        return f"expected {_TYPE_WORDS[kind]}, got {yaml_kind(value)}"
    if kind == "missing":
        return "required"
    if kind == "extra_forbidden":
        return f'unrecognized key "{path[-1]}"'
    if kind == "literal_error":
        return f"expected {ctx.get('expected')}, got {_show(value)}"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        what = "parser kind" if "unwrap-jsonpath" in str(ctx.get("expected_tags")) else "kind"
        tags = str(ctx.get("expected_tags", "")).replace("'", '"')
        if kind == "union_tag_not_found":
            return f"missing {what} (expected one of {tags})"
        return f'unknown {what} "{ctx.get("tag")}" (expected one of {tags})'
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}, got {_show(value)}"
    if kind == "too_short":
        return "must not be empty"
    if kind == "value_error":
        text = str(ctx.get("error", error["msg"]))
        for expected in ("expected number, got ", "expected integer, got "):
            if text.startswith(expected) and not isinstance(value, float):
                return f"{expected}{yaml_kind(value)}"
        return text
    return str(error["msg"])


def _show(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else (
        yaml_kind(value) if isinstance(value, dict | list) or value is None else str(value))


def _fold_unions(raws: list[_Raw]) -> list[_Raw]:
    """Per path, keep the informative branch; merge pure type mismatches into one message."""
    result = [_relocate(raw) for raw in raws]
    folded: list[_Raw] = []
    for raw in result:
        if not (raw.from_union and raw.kind in _TYPE_WORDS):
            folded.append(raw)
            continue
        others = [o for o in result if o is not raw and o.path[: len(raw.path)] == raw.path]
        if any(o.kind not in _TYPE_WORDS for o in others):
            continue  # another branch explains the problem better
        siblings = [o for o in others if o.path == raw.path and o.kind in _TYPE_WORDS]
        if any(folded_raw.path == raw.path for folded_raw in folded):
            continue
        words = list(dict.fromkeys(_TYPE_WORDS[r.kind] for r in [raw, *siblings]))
        got = raw.message.rsplit("got ", 1)[-1]
        expected = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
        folded.append(_Raw(raw.path, raw.kind, f"expected {expected}, got {got}", True))
    return folded


def _relocate(raw: _Raw) -> _Raw:
    """Point a discriminator or endpoint problem at the key the user has to change."""
    if raw.kind in ("union_tag_invalid", "union_tag_not_found"):
        return _Raw((*raw.path, "kind"), raw.kind, raw.message, raw.from_union)
    if raw.kind == "check_endpoint_required":
        return _Raw((*raw.path, "auth", "check_endpoint"), raw.kind, raw.message, False)
    return raw
