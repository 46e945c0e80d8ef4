"""The shipped channel presets' ``output_parser`` specs parse realistic replies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import matches_incomplete_guard, parse_answer, parse_channel_output
from mmr.resources import channels_dir

FINDINGS = json.dumps({"approved": False, "summary": "one", "findings": [
    {"severity": "P1", "location": "src/app.py:3", "description": "bug", "suggestion": "fix"}]})


def preset_parser(name: str) -> Any:
    document = yaml.safe_load((channels_dir() / f"{name}.yaml").read_text(encoding="utf-8"))
    return document[name].get("output_parser", "default")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    return tmp_path


@pytest.mark.parametrize("name", ["codex", "antigravity", "opencode"])
def test_plain_reply_presets(name: str) -> None:
    result = parse_channel_output(f"Review:\n```json\n{FINDINGS}\n```", preset_parser(name))
    assert isinstance(result, ParsedOutput)
    assert [f.location for f in result.findings] == ["src/app.py:3"]


def test_claude_preset() -> None:
    spec = preset_parser("claude")
    ok = parse_channel_output(json.dumps({"type": "result", "is_error": False,
                                          "result": FINDINGS}), spec)
    assert isinstance(ok, ParsedOutput)
    assert len(ok.findings) == 1
    err = parse_channel_output(json.dumps({"is_error": True, "result": "API Error: 529"}), spec)
    assert isinstance(err, ParseFailure)
    assert err.error == "channel reported an error (is_error=true): API Error: 529"


def test_grok_preset() -> None:
    spec = preset_parser("grok")
    ack = json.dumps({"approved": True, "findings": [], "summary": "working"})
    done = json.dumps({"text": ack + FINDINGS, "stopReason": "EndTurn"})
    result = parse_channel_output(done, spec)
    assert isinstance(result, ParsedOutput)
    assert result.summary == "one"
    cancelled = json.dumps({"text": ack, "stopReason": "Cancelled"})
    assert matches_incomplete_guard(cancelled, spec)
    failure = parse_channel_output(cancelled, spec)
    assert isinstance(failure, ParseFailure)
    assert "stopReason=Cancelled" in failure.error


def test_minimax_preset(repo: Path) -> None:
    spec = preset_parser("minimax")
    reply = "### [BLOCKER] crash in `src/app.py:3`\nConfidence: confirmed\n"
    result = parse_channel_output(json.dumps({"is_error": False, "result": reply}), spec,
                                  repo_root=repo)
    assert isinstance(result, ParsedOutput)
    assert result.findings[0].reported_confidence == "confirmed"
    uncited = json.dumps({"is_error": False, "result": "### [NIT] vague\n"})
    gate = parse_channel_output(uncited, spec, repo_root=repo)
    assert isinstance(gate, ParseFailure)
    assert gate.reason == "gate_failed"


def test_minimax_explore_preset() -> None:
    spec = preset_parser("minimax-explore")
    answer = "Defined in src/app.py:3.\nSearches run: grep app"
    assert parse_answer(json.dumps({"is_error": False, "result": answer}), spec) == answer
    uncited = parse_answer(json.dumps({"is_error": False, "result": "somewhere"}), spec)
    assert isinstance(uncited, ParseFailure)
    assert uncited.reason == "gate_failed"
