"""Locations, rule ids and levels the CI formats share (mmr.formatters.annotation)."""

from __future__ import annotations

import pytest

from mmr.formatters.annotation import (
    SourceSpan,
    blocks_gate,
    gate_level,
    rule_id,
    source_span,
)

from .ci_samples import _finding


@pytest.mark.parametrize(
    ("location", "span"),
    [
        ("src/a.py:42", SourceSpan("src/a.py", 42)),
        ("src/a.py:10-12", SourceSpan("src/a.py", 10, 12)),
        ("src/a.py:10:5", SourceSpan("src/a.py", 10, None, 5)),
        ("src/a.py:10:5-7", SourceSpan("src/a.py", 10, None, 5)),
        ("src/a.py (line 4)", SourceSpan("src/a.py", 4)),
        ("src/a.py (Line 4)", SourceSpan("src/a.py", 4)),
        ("src/a.py#L20-L22", SourceSpan("src/a.py", 20, 22)),
        ("src/a.py#L7", SourceSpan("src/a.py", 7)),
        ("./src/a.py:3", SourceSpan("src/a.py", 3)),
        ("  src//deep///a.py  ", SourceSpan("src/deep/a.py")),
        ("src\\win\\a.py:2", SourceSpan("src/win/a.py", 2)),
        ("src/a.py:func_name", SourceSpan("src/a.py")),
        ("src/a.py:0", SourceSpan("src/a.py")),
        ("src/a.py:9-3", SourceSpan("src/a.py", 9)),
        ("README", SourceSpan("README")),
        ("My Docs/a.md:1", SourceSpan("My Docs/a.md", 1)),
    ],
)
def test_source_span_reads_every_location_form(location, span):
    assert source_span(location) == span


@pytest.mark.parametrize(
    "location", ["unknown", "Unknown:12", "", "  ", "n/a", "output-parser", "Section 2: T2-B",
                 "General design"],
)
def test_locations_that_name_no_file(location):
    assert source_span(location) is None


@pytest.mark.parametrize(
    ("category", "expected"),
    [(None, "mmr/general"), ("", "mmr/general"), ("  ", "mmr/general"),
     ("security", "mmr/security"), ("Security ", "mmr/security"),
     ("doc conformance", "mmr/doc-conformance"), ("API/contract!", "mmr/api-contract"),
     ("perf.io", "mmr/perf.io"), ("sécurité", "mmr/sécurité")],
)
def test_rule_id_is_a_slug_of_the_category(category, expected):
    assert rule_id(category) == expected


@pytest.mark.parametrize(
    ("severity", "acknowledged", "threshold", "level"),
    [
        ("P0", None, "P2", "error"),
        ("P2", None, "P2", "error"),
        ("P2", None, "P1", "warning"),
        ("P1", True, "P2", "notice"),
        ("P3", None, "P2", "notice"),
        ("P3", None, "P3", "error"),
        ("P0", True, "P3", "notice"),
    ],
)
def test_gate_level_follows_the_gate(severity, acknowledged, threshold, level):
    finding = _finding(1, severity, "a.py:1", "x", acknowledged=acknowledged)
    assert gate_level(finding, threshold) == level
    assert blocks_gate(finding, threshold) is (level == "error")


@pytest.mark.parametrize(
    ("severity", "acknowledged", "level"),
    [("P0", None, "warning"), ("P2", None, "warning"), ("P1", True, "notice"),
     ("P3", None, "notice")],
)
def test_an_ungated_finding_outside_the_diff_is_never_an_error(severity, acknowledged, level):
    finding = _finding(1, severity, "a.py:1", "x", acknowledged=acknowledged)
    assert gate_level(finding, "P2", gated=False) == level
