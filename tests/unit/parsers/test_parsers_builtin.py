"""The built-in named parsers and the worked examples."""

from __future__ import annotations

import json

import pytest

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import parse_channel_output

F1 = {"severity": "P1", "location": "a.ts:3", "description": "bug", "suggestion": "fix"}


def reply(approved: bool, findings: list[dict[str, str]], summary: str) -> str:
    return json.dumps({"approved": approved, "findings": findings, "summary": summary})


def ok(raw: str, parser: str = "default") -> ParsedOutput:
    result = parse_channel_output(raw, parser)
    assert isinstance(result, ParsedOutput), result
    return result


def failed(raw: str, parser: str = "default") -> ParseFailure:
    result = parse_channel_output(raw, parser)
    assert isinstance(result, ParseFailure), result
    return result


# default -----------------------------------------------------------------------------


def test_e1_fenced_block_inside_prose() -> None:
    raw = f"Here is my review:\n```json\n{reply(False, [F1], 'x')}\n```\nThanks!"
    result = ok(raw)
    assert (result.approved, result.summary, result.findings[0].location) == (False, "x", "a.ts:3")


def test_fenced_reply_after_blank_lines_and_a_javascript_fence() -> None:
    assert ok("```json\n\n\n" + reply(True, [], "blank lines") + "\n```").summary == "blank lines"
    # The word "javascript" stays behind after fence stripping; the scanner skips it.
    assert ok("```javascript\n" + reply(True, [], "js") + "\n```").summary == "js"


def test_clean_object_and_approved_alone() -> None:
    assert ok(reply(True, [], "fine")).approved is True
    alone = ok('{"approved":true}')
    assert (alone.approved, alone.findings, alone.summary) == (True, [], "")


def test_e2_the_last_review_wins_when_a_reply_holds_several() -> None:
    # Issue 13 changes the reference's E2 for `default`: a clean object followed by the real
    # review no longer passes on the first one.
    raw = reply(True, [], "ack") + "\n" + reply(False, [F1], "real")
    assert ok(raw).summary == "real"
    assert ok(raw, "default-last").summary == "real"


def test_a_single_review_after_a_non_review_object_is_the_reply() -> None:
    raw = '{"thinking": "x"}\n' + reply(False, [F1], "real")
    assert ok(raw).summary == "real"
    # With one candidate the reference's first-object rule stands.
    assert ok(reply(True, [], "only") + "\nand {not json}").summary == "only"


@pytest.mark.parametrize(("raw", "needle"), [
    ('{"approved": true, "findings": "some prose"}', '"findings" is a string'),
    ('{"approved": true, "findings": {"severity": "P0"}}', '"findings" is an object'),
    ('{"approved": true, "findings": ["a", 3]}', "holds no objects (2 non-object"),
    ('{"approved": false, "findings": []}', '"approved": false with no findings'),
])
def test_unusable_replies_are_typed_parse_failures(raw: str, needle: str) -> None:
    assert needle in failed(raw).error


def test_a_bare_finding_object_is_one_finding() -> None:
    parsed = ok('{"severity": "P1", "location": "a.py:3", "description": "d"}')
    assert [(f.severity, f.location) for f in parsed.findings] == [("P1", "a.py:3")]
    assert parsed.approved is False


def test_e3_trailing_commas_everywhere() -> None:
    raw = ('{"approved": false, "findings": [{"severity":"P0","location":"x.js:1",'
           '"description":"d","suggestion":"s",},], "summary": "x",}')
    assert [f.severity for f in ok(raw).findings] == ["P0"]


@pytest.mark.parametrize("raw", ["I reviewed the diff and found no problems.", "", "42"])
def test_e5_prose_only_fails(raw: str) -> None:
    failure = failed(raw)
    assert failure.error == "No JSON object found in output"
    assert failure.description == "Failed to parse channel output: No JSON object found in output"


