"""``parse_channel_output`` never raises, and stays linear on large adversarial replies."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import matches_incomplete_guard, parse_channel_output

SPECS: list[Any] = [
    "default", "default-last", "gemini", "doc-conformance",
    {"kind": "unwrap-jsonpath", "wrap": "$.text", "then": "default-last",
     "incomplete": {"status_path": "$.stopReason", "values": ["Cancelled"], "message": "m"}},
    {"kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error"},
    {"kind": "regex-findings", "pattern": r"^(P[0-3])\|([^|\n]+)\|(.*)$",
     "fields": {"severity": 1, "location": 2, "description": 3}},
    {"kind": "markdown-findings"},
    {"kind": "answer"},
]
# Text that looks like replies: JSON punctuation, keywords, fences and markdown headers.
REPLYISH = st.lists(
    st.sampled_from(['{', '}', '[', ']', '"', '\\', ',', ':', ' ', '\n', '```json\n', '```',
                     '"approved"', '"findings"', 'true', 'null', '1e999', 'NaN', '"P1"',
                     '### [BLOCKER] ', 'a.py:3', 'NO FINDINGS', '"text"', '"stopReason"',
                     '"Cancelled"', 'P1|a:1|x']) | st.text(max_size=5),
    max_size=60,
).map("".join)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s if isinstance(s, str) else s["kind"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=st.one_of(st.text(), REPLYISH))
def test_never_raises(spec: Any, raw: str) -> None:
    result = parse_channel_output(raw, spec)
    assert isinstance(result, ParsedOutput | ParseFailure)
    assert isinstance(matches_incomplete_guard(raw, spec), bool)


def test_deeply_nested_json_is_a_failure_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for spec in ("default", "default-last", "doc-conformance", SPECS[4]):
        result = parse_channel_output(deep, spec)
        assert isinstance(result, ParsedOutput | ParseFailure)


def _elapsed(raw: str, spec: Any) -> float:
    start = time.perf_counter()
    parse_channel_output(raw, spec)
    return time.perf_counter() - start


# Each input is a few hundred kilobytes built so that a scanner restarting its walk at
# every bracket would do tens of billions of steps; a linear one takes well under a second.
ADVERSARIAL = {
    "unclosed openers (any-value)": ("{" * 200_000, SPECS[4]),
    "truncated envelope full of escaped JSON": (
        '{"text": "' + '{\\"a\\": [\\"' * 40_000, SPECS[4]),
    "mismatched openers (last-object)": ("{" * 200_000 + "]", "default-last"),
    "strings and escapes (last-object)": ('{"a\\"' * 80_000, "default-last"),
    "balanced junk (last-object)": ("{x} " * 100_000, "default-last"),
    "nested failing candidates (any-value)": ("[" * 3000 + "x" + "]" * 3000, SPECS[4]),
    "long dotted token (markdown)": ("### [NIT] " + "a." * 200_000 + "\n", SPECS[7]),
    "many colons (answer)": ("x.y" * 50_000 + ":1" * 50_000, SPECS[8]),
}


@pytest.mark.parametrize("case", list(ADVERSARIAL), ids=list(ADVERSARIAL))
def test_adversarial_replies_parse_in_linear_time(case: str) -> None:
    raw, spec = ADVERSARIAL[case]
    assert _elapsed(raw, spec) < 3.0


def test_a_large_valid_envelope_is_fast() -> None:
    findings = [{"severity": "P2", "location": f"f{i}.py:{i}", "description": "x { y } [z]",
                 "suggestion": "s"} for i in range(20_000)]
    inner = json.dumps({"approved": False, "findings": findings, "summary": "big"})
    raw = "prose before " + json.dumps({"text": inner, "stopReason": "EndTurn"})
    start = time.perf_counter()
    result = parse_channel_output(raw, SPECS[4])
    assert time.perf_counter() - start < 3.0
    assert isinstance(result, ParsedOutput)
    # Issue 16: a channel keeps its first 500 findings, and says so.
    assert len(result.findings) == 500
    assert result.summary == (
        "big [mmr: 19500 findings over the limit of 500 per channel were dropped]")
