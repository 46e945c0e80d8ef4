"""The findings JSON Schema and the ``{{findings_schema}}`` flag placeholder.

Review and compensating dispatch substitute the schema into flags such as grok's
``--json-schema {{findings_schema}}``; such a channel writes one schema-shaped object
per turn, so its parser must take the *last* object (``default`` → ``default-last``).
Critique asks for prose, so it strips those flags instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mmr.parsers.specs import ParserSpec, UnwrapJsonpathSpec

FINDINGS_SCHEMA_PLACEHOLDER = "{{findings_schema}}"

#: Key order is part of the contract: the serialized form is byte-identical to MMR 4.0.1's.
FINDINGS_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "severity": {"type": "string", "enum": ["P0", "P1", "P2", "P3"]},
                    "location": {"type": "string"},
                    "category": {"type": "string"},
                    "description": {"type": "string"},
                    "suggestion": {"type": "string"},
                },
                "required": ["severity", "location", "description", "suggestion"],
            },
        },
        "summary": {"type": "string"},
    },
    "required": ["approved", "findings", "summary"],
}

FINDINGS_SCHEMA_JSON = json.dumps(FINDINGS_JSON_SCHEMA, separators=(",", ":"))


def coerce_parser_for_schema_flags(spec: ParserSpec, flags: Sequence[str]) -> ParserSpec:
    """The parser to record for a channel whose flags ask for schema output.

    ``default`` becomes ``default-last``; an ``unwrap-jsonpath`` whose ``then`` is
    ``default`` (written or omitted) gets ``then: default-last``. Everything else,
    including nested chains below the top-level ``then``, is left alone.
    """
    if not any(FINDINGS_SCHEMA_PLACEHOLDER in flag for flag in flags):
        return spec
    if spec == "default":
        return "default-last"
    if isinstance(spec, UnwrapJsonpathSpec) and spec.then == "default":
        return spec.model_copy(update={"then": "default-last"})
    return spec


def strip_findings_schema_flags(flags: Sequence[str]) -> list[str]:
    """Critique's flags: drop each placeholder argument and the flag that takes it.

    A self-contained ``--flag={{findings_schema}}`` (any argument starting with ``-``)
    goes alone. A bare value drops the flag kept just before it, whether that flag is
    long or short: MMR 4.0.1 leaves a short ``-j`` dangling.
    """
    kept: list[str] = []
    for flag in flags:
        if FINDINGS_SCHEMA_PLACEHOLDER not in flag:
            kept.append(flag)
            continue
        if not flag.startswith("-") and kept and kept[-1].startswith("-"):
            kept.pop()
    return kept
