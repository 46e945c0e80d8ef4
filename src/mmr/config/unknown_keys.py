"""Find keys the schema does not know, so the loader can warn before dropping them.

The walk follows the pydantic models themselves (field annotations, discriminated
unions, ``dict[str, Model]``), so a key added to the schema is known here at once.
Strict models (``extra="forbid"``) are skipped: the schema reports their keys as errors.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel


@dataclass(frozen=True)
class UnknownKey:
    """``key`` under ``parent`` is not part of the schema; ``known`` are the valid keys there."""

    parent: tuple[str, ...]
    key: str
    known: tuple[str, ...]

    @property
    def dotted(self) -> str:
        return ".".join((*self.parent, self.key))


def find_unknown_keys(model: type[BaseModel], data: Any, merged: Any = None,
                      parent: tuple[str, ...] = ()) -> Iterator[UnknownKey]:
    """Unknown keys of ``data`` (one layer) against ``model``.

    ``merged`` is the same place in the fully merged config; it supplies a ``kind`` that
    the layer itself does not restate (a partial channel or parser override).
    """
    if not isinstance(data, dict) or model.model_config.get("extra") == "forbid":
        return
    fields = model.model_fields
    for key, value in data.items():
        if key not in fields:
            yield UnknownKey(parent, str(key), tuple(fields))
            continue
        below = merged.get(key) if isinstance(merged, dict) else None
        yield from _walk(fields[key].annotation, value, below, (*parent, str(key)))


def _walk(annotation: Any, value: Any, merged: Any, path: tuple[str, ...]) -> Iterator[UnknownKey]:
    if not isinstance(value, dict):
        return
    mapping_of = _mapping_value_type(annotation)
    if mapping_of is not None:
        for key, item in value.items():
            below = merged.get(key) if isinstance(merged, dict) else None
            yield from _walk(mapping_of, item, below, (*path, str(key)))
        return
    model = _pick_model(models_in(annotation), value, merged)
    if model is not None:
        yield from find_unknown_keys(model, value, merged, path)


def union_members(annotation: Any) -> Iterator[Any]:
    """Flatten Annotated and Union layers into their member types."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        yield from union_members(typing.get_args(annotation)[0])
    elif origin is typing.Union or origin is types.UnionType:
        for member in typing.get_args(annotation):
            yield from union_members(member)
    else:
        yield annotation


def models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models among a field type's members."""
    return [m for m in union_members(annotation)
            if isinstance(m, type) and issubclass(m, BaseModel)]


def _mapping_value_type(annotation: Any) -> Any:
    for member in union_members(annotation):
        if typing.get_origin(member) is dict:
            return typing.get_args(member)[1]
    return None


def _pick_model(models: list[type[BaseModel]], value: dict[str, Any],
                merged: Any) -> type[BaseModel] | None:
    """The one model, or the union member whose ``kind`` literal matches the value's kind."""
    if len(models) <= 1:
        return models[0] if models else None
    kind = value.get("kind")
    if kind is None and isinstance(merged, dict):
        kind = merged.get("kind")
    for model in models:
        field = model.model_fields.get("kind")
        if field is not None and kind in typing.get_args(field.annotation):
            return model
    return None
