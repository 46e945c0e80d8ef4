"""Generate ``docs/config.md``: every config key, its type, default and meaning.

Keys, types and defaults are read from the pydantic schema, so the reference cannot drift
from what the loader accepts; the one-line meanings live in :mod:`mmr.config.key_docs`
(a key without one is an error). Regenerate after a schema change::

    python -m mmr.config_edit.reference_doc > docs/config.md
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined


@dataclass(frozen=True)
class KeyRow:
    path: str
    type: str
    default: str
    applies: str = ""


def schema_rows() -> list[KeyRow]:
    """One row per key, in declaration order: top level, defaults, channels, templates."""
    from mmr.config.schema import HttpChannel, MmrConfig, SubprocessChannel, TemplateConfig

    rows = [row for row in _walk(MmrConfig, "") if not row.path.startswith(
        ("channels.", "templates."))]
    subprocess_rows = {row.path: row for row in _walk(SubprocessChannel, "channels.<name>.")}
    http_rows = {row.path: row for row in _walk(HttpChannel, "channels.<name>.")}
    for path in dict.fromkeys([*http_rows, *subprocess_rows]):
        both = path in http_rows and path in subprocess_rows
        row = subprocess_rows.get(path) or http_rows[path]
        applies = "both" if both else ("subprocess" if path in subprocess_rows else "http")
        default = row.default
        if both and http_rows[path].default != default and row.type != "mapping":
            default = f"{default} (http: {http_rows[path].default})"
        rows.append(KeyRow(row.path, row.type, default, applies))
    rows.extend(_walk(TemplateConfig, "templates.<name>."))
    return [KeyRow(row.path, _TYPE_OVERRIDES.get(row.path, row.type), row.default, row.applies)
            for row in rows]


def parser_rows() -> list[KeyRow]:
    """The fields of each object-form ``output_parser`` (one table per ``kind``)."""
    from mmr.parsers import specs

    rows: list[KeyRow] = []
    for model in (specs.UnwrapJsonpathSpec, specs.RegexFindingsSpec,
                  specs.MarkdownFindingsSpec, specs.AnswerSpec):
        kind = typing.get_args(model.model_fields["kind"].annotation)[0]
        rows.extend(KeyRow(row.path, row.type, row.default, kind)
                    for row in _walk(model, "output_parser."))
    return rows


def _walk(model: type[BaseModel], prefix: str) -> Iterator[KeyRow]:
    for name, field in model.model_fields.items():
        path = prefix + name
        nested = _model_of(field.annotation)
        if nested is not None:
            yield KeyRow(path, "mapping", _default(field))
            yield from _walk(nested, path + ".")
        else:
            yield KeyRow(path, describe_type(field.annotation), _default(field))


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The one model a field holds; None for scalars and for parser specs (a name or
    one of several objects, documented in their own table)."""
    models = [m for m in _union_members(annotation)
              if isinstance(m, type) and issubclass(m, BaseModel)]
    return models[0] if len(models) == 1 else None


def _union_members(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _union_members(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _union_members(arg)]
    return [annotation]


_WORDS = {str: "string", bool: "boolean", int: "integer", float: "number"}
_PARSER = "parser name or mapping"
#: Types the annotation alone describes badly (unions of models, the injected kind).
_TYPE_OVERRIDES = {
    "channels": "mapping: channel name → channel",
    "templates": "mapping: template name → template",
    "channels.<name>.kind": '"subprocess" \\| "http"',
    "channels.<name>.vars": "mapping of strings, numbers or null",
}


def describe_type(annotation: Any) -> str:
    """A reader's name for a field type: ``list of strings``, ``"P0" | "P1"`` …"""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return describe_type(args[0])
    if origin in (typing.Union, types.UnionType):
        return _describe_union(args)
    if origin is typing.Literal:
        return " \\| ".join(f'"{arg}"' for arg in args)
    if origin in (list, dict):
        inner = describe_type(args[-1])
        noun = f"{inner}s" if inner in _WORDS.values() or inner == "mapping" else f"({inner})"
        return f"{'list' if origin is list else 'mapping'} of {noun}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    return _WORDS.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _describe_union(args: tuple[Any, ...]) -> str:
    raw = [describe_type(arg) for arg in args if arg is not type(None)]
    if raw.count("mapping") > 1 or _PARSER in raw:  # a parser spec
        return _PARSER
    words = list(dict.fromkeys(raw))
    return "number" if words == ["integer", "number"] else " or ".join(words)


def _default(field: FieldInfo) -> str:
    import json

    if field.default_factory is not None:
        value = field.get_default(call_default_factory=True, validated_data={})
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return "(see below)"
    if value is None:
        return "—"
    if value in ({}, []):
        return "`[]`" if value == [] else "`{}`"
    return f"`{json.dumps(value)}`"


def render() -> str:
    """The whole of ``docs/config.md``."""
    from mmr.config.key_docs import INTRO, KEY_DOCS, PARSER_INTRO

    def table(rows: list[KeyRow], applies: str) -> list[str]:
        lines = [f"| key | type | default | {applies} | meaning |", "|---|---|---|---|---|"]
        for row in rows:
            meaning = KEY_DOCS.get(f"{row.applies}:{row.path}") or KEY_DOCS.get(row.path)
            if meaning is None:
                raise KeyError(f"no description for config key {row.path} in key_docs")
            cell = meaning.replace("|", "\\|")
            lines.append(f"| `{row.path}` | {row.type} | {row.default} | {row.applies} "
                         f"| {cell} |")
        return lines

    out = [INTRO, "", *table(schema_rows(), "channel kind"), "", PARSER_INTRO, "",
           *table(parser_rows(), "parser kind"), ""]
    return "\n".join(out)


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
