"""Critique's envelope helper and ``mmr reconcile --input``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mmr.errors import ReconcileInputError
from mmr.parsers import (
    InvalidExternalInput,
    extract_model_json,
    normalize_external_input,
    read_input,
)

F = {"severity": "P2", "location": "a.ts:1", "description": "d", "suggestion": "s"}


# extract_model_json ------------------------------------------------------------------


def test_unwraps_claude_result_and_grok_text() -> None:
    claude = json.dumps({"type": "result", "result": json.dumps({"a": 1})})
    assert extract_model_json(claude) == {"a": 1}
    grok = json.dumps({"text": 'prose then {"a":3}'})
    assert extract_model_json(grok) == {"a": 3}


def test_two_levels_unwrap_and_the_third_stays_wrapped() -> None:
    level3 = json.dumps({"result": json.dumps({"deep": True})})
    level2 = json.dumps({"result": level3})
    assert extract_model_json(json.dumps({"result": json.dumps({"x": 1})})) == {"x": 1}
    assert extract_model_json(json.dumps({"text": level2})) == json.loads(level3)


def test_moves_past_a_prose_wrapper_value() -> None:
    assert extract_model_json(json.dumps({"result": "no json", "text": '{"b":1}'})) == {"b": 1}


def test_plain_object_prose_and_arrays() -> None:
    assert extract_model_json('{"plain": 1}') == {"plain": 1}
    assert extract_model_json("just prose") is None
    assert extract_model_json('[{"a":1},{"b":2}]') == {"a": 1}


# normalize_external_input ------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [json.dumps({"approved": True, "findings": [F], "summary": "w"}),
     f"```json\n{json.dumps([F])}\n```",
     "Here you go:\n" + json.dumps({"approved": True, "findings": [F]}) + "\nthanks",
     "Findings:\n" + json.dumps([F]) + "\nend",
     json.dumps([F]) + " trailing text ] [",
     '[{"severity":"P2","location":"a.ts:1","description":"d",},]'],
)
def test_accepted_shapes(raw: str) -> None:
    result = normalize_external_input(raw)
    assert [f.location for f in result.findings] == ["a.ts:1"]


def test_bare_array_approval_and_summary() -> None:
    p2 = normalize_external_input(json.dumps([F]))
    assert (p2.approved, p2.summary) == (True, "Injected external findings")
    assert normalize_external_input(json.dumps([{**F, "severity": "P1"}])).approved is False
    empty = normalize_external_input("[]")
    assert (empty.approved, empty.findings) == (True, [])


def test_wrapper_approval_is_taken_as_written() -> None:
    assert normalize_external_input(json.dumps({"findings": [F]})).approved is False
    kept = normalize_external_input(json.dumps({"approved": False, "findings": []}))
    assert (kept.approved, kept.findings) == (False, [])


@pytest.mark.parametrize(
    ("raw", "detail"),
    [(json.dumps([{**F, "severity": "p1"}]), "Finding missing or invalid severity (must be P0-P3)"),
     (json.dumps([{k: v for k, v in F.items() if k != "location"}]), "Finding missing location"),
     (json.dumps([{**F, "description": ""}]), "Finding missing description"),
     (json.dumps(F), "Invalid input format: expected JSON object with findings array or bare "
                     "array of findings"),
     (json.dumps({"approved": True}), "Invalid input format: expected JSON object with findings "
                                      "array or bare array of findings"),
     ("just a string", "No JSON object or array found in input"),
     ("[" + json.dumps(F), "Unbalanced brackets in array input")],
)
def test_rejected_inputs(raw: str, detail: str) -> None:
    with pytest.raises(InvalidExternalInput) as caught:
        normalize_external_input(raw)
    assert caught.value.detail == detail
    assert str(caught.value) == f"Invalid input: {detail}"
    assert caught.value.exit_code == 5


def test_prose_bracket_before_the_array_is_skipped_q14() -> None:
    # Q14: the reference fails on `[2 items]` with a raw JSON syntax error.
    result = normalize_external_input("Findings [2 items]:\n" + json.dumps([F, F]))
    assert len(result.findings) == 2


# read_input --------------------------------------------------------------------------


def test_read_input_sources(tmp_path: Path) -> None:
    assert read_input("-", io.StringIO("[1]")) == "[1]"
    assert read_input('  {"a": 1}') == '  {"a": 1}'
    assert read_input("[]") == "[]"
    path = tmp_path / "findings.json"
    path.write_text("[]", encoding="utf-8")
    assert read_input(str(path)) == "[]"


@pytest.mark.parametrize("name", ["missing.json", "x" * 5000, "."])
def test_read_input_not_found(tmp_path: Path, name: str) -> None:
    source = name if name.startswith("x") else str(tmp_path / name)
    with pytest.raises(ReconcileInputError) as caught:
        read_input(source)
    assert str(caught.value) == (
        f'Input not found: "{source}" is not a file, stdin (-), or valid JSON'
    )
