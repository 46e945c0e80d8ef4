"""Limits a hostile reply cannot cross (issue 16): findings per channel, field length."""

from __future__ import annotations

import json

from mmr.models import ParsedOutput
from mmr.parsers import parse_channel_output
from mmr.parsers.limits import CUT_MARK, MAX_FIELD_CHARS, MAX_FINDINGS
from mmr.reconcile.reconciler import reconcile


def _reply(findings: list[dict[str, str]], summary: str = "s") -> str:
    return json.dumps({"approved": False, "findings": findings, "summary": summary})


def _finding(i: int, description: str = "a bug here", suggestion: str = "fix") -> dict[str, str]:
    return {"severity": "P1", "location": f"a.py:{i}", "description": description,
            "suggestion": suggestion}


def test_an_8mb_description_is_cut_and_its_shingle_is_of_the_cut_text() -> None:
    huge = "the cache key omits the tenant id " * 250_000  # ~8.5 MB, under the 16 MiB cap
    result = parse_channel_output(_reply([_finding(1, huge, "y" * 20_000)]), "default")
    assert isinstance(result, ParsedOutput)
    [finding] = result.findings
    assert finding.description == huge[:MAX_FIELD_CHARS] + CUT_MARK
    assert finding.suggestion == "y" * MAX_FIELD_CHARS + CUT_MARK
    assert result.summary.endswith(
        f"[mmr: 1 findings had a description or suggestion cut to {MAX_FIELD_CHARS} characters]")
    [merged] = reconcile({"ch": result.findings})
    assert len(json.dumps(merged.description_shingle)) < 20 * MAX_FIELD_CHARS


def test_a_flood_of_findings_keeps_the_first_500_with_a_note() -> None:
    result = parse_channel_output(_reply([_finding(i) for i in range(MAX_FINDINGS + 7)]),
                                  "default")
    assert isinstance(result, ParsedOutput)
    assert [f.location for f in result.findings] == [f"a.py:{i}" for i in range(MAX_FINDINGS)]
    assert result.summary == "s [mmr: 7 findings over the limit of 500 per channel were dropped]"


def test_a_flood_of_nits_cannot_push_a_p0_out() -> None:
    """The cut kept the first 500 in reply order: 500 P3s before a P0 dropped the P0 and the
    gate passed with only a note saying one finding was dropped."""
    nits = [{**_finding(i), "severity": "P3"} for i in range(MAX_FINDINGS)]
    blocker = {**_finding(999, "sql injection"), "severity": "P0"}
    result = parse_channel_output(_reply([*nits, blocker]), "default")
    assert isinstance(result, ParsedOutput)
    assert [f.severity for f in result.findings] == ["P3"] * (MAX_FINDINGS - 1) + ["P0"]
    assert result.findings[-1].location == "a.py:999"
    assert [f.location for f in result.findings[:-1]] == [f"a.py:{i}"
                                                          for i in range(MAX_FINDINGS - 1)]
    assert result.summary == "s [mmr: 1 findings over the limit of 500 per channel were dropped]"


def test_a_reply_within_the_limits_is_untouched() -> None:
    raw = _reply([_finding(i) for i in range(MAX_FINDINGS)], summary="fine")
    result = parse_channel_output(raw, "default")
    assert isinstance(result, ParsedOutput)
    assert result.summary == "fine" and len(result.findings) == MAX_FINDINGS
