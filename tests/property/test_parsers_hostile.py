"""Hostile replies and specs never crash a parser.

Every call ends in a ParsedOutput or a ParseFailure (``parse_answer``: a string or a
ParseFailure), gives the same answer twice, and its result can be written to the job
store as JSON. The fixed worst cases below run for every spec family.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from mmr.fs import dumps_json
from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import matches_incomplete_guard, parse_answer, parse_channel_output
from mmr.parsers.registry import registered_names
from tests.property.strategies import (
    ANY_TEXT,
    JSON_VALUES,
    PARSER_SPECS,
    RAW_REPLIES,
    answer_spec,
    finding_like,
    markdown_spec,
    regex_spec,
)

#: One spec of each family, for the fixed worst cases.
FAMILY_SPECS: dict[str, Any] = {
    **{name: name for name in ("default", "default-last", "gemini", "doc-conformance")},
    "unwrap": {"kind": "unwrap-jsonpath", "wrap": "$.text", "then": "default-last",
               "incomplete": {"status_path": "$.stopReason", "values": ["Cancelled"],
                              "message": "m"}},
    "unwrap-error": {"kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error"},
    "regex": {"kind": "regex-findings", "pattern": r"^(P[0-3])\|([^|\n]+)\|(.*)$",
              "fields": {"severity": 1, "location": 2, "description": 3}},
    "markdown": {"kind": "markdown-findings"},
    "answer": {"kind": "answer"},
}

_BIG_INT = "9" * 10_000
#: The named worst cases of the brief: nesting, huge numbers, NUL, surrogates, 1 MB lines.
WORST_CASES: dict[str, str] = {
    "10k [": "[" * 10_000,
    "10k [ closed": "[" * 10_000 + "]" * 10_000,
    "10k nested objects": '{"a":' * 10_000 + "1" + "}" * 10_000,
    "deep findings": '{"findings":' + "[" * 10_000 + "]" * 10_000 + "}",
    "1e999999 description":
        '{"findings":[{"severity":"P1","location":"a","description":1e999999}]}',
    "-1e999999 approved": '{"approved":-1e999999,"findings":[]}',
    "10k-digit int description":
        '{"findings":[{"severity":"P1","location":"a","description":' + _BIG_INT + "}]}",
    "10k-digit int in an unused key": '{"findings":[],"tokens":' + _BIG_INT + "}",
    "400-digit int description":
        '{"findings":[{"severity":"P1","location":"a","description":' + "9" * 400 + "}]}",
    "10k-digit int envelope": '{"result":' + _BIG_INT + ',"text":' + _BIG_INT + "}",
    "NUL bytes": '{"findings":[{"severity":"P1","location":"a\x00","description":"\\u0000x"}]}',
    "escaped lone surrogate": '{"findings":[{"severity":"P1","location":"a",'
                              '"description":"\\ud800 half an emoji"}]}',
    "raw lone surrogates": '{"findings":[{"severity":"P1","location":"\udcff",'
                           '"description":"\ud83d"}]}',
    "invalid UTF-8 (replace)": b'{"findings":[{"severity":"P1","location":"\xff\xfe",'
                               b'"description":"\xc3("}]}'.decode("utf-8", "replace"),
    "invalid UTF-8 (surrogateescape)": b'{"findings":[{"severity":"P1","location":"\xff",'
                                       b'"description":"\xed\xa0\x80"}]}'.decode(
                                           "utf-8", "surrogateescape"),
    "1 MB single line": "x" * 1_000_000,
    "1 MB single JSON line": '{"findings":[],"summary":"' + "y" * 1_000_000 + '"}',
    "1 MB of openers": "{[" * 500_000,
    "1 MB markdown line": "### [NIT] " + "a.b/" * 250_000,
}


def _check_parsed(result: object) -> None:
    assert isinstance(result, ParsedOutput | ParseFailure), type(result)
    if isinstance(result, ParseFailure):
        assert result.error.strip()
        assert result.reason in ("parse_error", "gate_failed")
    # The job store can always write it, and reads back the same JSON.
    data = result.to_json_dict()
    assert json.loads(dumps_json(data)) == json.loads(json.dumps(data))


@given(raw=RAW_REPLIES, spec=PARSER_SPECS)
def test_any_reply_with_any_spec_is_a_typed_result(raw: str, spec: Any) -> None:
    first = parse_channel_output(raw, spec)
    _check_parsed(first)
    event(first.reason if isinstance(first, ParseFailure) else "ParsedOutput")
    assert parse_channel_output(raw, spec) == first  # deterministic
    answer = parse_answer(raw, spec)
    assert isinstance(answer, str | ParseFailure)
    assert isinstance(matches_incomplete_guard(raw, spec), bool)


@pytest.mark.parametrize("name", registered_names())
@given(raw=RAW_REPLIES)
@example(raw="[" * 10_000)
@example(raw='{"findings":[{"severity":"P1","location":"a","description":' + _BIG_INT + "}]}")
def test_every_named_parser_survives_any_reply(name: str, raw: str) -> None:
    result = parse_channel_output(raw, name)
    _check_parsed(result)
    event(result.reason if isinstance(result, ParseFailure) else "ParsedOutput")


@pytest.mark.parametrize("name", ["default", "default-last", "gemini"])
@given(findings=st.lists(finding_like(), max_size=6), approved=JSON_VALUES,
       ensure_ascii=st.booleans(), before=st.sampled_from(["", "Review:\n", "```json\n"]))
def test_lenient_parsers_coerce_findings_of_every_wrong_type(
    name: str, findings: list[Any], approved: Any, ensure_ascii: bool, before: str
) -> None:
    """A well-formed reply object fails a lenient parser only when it is unusable: findings
    that hold no object at all, ``approved: false`` with no findings, or a finding whose
    description is blank."""
    reply = json.dumps({"approved": approved, "findings": findings}, ensure_ascii=ensure_ascii)
    result = parse_channel_output(before + reply + ("\n```" if before.startswith("`") else ""),
                                  name)
    unusable = (bool(findings) and not any(isinstance(f, dict) for f in findings)) or (
        not findings and approved is False) or any(
        isinstance(f, dict) and isinstance(f.get("description"), str)
        and not f["description"].strip() for f in findings)
    if unusable:
        assert isinstance(result, ParseFailure), result
        assert result.error.startswith("unusable reply")
        return
    assert isinstance(result, ParsedOutput), result
    assert len(result.findings) == len(findings)
    assert result.approved is (approved is True)
    _check_parsed(result)


@given(raw=RAW_REPLIES, spec=regex_spec())
@example(raw="aaaa", spec={"kind": "regex-findings", "pattern": "a{4294967296}",
                           "fields": {"location": 1, "description": 1}})
@example(raw="x", spec={"kind": "regex-findings", "pattern": "(" * 3000 + ")" * 3000,
                        "fields": {"location": 1, "description": 1}})
def test_a_bad_regex_is_a_parse_failure_naming_the_pattern(raw: str, spec: dict[str, Any]) -> None:
    result = parse_channel_output(raw, spec)
    _check_parsed(result)
    if isinstance(result, ParseFailure) and "Invalid regular expression" in result.error:
        assert f"/{spec['pattern'][:20]}" in result.error


_REPO_FILES = ("inside.py", "link.py")


@given(filler=ANY_TEXT.filter(lambda t: not any(name in t for name in _REPO_FILES)),
       cited=st.sampled_from(["inside.py", "sub/../inside.py", "./inside.py", "../outside.py",
                              "link.py", "/etc/hostname", "../../etc/hostname", "nul\x00.py",
                              "missing.py", "inside.py/../../outside.py"]),
       answer=answer_spec(), markdown=markdown_spec())
def test_a_citation_opens_the_gate_only_inside_the_repo(
    tmp_path_factory: pytest.TempPathFactory, filler: str, cited: str,
    answer: dict[str, Any], markdown: dict[str, Any],
) -> None:
    base = tmp_path_factory.mktemp("gate")
    repo = base / "repo"
    repo.mkdir()
    (repo / "inside.py").write_text("x\n")
    (base / "outside.py").write_text("secret\n")
    (repo / "link.py").symlink_to(base / "outside.py")  # a link out of the repo
    reply = f"### [BLOCKER] title\n{cited}:3\n{filler}"
    gated = parse_channel_output(reply, {"kind": "markdown-findings"}, repo_root=repo)
    _check_parsed(gated)
    inside = cited in ("inside.py", "sub/../inside.py", "./inside.py")
    assert isinstance(gated, ParsedOutput) == inside, gated
    _check_parsed(parse_channel_output(reply, markdown, repo_root=repo))
    assert isinstance(parse_answer(reply, answer, repo_root=repo), str | ParseFailure)


@pytest.mark.parametrize("spec_name", list(FAMILY_SPECS))
@pytest.mark.parametrize("case", list(WORST_CASES))
def test_worst_cases_are_typed_and_bounded(spec_name: str, case: str) -> None:
    spec, raw = FAMILY_SPECS[spec_name], WORST_CASES[case]
    # CPU time, not wall time: the bound is about the parsers' own work (a quadratic scan
    # would take minutes), and other processes on a loaded machine must not move it.
    start = time.process_time()
    result = parse_channel_output(raw, spec, repo_root=Path.cwd())
    answer = parse_answer(raw, spec)
    elapsed = time.process_time() - start
    _check_parsed(result)
    assert isinstance(answer, str | ParseFailure)
    assert elapsed < 5.0, f"{case} with {spec_name} took {elapsed:.1f}s"


# ------------------------------------------------------------ regressions (fixes pinned)


def test_a_10k_digit_integer_in_a_reply_decodes_like_the_reference() -> None:
    """Fix: Python's int-string limit made any reply holding a >4300-digit number fail.

    JavaScript reads such a number as a double (Infinity), so the reference accepts the reply.
    """
    result = parse_channel_output(WORST_CASES["10k-digit int in an unused key"], "default")
    assert result == ParsedOutput(approved=False, findings=[], summary="")
    described = parse_channel_output(WORST_CASES["10k-digit int description"], "default")
    assert isinstance(described, ParsedOutput)
    assert described.findings[0].description == "Infinity"


def test_a_400_digit_integer_description_reads_infinity() -> None:
    """Fix: ``float(int)`` overflowed on a 400-digit description (``String(1e400)`` is Infinity)."""
    result = parse_channel_output(WORST_CASES["400-digit int description"], "gemini")
    assert isinstance(result, ParsedOutput)
    assert result.findings[0].description == "Infinity"


def test_an_overflowing_regex_repeat_names_the_pattern() -> None:
    """Fix: ``a{4294967296}`` raised OverflowError, reported without the pattern."""
    spec = {"kind": "regex-findings", "pattern": "a{4294967296}",
            "fields": {"location": 1, "description": 1}}
    result = parse_channel_output("aaa", spec)
    assert isinstance(result, ParseFailure)
    assert result.error.startswith("Invalid regular expression: /a{4294967296}/gm: ")


@given(raw=RAW_REPLIES, value=JSON_VALUES, prefix=ANY_TEXT, suffix=ANY_TEXT)
@example(raw='x {"a": "}{\\"", "b": {"c": [1, NaN]}} tail }', value={}, prefix="",
         suffix="")
def test_the_decoder_shortcut_finds_the_span_the_brace_count_finds(
        raw: str, value: Any, prefix: str, suffix: str) -> None:
    from mmr.parsers.errors import ParseError
    from mmr.parsers.scanners import _count_braces, extract_first_object

    document = json.dumps({"v": value}, ensure_ascii=False)
    for text in (raw, f"{prefix.replace('{', '')}{document}{suffix}"):
        start = text.find("{")
        try:
            counted: str | type[ParseError] = _count_braces(text, start) if start >= 0 \
                else ParseError
        except ParseError:
            counted = ParseError
        try:
            found: str | type[ParseError] = extract_first_object(text)
        except ParseError:
            found = ParseError
        assert found == counted
