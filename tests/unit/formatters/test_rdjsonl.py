"""``--format rdjsonl``: reviewdog's Diagnostic, one JSON object per line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.formatters.rdjsonl import MAX_LINE_BYTES, diagnostic, render_rdjsonl

from .ci_samples import CI_SAMPLES, _finding, _results
from .samples import SAMPLES, blocked_example, clean_pass, gate_document

GOLDEN = Path(__file__).parent / "golden"
#: The fields reviewdog's ``rdf.Diagnostic`` defines (proto/rdf/reviewdog.proto).
DIAGNOSTIC_FIELDS = {"message", "location", "severity", "source", "code", "suggestions",
                     "original_output", "related_locations"}


@pytest.mark.parametrize("stem", sorted(CI_SAMPLES))
def test_ci_samples_match_golden(stem):
    expected = (GOLDEN / f"{stem}.rdjsonl").read_bytes().decode("utf-8")
    assert render_rdjsonl(CI_SAMPLES[stem]()) + "\n" == expected


@pytest.mark.parametrize("stem", sorted({**SAMPLES, **CI_SAMPLES}))
def test_one_diagnostic_per_finding_per_line(stem):
    results = {**SAMPLES, **CI_SAMPLES}[stem]()
    output = render_rdjsonl(results)
    lines = output.split("\n") if output else []
    off_diff = len(results.outside_diff_findings or []) + len(results.unanchored_findings or [])
    assert len(lines) == len(results.reconciled_findings) + off_diff
    for line in lines:
        data = json.loads(line)
        assert set(data) <= DIAGNOSTIC_FIELDS
        assert data["severity"] in ("ERROR", "WARNING", "INFO")
        assert data["source"] == {"name": "mmr"}
        assert data["code"]["value"].startswith("mmr/")
        if "location" in data:
            assert data["location"]["path"]
            if "range" in data["location"]:
                assert data["location"]["range"]["start"]["line"] >= 1


def test_no_findings_prints_nothing():
    assert render_rdjsonl(clean_pass()) == ""
    assert render_rdjsonl(gate_document()) == ""


def test_blocked_example_diagnostics():
    first, second, third = (json.loads(line)
                            for line in render_rdjsonl(blocked_example()).split("\n"))
    assert first == {
        "message": "SQL built by concatenation\n\nSuggestion: Use bind parameters\n\n"
                   "Sources: claude, codex (consensus, high confidence)\n\n"
                   "Key: c1fdc26dbda72d9684e972b8e76791260c062ca9",
        "location": {"path": "src/db.ts", "range": {"start": {"line": 42}}},
        "severity": "ERROR",
        "source": {"name": "mmr"},
        "code": {"value": "mmr/security"},
        "original_output": "[P1] src/db.ts:42",
    }
    assert second["severity"] == "INFO"  # acknowledged
    assert "Acknowledged (exact): accepted: callers retry at most 3 times" in second["message"]
    assert third["severity"] == "INFO"  # P3


def test_ranges_are_line_wise_with_an_optional_column():
    findings = [_finding(1, "P2", "a.py:3-9", "range"), _finding(2, "P2", "a.py:3:7", "col"),
                _finding(3, "P2", "unknown", "nowhere")]
    ranged, column, nowhere = (diagnostic(f, "P1") for f in findings)
    assert ranged["location"]["range"] == {"start": {"line": 3}, "end": {"line": 9}}
    assert column["location"]["range"] == {"start": {"line": 3, "column": 7}}
    assert "location" not in nowhere
    assert ranged["severity"] == "WARNING"


def test_a_huge_message_is_cut_to_fit_reviewdogs_line_limit():
    results = _results([_finding(1, "P1", "a.py:1", "é\n" * 100_000)])
    line = render_rdjsonl(results)
    assert len(line.encode()) <= MAX_LINE_BYTES
    message = json.loads(line)["message"]
    assert message.endswith("…")
    assert len(message) > 10_000


def test_undecodable_bytes_still_make_valid_utf8():
    results = _results([_finding(1, "P1", "a.py:1", "bad \udcff byte")])
    line = render_rdjsonl(results)
    line.encode("utf-8")  # raises on a lone surrogate
    assert json.loads(line)["message"].startswith("bad ")
