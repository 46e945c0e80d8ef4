"""``docs/config.md`` stays in step with the schema: generated, current, every key listed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from mmr.config import schema
from mmr.config_edit.reference_doc import render
from mmr.parsers import specs

REPO = Path(__file__).resolve().parents[3]
REGENERATE = "regenerate with: python -m mmr.config_edit.reference_doc > docs/config.md"


def keys(model: type[BaseModel], prefix: str) -> list[str]:
    """Every field path of ``model``, written out by hand (not with the generator)."""
    found = []
    for name in model.model_fields:
        found.append(prefix + name)
    return found


def test_docs_config_md_is_generated_and_current():
    assert (REPO / "docs" / "config.md").read_text(encoding="utf-8") == render(), REGENERATE


def test_every_schema_key_is_documented():
    text = (REPO / "docs" / "config.md").read_text(encoding="utf-8")
    expected = [
        *keys(schema.MmrConfig, ""),
        *keys(schema.Defaults, "defaults."),
        *keys(schema.LoopControl, "defaults.loop_control."),
        *keys(schema.CompensatorConfig, "defaults.compensator."),
        *keys(schema.SubprocessChannel, "channels.<name>."),
        *keys(schema.HttpChannel, "channels.<name>."),
        *keys(schema.SubprocessAuth, "channels.<name>.auth."),
        *keys(schema.HttpAuth, "channels.<name>.auth."),
        *keys(schema.RetryPolicy, "channels.<name>.retry."),
        *keys(schema.Telemetry, "channels.<name>.telemetry."),
        *keys(schema.TemplateConfig, "templates.<name>."),
        *keys(specs.UnwrapJsonpathSpec, "output_parser."),
        *keys(specs.IncompleteGuard, "output_parser.incomplete."),
        *keys(specs.RegexFindingsSpec, "output_parser."),
        *keys(specs.RegexFields, "output_parser.fields."),
        *keys(specs.MarkdownFindingsSpec, "output_parser."),
        *keys(specs.MarkdownGate, "output_parser.gate."),
        *keys(specs.AnswerSpec, "output_parser."),
    ]
    missing = [key for key in expected if f"| `{key}` |" not in text]
    assert missing == []
    for line in text.splitlines():
        if line.startswith("| `"):
            assert line.count(" | ") == 4 and not line.rstrip(" |").endswith("|"), line


def test_a_key_without_a_description_fails_generation(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(schema.Defaults.model_fields["timeout"], "description", None)
    with pytest.raises(KeyError, match=r"defaults\.timeout"):
        render()


def test_a_key_both_kinds_describe_differently_fails_generation(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(schema.HttpChannel.model_fields["kind"], "description", "other")
    with pytest.raises(ValueError, match=r"channels\.<name>\.kind has two descriptions"):
        render()


def test_descriptions_come_from_the_models():
    text = (REPO / "docs" / "config.md").read_text(encoding="utf-8")
    models = ((schema.Defaults, "defaults."), (specs.RegexFields, "output_parser.fields."))
    for model, prefix in models:
        for name, field in model.model_fields.items():
            assert f"| `{prefix}{name}` |" in text
            assert field.description
            assert f"| {field.description.replace('|', chr(92) + '|')} |" in text
