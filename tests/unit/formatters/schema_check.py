"""A small JSON Schema (draft-07) validator for the keywords the SARIF subset schema uses.

``jsonschema`` is not a dependency; this checks ``$ref`` (local), ``type``, ``enum``,
``required``, ``properties``, ``additionalProperties``, ``items``, ``minItems``,
``uniqueItems``, ``minimum``, ``maximum``, ``anyOf``, ``pattern`` and the ``uri`` /
``uri-reference`` formats. A keyword it does not know is an error, so the schema can never
carry a constraint that is silently skipped.
"""

from __future__ import annotations

import json
import re
from typing import Any

_ANNOTATIONS = frozenset({"$schema", "title", "description", "definitions", "default"})
_KNOWN = _ANNOTATIONS | {
    "$ref", "type", "enum", "required", "properties", "additionalProperties", "items",
    "minItems", "uniqueItems", "minimum", "maximum", "anyOf", "pattern", "format",
}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_BAD_URI_CHARS = re.compile(r"[\x00-\x20\"<>\\^`{|}\x7f-\U0010ffff]|%(?![0-9A-Fa-f]{2})")


def validate(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Every violation of ``schema`` by ``instance``, as ``<json path>: <problem>``."""
    errors: list[str] = []
    _check(instance, schema, schema, "$", errors)
    return errors


def _check(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str,
           errors: list[str]) -> None:
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"schema at {path} uses unsupported keywords {sorted(unknown)}")
    if "$ref" in schema:
        _check(value, _resolve(schema["$ref"], root), root, path, errors)
    if "type" in schema and not _has_type(value, schema["type"]):
        errors.append(f"{path}: expected {schema['type']}, got {type(value).__name__}")
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "anyOf" in schema and not any(
        not validate_against(value, option, root) for option in schema["anyOf"]
    ):
        errors.append(f"{path}: matches none of anyOf")
    if isinstance(value, dict):
        _check_object(value, schema, root, path, errors)
    elif isinstance(value, list):
        _check_array(value, schema, root, path, errors)
    elif isinstance(value, str):
        _check_string(value, schema, path, errors)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} < minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} > maximum {schema['maximum']}")


def validate_against(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    _check(value, schema, root, "$", errors)
    return errors


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return dict(node)


def _has_type(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    checks = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    }
    return any(checks[name](value) for name in names)


def _check_object(value: dict[str, Any], schema: dict[str, Any], root: dict[str, Any],
                  path: str, errors: list[str]) -> None:
    for name in schema.get("required", []):
        if name not in value:
            errors.append(f"{path}: missing required property {name!r}")
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _check(item, properties[name], root, f"{path}.{name}", errors)
        elif extra is False:
            errors.append(f"{path}: property {name!r} is not allowed")
        elif isinstance(extra, dict):
            _check(item, extra, root, f"{path}.{name}", errors)


def _check_array(value: list[Any], schema: dict[str, Any], root: dict[str, Any], path: str,
                 errors: list[str]) -> None:
    if len(value) < schema.get("minItems", 0):
        errors.append(f"{path}: fewer than {schema['minItems']} items")
    if schema.get("uniqueItems"):
        seen = [json.dumps(item, sort_keys=True) for item in value]
        if len(seen) != len(set(seen)):
            errors.append(f"{path}: items are not unique")
    if "items" in schema:
        for index, item in enumerate(value):
            _check(item, schema["items"], root, f"{path}[{index}]", errors)


def _check_string(value: str, schema: dict[str, Any], path: str, errors: list[str]) -> None:
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']!r}")
    fmt = schema.get("format")
    if fmt in ("uri", "uri-reference") and _BAD_URI_CHARS.search(value):
        errors.append(f"{path}: {value!r} is not a valid {fmt}")
    if fmt == "uri" and not _SCHEME.match(value):
        errors.append(f"{path}: {value!r} is not an absolute URI")
