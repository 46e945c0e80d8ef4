"""Finding and reply validation, lenient and strict."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mmr.models import ParseFailure
from mmr.parsers import parse_channel_output
from mmr.parsers.errors import ParseError
from mmr.parsers.validate import (
    MISSING_FINDINGS,
    js_number_text,
    lenient_finding,
    lenient_reply,
    strict_finding,
    strict_reply,
)

GOOD = {"severity": "P1", "location": "a.ts:3", "description": "bug", "suggestion": "fix"}


@pytest.mark.parametrize("severity", ["CRITICAL", "p1", 1, "P1 ", None])
def test_lenient_invalid_severity_becomes_p2(severity: Any) -> None:
    assert lenient_finding({**GOOD, "severity": severity}).severity == "P2"
    assert lenient_finding({k: v for k, v in GOOD.items() if k != "severity"}).severity == "P2"


@pytest.mark.parametrize("severity", ["P0", "P1", "P2", "P3"])
def test_lenient_valid_severity_is_kept(severity: str) -> None:
    assert lenient_finding({**GOOD, "severity": severity}).severity == severity


def test_lenient_location() -> None:
    assert lenient_finding({**GOOD, "location": 42}).location == "unknown"
    assert lenient_finding({"severity": "P1"}).location == "unknown"
    assert lenient_finding({**GOOD, "location": ""}).location == ""


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, ""), (42, "42"), (True, "true"), (False, "false"), (1.0, "1"), (1.5, "1.5"),
     (1e-7, "1e-7"), (1e21, "1e+21"), (123456789012345678901, "123456789012345680000"),
     ({"a": 1}, '{"a":1}'), ([1, [2, 3]], "[1,[2,3]]")],
)
def test_lenient_description_as_text(value: Any, text: str) -> None:
    # Objects and arrays become JSON text (MMR 4.0.1 prints "[object Object]").
    assert lenient_finding({**GOOD, "description": value}).description == text


def test_lenient_missing_description_is_empty() -> None:
    assert lenient_finding({"severity": "P1"}).description == ""


@pytest.mark.parametrize("item", ["just a string", None, 17, True])
def test_lenient_non_object_is_malformed(item: Any) -> None:
    finding = lenient_finding(item)
    assert finding.to_json_dict() == {
        "severity": "P2", "location": "unknown", "description": "Malformed finding",
        "suggestion": "",
    }


def test_lenient_array_finding_reads_as_empty_object_like_the_reference() -> None:
    assert lenient_finding([1, 2]).to_json_dict() == {
        "severity": "P2", "location": "unknown", "description": "", "suggestion": "",
    }


def test_lenient_optional_fields_and_extra_keys() -> None:
    finding = lenient_finding({**GOOD, "suggestion": 7, "id": 5, "category": ["x"],
                               "file": "a.ts", "confidence": "high"})
    assert finding.to_json_dict() == {
        "severity": "P1", "location": "a.ts:3", "description": "bug", "suggestion": "",
    }
    kept = lenient_finding({"category": "security", "id": "X-1", **GOOD})
    assert list(kept.to_json_dict()) == [
        "severity", "location", "description", "suggestion", "id", "category",
    ]


def test_e8_fields_of_the_wrong_type() -> None:
    raw = json.dumps({
        "approved": "true",
        "findings": [
            {"severity": "P1", "location": 42, "description": 42, "suggestion": 7, "id": 5,
             "category": ["x"]},
            {"severity": "P2", "description": {"a": 1}},
            {"severity": "P2", "description": None},
            "just a string", None, 17,
        ],
        "summary": 5,
    })
    result = parse_channel_output(raw, "default")
    assert not isinstance(result, ParseFailure)
    assert result.approved is False
    assert result.summary == ""
    assert [f.description for f in result.findings] == [
        "42", '{"a":1}', "", "Malformed finding", "Malformed finding", "Malformed finding",
    ]


def test_reply_lenient_coercions() -> None:
    reply = lenient_reply({"approved": "true", "findings": [], "summary": 3})
    assert (reply.approved, reply.findings, reply.summary) == (False, [], "")


@pytest.mark.parametrize(
    "reply", [{"approved": False}, {"summary": "x"}, {"approved": "true"},
              {"approved": False, "findings": "none"}, {"approved": 1, "findings": {}}],
)
def test_reply_without_findings_and_not_approved_fails(reply: dict[str, Any]) -> None:
    if "findings" in reply:  # issue 13: a present but wrong-typed array says so
        with pytest.raises(ParseError, match=r'^unusable reply: "findings" is '):
            lenient_reply(reply)
        return
    with pytest.raises(ParseError, match=r"^missing findings"):
        lenient_reply(reply)
    result = parse_channel_output(json.dumps(reply), "default")
    assert isinstance(result, ParseFailure)
    assert result.error == MISSING_FINDINGS
    assert result.description.startswith("Failed to parse channel output: missing findings")


def test_approved_true_alone_is_a_clean_review() -> None:
    reply = lenient_reply({"approved": True})
    assert (reply.approved, reply.findings, reply.summary) == (True, [], "")
    # Issue 13: a disapproval with nothing to act on is a typed failure, not a silent pass.
    with pytest.raises(ParseError, match=r'"approved": false with no findings'):
        lenient_reply({"approved": False, "findings": []})
    with pytest.raises(ParseError, match=r"^Parsed output is not an object$"):
        lenient_reply([GOOD])


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("x", "Finding must be an object"),
        (None, "Finding must be an object"),
        ([], "Finding missing or invalid severity (must be P0-P3)"),
        ({"severity": "p1", "location": "", "description": ""},
         "Finding missing or invalid severity (must be P0-P3)"),
        ({"severity": "P1", "location": "", "description": ""}, "Finding missing location"),
        ({"severity": "P1", "location": 3, "description": "d"}, "Finding missing location"),
        ({"severity": "P1", "location": "a", "description": ""}, "Finding missing description"),
        ({"severity": "P1", "location": "a", "description": 42}, "Finding missing description"),
    ],
)
def test_strict_checks_in_order(item: Any, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        strict_finding(item)
    assert str(caught.value) == message


def test_strict_accepts_whitespace_location_and_defaults_suggestion() -> None:
    finding = strict_finding({"severity": "P3", "location": "  ", "description": "d",
                              "id": "A", "category": 4})
    assert finding.to_json_dict() == {
        "severity": "P3", "location": "  ", "description": "d", "suggestion": "", "id": "A",
    }


def test_strict_reply() -> None:
    with pytest.raises(ParseError, match=r"^Input must be an object$"):
        strict_reply([])
    with pytest.raises(ParseError, match=r"^Input findings must be an array$"):
        strict_reply({"approved": True})
    reply = strict_reply({"findings": [GOOD], "summary": 1})
    assert (reply.approved, reply.summary, len(reply.findings)) == (False, "", 1)


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.1, "0.1"), (100.0, "100"), (-2.5, "-2.5"), (1e-6, "0.000001"), (1.5e300, "1.5e+300"),
     (float("inf"), "Infinity"), (-0.0, "0"), (123e18, "123000000000000000000")],
)
def test_js_number_text(value: float, text: str) -> None:
    assert js_number_text(value) == text
