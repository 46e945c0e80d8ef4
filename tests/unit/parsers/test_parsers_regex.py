"""``regex-findings`` with JavaScript flags and syntax."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import parse_channel_output
from mmr.parsers.regex_findings import compile_js_regex, iter_matches, translate_js_pattern

PIPES = r"^(P[0-3])\|([^|\n]+)\|(.+)$"
FIELDS = {"severity": 1, "location": 2, "description": 3}
TWO_LINES = "P1|src/foo.ts:10|Null check missing\nP2|src/bar.ts:42|Unused variable `x`"


def spec(pattern: str = PIPES, **extra: Any) -> dict[str, Any]:
    return {"kind": "regex-findings", "pattern": pattern, "fields": FIELDS, **extra}


def ok(raw: str, parser: dict[str, Any]) -> ParsedOutput:
    result = parse_channel_output(raw, parser)
    assert isinstance(result, ParsedOutput), result
    return result


def test_e25_two_lines() -> None:
    result = ok(TWO_LINES, spec())
    assert [(f.severity, f.location, f.suggestion) for f in result.findings] == [
        ("P1", "src/foo.ts:10", ""), ("P2", "src/bar.ts:42", ""),
    ]
    assert (result.approved, result.summary) == (False, "Parsed 2 regex finding(s).")


def test_severity_fallbacks() -> None:
    word = spec(r"^(\w+)\|([^|\n]+)\|(.+)$")
    assert ok("CRITICAL|src/x.ts:1|boom", word).findings[0].severity == "P2"
    assert ok("p1|src/x.ts:1|boom", {**word, "default_severity": "P3"}).findings[0].severity == "P3"
    no_severity = {**spec(r"^([^|\n]+)\|(.+)$"), "fields": {"location": 1, "description": 2},
                   "default_severity": "P0"}
    assert ok("a.ts:1|x", no_severity).findings[0].severity == "P0"


def test_optional_captures_for_suggestion_id_and_category() -> None:
    pattern = r"^(P\d)\|([^|\n]+)\|([^|\n]+)(?:\|([^|\n]*))?(?:\|(\w+))?(?:\|(\w+))?$"
    fields = {**FIELDS, "suggestion": 4, "id": 5, "category": 6}
    parser = {**spec(pattern), "fields": fields}
    full = ok("P1|a.ts:1|bad|do this|ID7|security", parser).findings[0]
    assert (full.suggestion, full.id, full.category) == ("do this", "ID7", "security")
    bare = ok("P1|a.ts:1|bad", parser).findings[0]
    assert bare.to_json_dict() == {"severity": "P1", "location": "a.ts:1", "description": "bad",
                                   "suggestion": ""}


def test_group_number_beyond_the_pattern_is_absent() -> None:
    parser = {**spec(), "fields": {**FIELDS, "suggestion": 9, "id": 8}}
    finding = ok("P1|a.ts:1|bad", parser).findings[0]
    assert (finding.suggestion, finding.id) == ("", None)


def test_flags() -> None:
    lower = spec(r"^(p[0-3])\|([^|\n]+)\|(.+)$", flags="gim")
    assert len(ok(TWO_LINES.lower(), lower).findings) == 2
    assert len(ok(TWO_LINES, spec(flags="m")).findings) == 1  # no g: the first match only
    only_g = ok(TWO_LINES, spec(flags="g"))  # ^…$ anchor the whole text without m (Q13)
    assert (only_g.findings, only_g.approved, only_g.summary) == ([], True, "No regex findings.")


def test_without_m_dollar_does_not_match_before_a_final_newline() -> None:
    # JavaScript's $ (no m flag) is the very end of the text; Python's would accept "\n".
    assert ok("P1|a.ts:1|x\n", spec(flags="g")).findings == []
    assert len(ok("P1|a.ts:1|x", spec(flags="g")).findings) == 1


def test_s_flag_and_sticky_flag() -> None:
    dotall = {**spec(r"(P\d) (\S+) (.+)END"), "flags": "gs"}
    assert ok("P1 a.ts:1 two\nlines END", dotall).findings[0].description == "two\nlines "
    sticky = {**spec(r"(P\d)\|([^|\n]+)\|([^|\n]+)\n"), "flags": "gy"}
    assert len(ok("P1|a:1|x\nP2|b:2|y\nnoise\nP3|c:3|z\n", sticky).findings) == 2
    assert ok("noise\nP1|a:1|x\n", sticky).findings == []


def test_blank_capture_fails_the_whole_parse_e27() -> None:
    result = parse_channel_output("P1|a:1|one\nP2| |two", spec(r"^(P\d)\|([^|\n]*)\|(.+)$"))
    assert isinstance(result, ParseFailure)
    assert result.error == (
        "regex-findings parser requires non-empty location and description captures"
    )


def test_captures_keep_their_whitespace_e28() -> None:
    finding = ok("P1|  a.ts:1  |  spaced  ", spec()).findings[0]
    assert (finding.location, finding.description) == ("  a.ts:1  ", "  spaced  ")


def test_invalid_pattern_is_a_failure() -> None:
    result = parse_channel_output("x", spec("(unclosed"))
    assert isinstance(result, ParseFailure)
    assert result.error.startswith("Invalid regular expression: /(unclosed/gm: ")
    with pytest.raises(ValueError, match="Invalid regular expression"):
        compile_js_regex("[a-", "g")


def test_js_named_groups_are_numbered() -> None:
    parser = {**spec(r"^(?<sev>P\d)\|(?<loc>[^|\n]+)\|(?<desc>.+)$")}
    assert ok("P0|a.ts:1|x", parser).findings[0].severity == "P0"
    assert translate_js_pattern(r"(?<=a)(?<!b)(?<n>c)\k<n>[(?<x>]\(?<y>", multiline=True) == (
        r"(?<=a)(?<!b)(?P<n>c)(?P=n)[(?<x>]\(?<y>"
    )


def test_empty_matches_step_forward_like_javascript_exec() -> None:
    spans = [m.span() for m in iter_matches(re.compile("a*"), "baaa", "g")]
    assert spans == [(0, 0), (1, 4), (4, 4)]
    # An empty match yields blank captures, which fail the parse rather than loop.
    parser = {**spec(r"(x?)"), "fields": {"location": 1, "description": 1}}
    assert isinstance(parse_channel_output("xx", parser), ParseFailure)
