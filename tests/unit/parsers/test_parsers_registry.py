"""Parser resolution: the registry, unknown names, spec forms, telemetry."""

from __future__ import annotations

import json

import pytest

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import (
    extract_telemetry,
    get_parser,
    is_registered,
    parse_channel_output,
    register_parser,
    registered_names,
)
from mmr.parsers.registry import _REGISTRY


def test_builtins_are_registered_in_the_documented_order() -> None:
    assert registered_names() == ("default", "default-last", "gemini", "doc-conformance")
    assert not is_registered("claude")


def test_unknown_name_falls_back_to_default_with_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert get_parser("no-such-parser-xyz") is get_parser("default")
    result = parse_channel_output('{"approved": true}', "no-such-parser-xyz")
    assert isinstance(result, ParsedOutput)
    assert "no-such-parser-xyz" in capsys.readouterr().err


def test_register_parser_makes_a_name_usable() -> None:
    @register_parser("test-upper")
    def upper(raw: str) -> ParsedOutput:
        return ParsedOutput(approved=True, findings=[], summary=raw.upper())

    try:
        result = parse_channel_output("hi", "test-upper")
        assert isinstance(result, ParsedOutput)
        assert result.summary == "HI"
        failing = parse_channel_output("hi", {"kind": "unwrap-jsonpath", "wrap": "$.t",
                                              "then": "test-upper"})
        assert isinstance(failing, ParseFailure)
    finally:
        del _REGISTRY["test-upper"]


def test_exceptions_from_a_parser_become_failures() -> None:
    @register_parser("test-boom")
    def boom(raw: str) -> ParsedOutput:
        raise RuntimeError("")

    try:
        result = parse_channel_output("x", "test-boom")
        assert isinstance(result, ParseFailure)
        assert result.error == "RuntimeError"
    finally:
        del _REGISTRY["test-boom"]


def test_spec_forms() -> None:
    unsupported = parse_channel_output("{}", {"kind": "xml-findings"})
    assert isinstance(unsupported, ParseFailure)
    assert unsupported.error == "Unsupported output_parser kind: xml-findings"
    invalid = parse_channel_output("{}", {"kind": "unwrap-jsonpath"})
    assert isinstance(invalid, ParseFailure)
    assert invalid.error.startswith("invalid output_parser")


def test_telemetry_keeps_finite_numbers_only() -> None:
    raw = "noise " + json.dumps({
        "usage": {"input_tokens": 1200, "output_tokens": 300},
        "modelUsage": {"MiniMax-M3[1m]": {"contextWindow": 1000000, "costUSD": 0.01}},
        "total_cost_usd": 0.0125, "num_turns": True, "duration_ms": "12",
    })
    paths = {"context_window": "$.modelUsage.*.contextWindow",
             "input_tokens": "$.usage.input_tokens", "output_tokens": "$.usage.output_tokens",
             "cost_usd": "$.total_cost_usd", "turns": "$.num_turns", "bad": "$..x"}
    assert extract_telemetry(raw, paths) == {
        "context_window": 1000000, "input_tokens": 1200, "output_tokens": 300,
        "cost_usd": 0.0125,
    }
    assert extract_telemetry("not json", paths) == {}
