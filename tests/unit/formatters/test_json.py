"""JSON rendering rules that the golden files do not make obvious."""

from __future__ import annotations

import json

from mmr.formatters.json import dumps, render_json, results_document

from .samples import blocked_example, clean_pass, gate_document


def test_two_space_indent_and_non_ascii_written_raw():
    text = dumps({"summary": "Review blocked — 1 finding(s)", "n": [1]})
    assert text == '{\n  "summary": "Review blocked — 1 finding(s)",\n  "n": [\n    1\n  ]\n}'


def test_lone_surrogates_become_json_escapes_and_output_encodes():
    text = dumps({"d": "bad \udcff byte, high \ud800 alone"})
    assert "\\udcff" in text and "\\ud800" in text
    text.encode("utf-8")  # would raise if a raw surrogate were left
    assert json.loads(text)["d"] == "bad \udcff byte, high \ud800 alone"


def test_surrogate_pair_held_as_two_code_points_is_one_character():
    assert dumps("\ud83d\ude00") == '"\U0001f600"'


def test_absent_optional_fields_are_omitted_not_null():
    text = render_json(clean_pass())
    assert "null" not in text
    data = json.loads(text)
    assert "trust_mode" not in data and "session_id" not in data
    assert "error" not in data["per_channel"]["claude"]


def test_generated_id_is_last_before_ack_fields():
    finding = results_document(blocked_example())["reconciled_findings"][1]
    assert list(finding)[-4:] == ["id", "acknowledged", "ack_match", "ack_reason"]


def test_gate_document_has_reference_order_then_additive_keys():
    keys = list(results_document(gate_document()))
    assert keys[:6] == [
        "verdict", "fix_threshold", "reconciled_findings", "advisory_count", "approved", "summary",
    ]
    assert keys[-3:] == ["job_id", "per_channel", "metadata"]
    assert results_document(gate_document())["job_id"] is None


def test_document_is_not_wrapped_in_an_envelope():
    data = json.loads(render_json(blocked_example()))
    assert next(iter(data)) == "job_id"
    assert "data" not in data and "schema_version" not in data