def test_e6_truncated_reply() -> None:
    raw = '{"approved": false, "findings": [{"severity": "P1", "location": "a.ts:1", "descr'
    assert failed(raw).error == "Unbalanced braces in JSON output"


def test_e10_stray_brace_in_prose() -> None:
    raw = "The handler uses { for blocks.\n" + reply(True, [], "ok")
    assert failed(raw).error == "Unbalanced braces in JSON output"
    assert failed(raw, "default-last").error == "Unbalanced braces in JSON output"


def test_e11_balanced_braces_in_prose() -> None:
    raw = "I looked at the {config} object.\n" + reply(True, [], "ok")
    assert "Expecting" in failed(raw).error
    assert ok(raw, "default-last").summary == "ok"


def test_e12_code_fence_with_braces_then_json_fence() -> None:
    raw = "```ts\nfunction f() { return 1 }\n```\n```json\n" + reply(True, [], "ok") + "\n```"
    failed(raw)
    assert ok(raw, "default-last").approved is True


def test_e13_two_fenced_blocks_ack_first() -> None:
    p0 = {**F1, "severity": "P0"}
    raw = f"```json\n{reply(True, [], 'ack')}\n```\n```json\n{reply(False, [p0], 'real')}\n```"
    # Issue 13: the later review wins for `default` too, so the P0 is no longer lost.
    assert [f.severity for f in ok(raw).findings] == ["P0"]
    assert [f.severity for f in ok(raw, "default-last").findings] == ["P0"]


def test_e16_commas_inside_strings_survive_q2() -> None:
    raw = reply(False, [{**F1, "description": "use [a, ] or {b, }"}], "x")
    assert ok(raw).findings[0].description == "use [a, ] or {b, }"


def test_e17_braces_and_escaped_quotes_in_strings() -> None:
    assert ok(r'{"approved": true, "findings": [], "summary": "said \"use {braces}\" here"}'
              ).summary == 'said "use {braces}" here'


def test_q5_a_summary_repeating_the_failure_text_is_not_a_failure() -> None:
    # Q5: failure is typed; a model that writes the failure summary still parsed fine.
    result = ok(reply(True, [], "Output parsing failed."))
    assert result.summary == "Output parsing failed."


@pytest.mark.parametrize("parser", ["default", "default-last"])
def test_q4_bare_array_of_findings_is_read_as_findings(parser: str) -> None:
    # Q4 (deviation): the reference takes the first element as the reply, 0 findings.
    result = ok(json.dumps([F1, {**F1, "severity": "P3"}]), parser)
    assert [f.severity for f in result.findings] == ["P1", "P3"]
    assert result.approved is False
    assert ok(json.dumps([{**F1, "severity": "P2"}]), parser).approved is True
    assert ok("```json\n[]\n```", parser).approved is True


def test_q4_arrays_that_are_not_finding_lists_keep_reference_behaviour() -> None:
    # Prose around the array, non-object elements, or objects that are not findings
    # (claude's events array): parsed as the reference does, now a visible failure.
    assert failed("Findings: " + json.dumps([F1])).error.startswith("missing findings")
    assert failed('["P1", "P2"]').error == "No JSON object found in output"
    events = json.dumps([{"type": "system"}, {"type": "result", "result": "{}"}])
    assert failed(events).error.startswith("missing findings")


# default-last ------------------------------------------------------------------------


def test_default_last_nested_brace_in_final_string() -> None:
    raw = reply(True, [], "ack") + reply(False, [{**F1, "description": "add } and {"}], "real")
    assert ok(raw, "default-last").findings[0].description == "add } and {"


@pytest.mark.parametrize(
    "tail", ['\nLet me know if you want {more}.', ' {"truncated": ', " {not json}"],
)
def test_e14_default_last_strict_tail(tail: str) -> None:
    failure = failed(reply(True, [], "ok") + tail, "default-last")
    assert failure.error == (
        "Trailing JSON after the last complete object failed to parse — "
        "the final reply may be truncated"
    )


