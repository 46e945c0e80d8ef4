"""The JSON Schema of one config file: ``mmr config schema`` and ``docs/mmr.schema.json``.

Generated from the pydantic models in :mod:`mmr.config.schema` (only this command imports
this module; the review path never builds a schema), then shaped into what the loader
accepts of ONE file, which is a layer, not the whole config:

- nothing is ``required``: any key may come from a lower layer, a built-in preset or
  ``extends`` (``channels.minimax: {timeout: 60}`` is a complete file);
- a channel (and an object ``output_parser``) is ``anyOf`` its kinds, not ``oneOf``:
  a channel without ``kind`` takes its kind from the layer below;
- unknown keys are allowed, as the loader warns about and drops them, except in
  ``defaults.compensator`` and a channel's ``telemetry``, where they are errors;
- ``defaults``, ``channels``, ``templates`` and a single channel may be null ("not set").

Regenerate the shipped copy with ``mmr config schema > docs/mmr.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic.json_schema import GenerateJsonSchema

from mmr.config.schema import MmrConfig

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:mmr:config-file"
TITLE = "mmr configuration file (.mmr.yaml, <mmr home>/config.yaml)"
DESCRIPTION = (
    "One layer of the mmr configuration. Keys left out come from the layer below; "
    "unknown keys are ignored with a warning. Reference: docs/config.md."
)
_NULLABLE_TOP = ("defaults", "channels", "templates")


class _Generator(GenerateJsonSchema):
    """Pydantic's generator without the field titles it derives from key names."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def config_file_schema() -> dict[str, Any]:
    """The schema as a JSON-ready mapping, keys in a stable order."""
    generated = _as_layer(MmrConfig.model_json_schema(schema_generator=_Generator))
    properties = generated["properties"]
    for key in _NULLABLE_TOP:
        properties[key] = _nullable(properties[key])
    channels = properties["channels"]["anyOf"][0]
    channels["additionalProperties"] = _nullable(channels["additionalProperties"])
    definitions = {name: _without_docstring(model)
                   for name, model in sorted(generated["$defs"].items())}
    return {"$schema": DRAFT, "$id": SCHEMA_ID, "title": TITLE, "description": DESCRIPTION,
            "type": "object", "properties": properties, "$defs": definitions}


def render_schema() -> str:
    """What ``mmr config schema`` prints (plus a newline), and so ``docs/mmr.schema.json``."""
    return json.dumps(config_file_schema(), indent=2, ensure_ascii=False)


def _as_layer(node: Any) -> Any:
    """Drop ``required``, discriminated ``oneOf`` becomes ``anyOf``, ``ge`` becomes ``minimum``."""
    if isinstance(node, list):
        return [_as_layer(item) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("anyOf") == [{"type": "integer"}, {"type": "number"}]:
        node = {**{key: value for key, value in node.items() if key != "anyOf"},
                "type": "number"}  # NumberValue: an int stays an int, but both are numbers
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("required", "discriminator"):
            continue
        if key in _DATA:
            out[key] = value
        elif key in ("properties", "$defs"):  # names, not keywords
            out[key] = {name: _as_layer(item) for name, item in value.items()}
        elif key == "oneOf" and "discriminator" in node:
            out["anyOf"] = _as_layer(value)
        else:
            out[_KEYWORDS.get(key, key)] = _as_layer(value)
    return out


_DATA = frozenset({"default", "const", "enum", "examples"})
#: Constraints pydantic writes under its own names when a validator wraps the type.
_KEYWORDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum",
             "lt": "exclusiveMaximum", "min_length": "minItems"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    annotations = {key: schema[key] for key in ("description", "default") if key in schema}
    core = {key: value for key, value in schema.items() if key not in annotations}
    members = core["anyOf"] if list(core) == ["anyOf"] else [core]
    if {"type": "null"} not in members:
        members = [*members, {"type": "null"}]
    return {"anyOf": members, **dict(sorted(annotations.items()))}


def _without_docstring(model: dict[str, Any]) -> dict[str, Any]:
    """A model's docstring is for maintainers; each key's ``description`` is for users."""
    return {key: value for key, value in model.items() if key != "description"}
