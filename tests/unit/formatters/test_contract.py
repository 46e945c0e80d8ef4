"""Contract test: the key set and value vocabulary of the results document (STYLE item 7).

Scripts parse `--format json`; the reference's fields must all be there, mmr may only add,
and every enumerated value must stay in the published vocabulary.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from mmr import models
from mmr.formatters.json import results_document

from .samples import SAMPLES

CONTRACT = json.loads((Path(__file__).parent / "golden" / "results-contract.json").read_text())


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path in a document: ``a.b``, ``list[].key``, ``per_channel.*.key``."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, child in value.items():
            step = "*" if prefix == "per_channel" else key
            path = f"{prefix}.{step}" if prefix else step
            if step != "*":
                paths.add(path)
            paths |= key_paths(child, path)
    elif isinstance(value, list):
        for item in value:
            paths |= key_paths(item, f"{prefix}[]")
    return paths


def schema_key_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    """The key paths a model can emit, read from its declared fields."""
    paths: set[str] = set()
    for name, field in model.model_fields.items():
        if field.exclude:
            continue
        path = f"{prefix}.{name}" if prefix else name
        paths.add(path)
        inner, suffix = _unwrap(field.annotation)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            paths |= schema_key_paths(inner, path + suffix)
    return paths


def _unwrap(annotation: Any) -> tuple[Any, str]:
    """The model inside ``X | None``, ``list[X]`` or ``dict[str, X]``, and the path suffix."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _unwrap(non_none[0]) if len(non_none) == 1 else (None, "")
    if origin is list:
        return typing.get_args(annotation)[0], "[]"
    if origin is dict:
        return typing.get_args(annotation)[1], ".*"
    return annotation, ""


def test_model_key_set_is_the_published_contract():
    assert schema_key_paths(models.ReconciledResults) == set(CONTRACT["key_paths"])


def test_every_reference_key_is_kept():
    assert set(CONTRACT["reference_key_paths"]) <= set(CONTRACT["key_paths"])


@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_rendered_documents_use_only_contract_keys(stem):
    document = results_document(SAMPLES[stem]())
    paths = key_paths(document)
    assert paths <= set(CONTRACT["key_paths"])
    assert set(CONTRACT["always_present"]) <= paths


def test_samples_exercise_every_contract_key():
    seen = set().union(*(key_paths(results_document(make())) for make in SAMPLES.values()))
    assert seen == set(CONTRACT["key_paths"])


_LITERALS = {
    "verdict": models.Verdict,
    "fix_threshold": models.Severity,
    "severity": models.Severity,
    "status": models.ChannelStatus,
    "agreement": models.Agreement,
    "confidence": models.Confidence,
    "ack_match": _unwrap(models.ReconciledFinding.model_fields["ack_match"].annotation)[0],
    "trust_mode": models.TrustMode,
    "reported_confidence": models.ReportedConfidence,
}


@pytest.mark.parametrize("field", sorted(_LITERALS))
def test_model_vocabulary_matches_contract(field):
    assert list(typing.get_args(_LITERALS[field])) == CONTRACT["vocabulary"][field]


def _enumerated_values(value: Any, found: dict[str, set[Any]]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            if key in CONTRACT["vocabulary"]:
                found.setdefault(key, set()).add(child)
            _enumerated_values(child, found)
    elif isinstance(value, list):
        for item in value:
            _enumerated_values(item, found)


@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_rendered_values_stay_in_vocabulary(stem):
    found: dict[str, set[Any]] = {}
    _enumerated_values(results_document(SAMPLES[stem]()), found)
    for field, values in found.items():
        assert values <= set(CONTRACT["vocabulary"][field]), field


def test_key_paths_helper_sees_nested_channel_keys():
    doc = {"per_channel": {"a": {"status": "x", "findings": [{"severity": "P1"}]}}}
    assert key_paths(doc) == {
        "per_channel", "per_channel.*.status", "per_channel.*.findings",
        "per_channel.*.findings[].severity",
    }
