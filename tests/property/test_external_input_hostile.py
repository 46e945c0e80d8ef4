"""``mmr reconcile --input`` never crashes on what an outside reviewer hands it.

Any text ends in a ParsedOutput or a ReconcileInputError (exit 5) whose message starts
``Invalid input:`` and, when a finding is at fault, names that finding by position.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from mmr.errors import ReconcileInputError
from mmr.models import ParsedOutput
from mmr.parsers import normalize_external_input, read_input
from mmr.review.reconcile_input import parse_external
from tests.property.strategies import (
    ANY_TEXT,
    DECODED_TEXT,
    REPLYISH,
    finding_like,
    rendered_json,
    reply_like,
)

_SEVERITIES = ("P0", "P1", "P2", "P3")


def _first_invalid(findings: list[Any]) -> tuple[int, str] | None:
    """An independent reading of the strict rules: the first bad finding and why."""
    for index, value in enumerate(findings):
        item = {} if isinstance(value, list) else value
        if not isinstance(item, dict):
            return index, "Finding must be an object"
        if item.get("severity") not in _SEVERITIES or not isinstance(item.get("severity"), str):
            return index, "Finding missing or invalid severity (must be P0-P3)"
        if not isinstance(item.get("location"), str) or not item["location"]:
            return index, "Finding missing location"
        if not isinstance(item.get("description"), str) or not item["description"]:
            return index, "Finding missing description"
    return None


@given(text=st.one_of(ANY_TEXT, DECODED_TEXT, REPLYISH, rendered_json()))
@example(text="[" * 10_000)
@example(text="[" * 10_000 + "]" * 10_000)
@example(text='{"findings":' + "[" * 10_000 + "]" * 10_000 + "}")
@example(text='[{"severity":"P1","location":"a","description":' + "9" * 10_000 + "}]")
@example(text='{"findings":[{"severity":"P1","location":"a\\ud800","description":"\x00"}]}')
def test_any_input_text_is_a_result_or_an_input_error(text: str) -> None:
    for normalize in (normalize_external_input, parse_external):
        try:
            result = normalize(text)
        except ReconcileInputError as exc:
            assert exc.exit_code == 5
            assert str(exc).startswith("Invalid input: ")
            event("ReconcileInputError")
        else:
            assert isinstance(result, ParsedOutput)
            event("ParsedOutput")


@given(findings=st.lists(finding_like(), max_size=6), wrap=st.sampled_from(
    ["bare", "object", "fenced", "prose"]))
def test_a_bad_finding_is_named_by_position(findings: list[Any], wrap: str) -> None:
    body = json.dumps(findings)
    text = {"bare": body, "object": json.dumps({"findings": findings}),
            "fenced": f"```json\n{body}\n```", "prose": f"My findings:\n{body}\n"}[wrap]
    bad = _first_invalid(findings)
    if bad is None:
        result = parse_external(text)
        assert len(result.findings) == len(findings)
        return
    index, reason = bad
    with pytest.raises(ReconcileInputError) as caught:
        parse_external(text)
    assert str(caught.value) == (
        f"Invalid input: {reason} (finding {index + 1} of {len(findings)}, index {index})")


@given(reply=reply_like())
def test_any_reply_shape_is_a_result_or_an_input_error(reply: Any) -> None:
    try:
        result = parse_external(json.dumps(reply))
    except ReconcileInputError as exc:
        assert str(exc).startswith("Invalid input: ")
    else:
        assert isinstance(result, ParsedOutput)


@given(source=st.one_of(ANY_TEXT, st.sampled_from([
    "missing.json", "a\x00b.json", "x" * 5000, ".", "/", "-", "  [1]", " {", "dir"])))
def test_any_input_source_reads_or_is_an_input_error(
    tmp_path_factory: pytest.TempPathFactory, source: str
) -> None:
    base = tmp_path_factory.mktemp("input")
    (base / "dir").mkdir()
    before = sorted(p.name for p in base.iterdir())
    try:
        text = read_input(source, io.StringIO("[]"))
    except ReconcileInputError as exc:
        assert str(exc).strip()
    else:
        assert isinstance(text, str)
    assert sorted(p.name for p in base.iterdir()) == before


@given(data=st.binary(max_size=200))
def test_an_input_file_of_any_bytes_reads_or_is_an_input_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("input") / "findings.json"
    path.write_bytes(data)
    try:
        text = read_input(str(path))
    except ReconcileInputError as exc:
        assert "is not UTF-8 text" in str(exc)
        return
    with contextlib.suppress(ReconcileInputError):
        normalize_external_input(text)


# ------------------------------------------------------------ regressions (fixes pinned)


def test_deep_nesting_after_a_recursion_failure_is_an_input_error() -> None:
    """Fix: naming the bad finding re-decoded the input and let RecursionError escape."""
    with pytest.raises(ReconcileInputError, match=r"^Invalid input: "):
        parse_external("[" * 10_000 + "]" * 10_000)


def test_a_nul_in_an_input_path_is_not_found(tmp_path: Path) -> None:
    """Fix: a NUL in the path was reported as "not UTF-8 text: embedded null byte"."""
    with pytest.raises(ReconcileInputError, match=r'^Input not found: ".*is not a file'):
        read_input(str(tmp_path / "a\x00b"))
