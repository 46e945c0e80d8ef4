"""The findings schema, its placeholder, parser coercion and critique's stripping."""

from __future__ import annotations

import json

from mmr.dispatch.findings_schema import (
    FINDINGS_JSON_SCHEMA,
    FINDINGS_SCHEMA_JSON,
    FINDINGS_SCHEMA_PLACEHOLDER,
    coerce_parser_for_schema_flags,
    strip_findings_schema_flags,
)
from mmr.dispatch.placeholders import PlaceholderValues, expand_flags
from mmr.parsers.specs import RegexFindingsSpec, UnwrapJsonpathSpec

PINNED = (
    '{"type":"object","properties":{"approved":{"type":"boolean"},"findings":{"type":"array",'
    '"items":{"type":"object","properties":{"severity":{"type":"string","enum":["P0","P1","P2",'
    '"P3"]},"location":{"type":"string"},"category":{"type":"string"},"description":{"type":'
    '"string"},"suggestion":{"type":"string"}},"required":["severity","location","description",'
    '"suggestion"]}},"summary":{"type":"string"}},"required":["approved","findings","summary"]}'
)
SCHEMA_FLAGS = ["--json-schema", FINDINGS_SCHEMA_PLACEHOLDER]


def test_schema_is_byte_identical_and_one_line() -> None:
    assert FINDINGS_SCHEMA_JSON == PINNED
    assert "\n" not in FINDINGS_SCHEMA_JSON
    items = FINDINGS_JSON_SCHEMA["properties"]["findings"]["items"]
    assert items["required"] == ["severity", "location", "description", "suggestion"]
    assert items["properties"]["severity"]["enum"] == ["P0", "P1", "P2", "P3"]
    assert FINDINGS_JSON_SCHEMA["required"] == ["approved", "findings", "summary"]


def test_substitution() -> None:
    flags = ["--x", *SCHEMA_FLAGS, f"--schema={FINDINGS_SCHEMA_PLACEHOLDER}"]
    before = list(flags)
    out = expand_flags(flags, PlaceholderValues("c", findings_schema=FINDINGS_SCHEMA_JSON))
    assert flags == before
    assert out == ["--x", "--json-schema", PINNED, f"--schema={PINNED}"]
    assert json.loads(out[2]) == FINDINGS_JSON_SCHEMA


def test_coercion() -> None:
    assert coerce_parser_for_schema_flags("default", SCHEMA_FLAGS) == "default-last"
    assert coerce_parser_for_schema_flags("default", ["--json"]) == "default"
    assert coerce_parser_for_schema_flags("gemini", SCHEMA_FLAGS) == "gemini"
    assert coerce_parser_for_schema_flags("custom", SCHEMA_FLAGS) == "custom"
    omitted = UnwrapJsonpathSpec(kind="unwrap-jsonpath", wrap="$.text")
    coerced = coerce_parser_for_schema_flags(omitted, [f"--s={FINDINGS_SCHEMA_PLACEHOLDER}"])
    assert isinstance(coerced, UnwrapJsonpathSpec)
    assert (coerced.then, omitted.then) == ("default-last", "default")
    nested = UnwrapJsonpathSpec.model_validate(
        {"kind": "unwrap-jsonpath", "wrap": "$.a", "then": {"kind": "unwrap-jsonpath",
                                                           "wrap": "$.b"}})
    assert coerce_parser_for_schema_flags(nested, SCHEMA_FLAGS) == nested
    gem = UnwrapJsonpathSpec(kind="unwrap-jsonpath", wrap="$.a", then="gemini")
    assert coerce_parser_for_schema_flags(gem, SCHEMA_FLAGS) == gem
    regex = RegexFindingsSpec.model_validate(
        {"kind": "regex-findings", "pattern": "x", "fields": {"location": 1, "description": 1}})
    assert coerce_parser_for_schema_flags(regex, SCHEMA_FLAGS) == regex


def test_stripping() -> None:
    assert strip_findings_schema_flags(["--a", *SCHEMA_FLAGS, "--b"]) == ["--a", "--b"]
    assert strip_findings_schema_flags(["--custom", FINDINGS_SCHEMA_PLACEHOLDER]) == []
    assert strip_findings_schema_flags(["exec", FINDINGS_SCHEMA_PLACEHOLDER]) == ["exec"]
    assert strip_findings_schema_flags(
        ["--keep", f"--x={FINDINGS_SCHEMA_PLACEHOLDER}"]) == ["--keep"]
    # Q20: the reference leaves a short flag dangling.
    assert strip_findings_schema_flags(["-v", "-j", FINDINGS_SCHEMA_PLACEHOLDER]) == ["-v"]
