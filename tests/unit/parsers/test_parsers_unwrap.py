"""``unwrap-jsonpath``: envelopes, chains, the incomplete and error guards."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import matches_incomplete_guard, parse_channel_output
from mmr.parsers.specs import UnwrapJsonpathSpec

INNER = json.dumps({"approved": False, "summary": "found bug", "findings": [
    {"severity": "P1", "location": "f.ts:1", "description": "bug", "suggestion": "fix"}]})
APPROVED = json.dumps({"approved": True, "findings": [], "summary": "obj"})
GROK: dict[str, Any] = {
    "kind": "unwrap-jsonpath", "wrap": "$.text", "then": "default-last",
    "incomplete": {"status_path": "$.stopReason", "values": ["Cancelled"],
                   "message": "grok stopped early"},
}
CLAUDE = {"kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error",
          "then": "default"}


def spec(**fields: Any) -> UnwrapJsonpathSpec:
    return UnwrapJsonpathSpec.model_validate({"kind": "unwrap-jsonpath", **fields})


def ok(raw: str, parser: Any) -> ParsedOutput:
    result = parse_channel_output(raw, parser)
    assert isinstance(result, ParsedOutput), result
    return result


def failed(raw: str, parser: Any) -> ParseFailure:
    result = parse_channel_output(raw, parser)
    assert isinstance(result, ParseFailure), result
    return result


def test_openai_chat_envelope_and_default_then() -> None:
    envelope = json.dumps({"choices": [{"message": {"content": INNER}}]})
    chat = spec(wrap="$.choices[0].message.content")
    assert chat.then == "default"
    assert ok(envelope, chat).summary == "found bug"
    assert failed('{"choices": []}', chat).error == (
        "jsonpath did not match: $.choices[0].message.content"
    )


def test_fenced_envelope_and_envelope_inside_prose() -> None:
    envelope = json.dumps({"text": INNER})
    assert ok(f"```json\n{envelope}\n```", spec(wrap="$.text")).summary == "found bug"
    assert ok(f"Here you go: {envelope} bye", spec(wrap="$.text")).summary == "found bug"


def test_root_array_index() -> None:
    assert ok(json.dumps([{"r": INNER}]), spec(wrap="$[0].r")).summary == "found bug"


def test_non_string_payload_is_serialized_for_the_next_parser() -> None:
    assert ok(json.dumps({"text": json.loads(APPROVED)}), spec(wrap="$.text")).summary == "obj"
    chain = spec(wrap="$.out", then={"kind": "unwrap-jsonpath", "wrap": "$.inner"})
    assert ok(json.dumps({"out": {"inner": INNER}}), chain).summary == "found bug"


@pytest.mark.parametrize("payload", [None, 42])
def test_null_or_number_payload(payload: Any) -> None:
    assert failed(json.dumps({"text": payload}), spec(wrap="$.text")).error == (
        "No JSON object found in output"
    )


def test_envelope_that_is_not_json() -> None:
    failure = failed("just prose", spec(wrap="$.text"))
    assert failure.error == "No JSON object or array found in output"


def test_e21_prose_array_becomes_the_envelope_q8() -> None:
    raw = "Result [1]: " + json.dumps({"text": APPROVED})
    assert failed(raw, spec(wrap="$.text")).error == "jsonpath did not match: $.text"


def test_e31_chains_to_gemini_and_regex() -> None:
    gem = json.dumps({"out": json.dumps({"response": INNER})})
    assert ok(gem, spec(wrap="$.out", then="gemini")).summary == "found bug"
    regex = {"kind": "regex-findings", "pattern": r"^(P[0-3])\|([^|\n]+)\|(.+)$",
             "fields": {"severity": 1, "location": 2, "description": 3}}
    lines = json.dumps({"out": "P1|a.ts:1|bad\nP3|b.ts:2|nit"})
    assert [f.severity for f in ok(lines, spec(wrap="$.out", then=regex)).findings] == ["P1", "P3"]


# the incomplete guard --------------------------------------------------------------


def test_guard_fails_a_cancelled_run_even_with_a_parseable_payload() -> None:
    raw = json.dumps({"text": APPROVED, "stopReason": "Cancelled"})
    assert failed(raw, GROK).error == (
        "channel run did not complete (stopReason=Cancelled) before emitting findings — "
        "grok stopped early"
    )
    prose = json.dumps({"text": "Working on it...", "stopReason": "Cancelled"})
    assert "grok stopped early" in failed(prose, GROK).error


@pytest.mark.parametrize("status", ["EndTurn", "cancelled", 42])
def test_guard_does_not_match_other_values(status: Any) -> None:
    raw = json.dumps({"text": APPROVED, "stopReason": status})
    assert ok(raw, GROK).summary == "obj"


def test_guard_label_for_an_indexed_path() -> None:
    guard = {**GROK, "incomplete": {"status_path": "$.meta[0]", "values": ["Cancelled"],
                                    "message": "m"}}
    raw = json.dumps({"text": APPROVED, "meta": ["Cancelled"]})
    assert "(meta[0]=Cancelled)" in failed(raw, guard).error


def test_malformed_status_path_keeps_the_original_error() -> None:
    guard = {**GROK, "incomplete": {"status_path": "$..x", "values": ["Cancelled"],
                                    "message": "m"}}
    failure = failed(json.dumps({"text": "prose", "stopReason": "Cancelled"}), guard)
    assert failure.error == "No JSON object found in output"
    assert "jsonpath" not in failure.error


def test_guard_probe() -> None:
    cancelled = json.dumps({"text": "x", "stopReason": "Cancelled"})
    assert matches_incomplete_guard(cancelled, UnwrapJsonpathSpec.model_validate(GROK))
    assert matches_incomplete_guard(cancelled, GROK)  # the JSON form saved on a job
    assert matches_incomplete_guard("prose first " + cancelled, GROK)
    assert not matches_incomplete_guard(cancelled.replace("Cancelled", "EndTurn"), GROK)
    assert not matches_incomplete_guard(cancelled, "default")
    assert not matches_incomplete_guard(cancelled, spec(wrap="$.text"))
    assert not matches_incomplete_guard("{not json", GROK)
    assert not matches_incomplete_guard(cancelled, {"kind": "nope"})


# the error guard (mmr) -------------------------------------------------------------


def test_error_path_true_fails_with_the_wrapped_text() -> None:
    raw = json.dumps({"type": "result", "is_error": True, "result": "API Error: 529"})
    assert failed(raw, CLAUDE).error == "channel reported an error (is_error=true): API Error: 529"


def test_error_path_text_is_collapsed_and_capped() -> None:
    raw = json.dumps({"is_error": True, "result": "a \n\n  b" + "x" * 600})
    error = failed(raw, CLAUDE).error
    assert error.startswith("channel reported an error (is_error=true): a bx")
    assert len(error.split(": ", 1)[1]) == 500
    no_text = json.dumps({"is_error": True, "result": 3})
    assert failed(no_text, CLAUDE).error == "channel reported an error (is_error=true)"


@pytest.mark.parametrize("flag", [False, "true", 1, None])
def test_error_path_other_values_parse_normally(flag: Any) -> None:
    assert ok(json.dumps({"is_error": flag, "result": INNER}), CLAUDE).summary == "found bug"
    assert ok(json.dumps({"result": INNER}), CLAUDE).summary == "found bug"


def test_claude_events_array_fails_honestly() -> None:
    events = json.dumps([{"type": "system"}, {"type": "result", "result": INNER}])
    assert failed(events, CLAUDE).error == "jsonpath did not match: $.result"
    assert ok(events, {**CLAUDE, "wrap": "$[1].result"}).summary == "found bug"


def test_bad_wrap_syntax_is_a_parse_failure() -> None:
    assert failed(APPROVED, spec(wrap="$..a")).error == (
        "jsonpath malformed empty property at offset 1 (path: $..a)"
    )
    assert failed(APPROVED, spec(wrap="text")).error == "jsonpath must start with $ (got: text)"
    # Q10: the whole path is checked, so `$.a[x]` is a syntax error, not "did not match".
    assert "invalid index" in failed(APPROVED, spec(wrap="$.a[x]")).error