def test_default_last_good_junk_good_gives_last_good() -> None:
    raw = reply(True, [], "a") + " {junk} " + reply(False, [F1], "b")
    assert ok(raw, "default-last").summary == "b"


def test_default_last_ignores_broken_candidates_before_the_first_good_one() -> None:
    assert ok("{broken} " + reply(True, [], "good"), "default-last").summary == "good"
    assert ok("prefix {] " + reply(True, [], "after"), "default-last").summary == "after"


def test_e15_default_last_without_objects() -> None:
    assert failed('["P1", "P2"]', "default-last").error == (
        "No JSON object found in output (default-last scans only object roots; "
        "a top-level array is not supported)"
    )
    assert failed("no json here", "default-last").error == "No JSON object found in output"


# gemini ------------------------------------------------------------------------------


def test_gemini_unwraps_response_and_reads_direct_json() -> None:
    wrapped = json.dumps({"response": reply(False, [F1], "inner")})
    assert ok(wrapped, "gemini").summary == "inner"
    assert ok(reply(False, [F1], "direct"), "gemini").summary == "direct"
    comma = '{"response": ' + json.dumps(reply(True, [], "c")) + ",}"
    assert ok(comma, "gemini").summary == "c"


def test_gemini_missing_fields_fails() -> None:
    # The reference returns approved=false, 0 findings (fixture "recommended" block).
    assert failed('{"status":"done","result":"all good"}', "gemini").error.startswith(
        "missing findings"
    )


def test_e19_gemini_prose_response_fails_q9() -> None:
    # Q9: the reference swallows the inner failure and returns an empty review.
    assert failed('{"response": "I could not review this."}', "gemini").error.startswith(
        "missing findings"
    )


def test_gemini_prose_without_json_fails() -> None:
    assert failed("just words", "gemini").error == "No JSON object found in output"


# doc-conformance ---------------------------------------------------------------------

DOC = {"severity": "P2", "location": "docs/x.md::A::abc12345", "description": "d",
       "category": "doc-conformance"}


def test_doc_conformance_valid_arrays() -> None:
    blocking = ok(json.dumps([{**DOC, "severity": "P0"}, DOC]), "doc-conformance")
    assert blocking.approved is False
    assert blocking.summary == "doc-conformance: 2 finding(s) (blocking)"
    fine = ok(json.dumps([DOC, {**DOC, "severity": "P3"}]), "doc-conformance")
    assert (fine.approved, fine.summary) == (True, "doc-conformance: 2 finding(s)")
    empty = ok("  []\n", "doc-conformance")
    assert (empty.approved, empty.summary) == (True, "doc-conformance: 0 finding(s)")


@pytest.mark.parametrize("raw", ['{"findings": []}', "null"])
def test_doc_conformance_not_an_array_fails_q3(raw: str) -> None:
    # Q3: the reference returns a P1 finding at "doc-conformance" that the filter drops.
    assert "not an array" in failed(raw, "doc-conformance").error


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [("```json\n[]\n```", "not valid JSON"), ("[{}, ]", "not valid JSON"),
     ('[{"severity":"HIGH","location":"a","description":"d"}]', "invalid severity"),
     ('[{"severity":"P1","location":"","description":"d"}]', "missing location")],
)
def test_doc_conformance_errors_are_parse_failures_q3(raw: str, fragment: str) -> None:
    failure = failed(raw, "doc-conformance")
    assert failure.error.startswith("doc-conformance output")
    assert fragment in failure.error


def test_doc_conformance_is_not_a_silent_fallback_to_default() -> None:
    assert ok(json.dumps([DOC]), "doc-conformance").findings[0].category == "doc-conformance"
    lenient_only = json.dumps([{**DOC, "severity": "HIGH"}])
    assert "invalid severity" in failed(lenient_only, "doc-conformance").error
    assert ok(lenient_only, "default").findings[0].severity == "P2"
