"""The recipes in ``docs/recipes`` work as written: their YAML loads with the real loader,
their channels dispatch, and their sample output parses to the findings the text promises.

Snippets are read from the Markdown itself, so the docs cannot drift from the code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from mmr.config.channel_schema import HttpChannel, SubprocessChannel
from mmr.config.loaded import LoadedConfig, WorkingTree
from mmr.config.loader import load_config
from mmr.dispatch.http import run_http_channel, wants_json_reply
from mmr.dispatch.http_probe import probe_http_channel
from mmr.dispatch.plan import AuthResult, ChannelPlan
from mmr.models import ParsedOutput
from mmr.parsers import parse_channel_output
from mmr.parsers.specs import ParserSpec, RegexFindingsSpec
from tests.integration.http.conftest import FakeServer, openai_envelope

RECIPES = Path(__file__).resolve().parents[3] / "docs" / "recipes"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks(doc: str, language: str) -> list[str]:
    """The top-level fenced blocks of ``docs/recipes/<doc>`` written in ``language``."""
    text = (RECIPES / doc).read_text(encoding="utf-8")
    return [body for lang, body in _FENCE.findall(text) if lang == language]


def load(tmp_path: Path, yaml_text: str) -> tuple[LoadedConfig, list[str]]:
    """Load ``yaml_text`` as a project's ``.mmr.yaml``; return the config and its warnings."""
    (tmp_path / ".mmr.yaml").write_text(yaml_text, encoding="utf-8")
    warnings: list[str] = []
    loaded = load_config(tmp_path, project_source=WorkingTree(), on_warning=warnings.append)
    return loaded, warnings


def baseline_warnings(tmp_path: Path) -> list[str]:
    empty = tmp_path / "empty"
    empty.mkdir()
    return load(empty, "{}\n")[1]


def parsed(raw: str, spec: ParserSpec | dict[str, Any]) -> ParsedOutput:
    result = parse_channel_output(raw, spec)
    assert isinstance(result, ParsedOutput), result
    return result


# --- docs/recipes/ollama.md -------------------------------------------------------------


def test_every_ollama_snippet_loads_without_warnings(tmp_path: Path) -> None:
    snippets = blocks("ollama.md", "yaml")
    assert len(snippets) == 3
    expected = baseline_warnings(tmp_path)
    for snippet in snippets:
        _, warnings = load(tmp_path, snippet)
        assert warnings == expected, snippet


def test_ollama_review_channel_as_documented(tmp_path: Path) -> None:
    loaded, _ = load(tmp_path, blocks("ollama.md", "yaml")[0])

    channel = loaded.channel("ollama")
    assert isinstance(channel, HttpChannel)
    assert channel.enabled and channel.api_key_env is None
    assert channel.endpoint == "http://127.0.0.1:11434/v1/chat/completions"
    assert channel.probe_url == "http://127.0.0.1:11434/v1/models"
    assert wants_json_reply(channel.output_parser)
    assert loaded.timeout_for("ollama") == 600
    assert "ollama" in loaded.channels  # selected by default, next to the built-ins


def test_ollama_channel_dispatches_and_probes_against_a_live_server(
        tmp_path: Path, http_server: FakeServer) -> None:
    loaded, _ = load(tmp_path, blocks("ollama.md", "yaml")[0])
    documented = loaded.channel("ollama")
    assert isinstance(documented, HttpChannel)
    # The same channel, pointed at the test server instead of a real Ollama.
    channel = documented.model_copy(update={"endpoint": http_server.url()})
    http_server.set(body=openai_envelope('{"approved": true, "findings": []}'))
    plan = ChannelPlan("ollama", channel, "review prompt", 0.5, channel.output_parser)

    result = anyio.run(run_http_channel, plan)

    assert (result.status, result.content) == \
        ("completed", '{"approved": true, "findings": []}')
    request = http_server.requests[0]
    assert request.json()["model"] == "qwen2.5-coder:14b"
    assert request.json()["response_format"]["type"] == "json_schema"  # request.json_schema
    assert request.header("authorization") is None
    assert anyio.run(probe_http_channel, "ollama", channel) == AuthResult("ok")
    assert http_server.requests[-1].path == "/v1/models"


def test_ollama_as_the_compensator(tmp_path: Path) -> None:
    loaded, _ = load(tmp_path, blocks("ollama.md", "yaml")[1])

    compensator = loaded.defaults.compensator
    assert compensator is not None and compensator.channel == "ollama"
    channel = loaded.channel("ollama")
    assert isinstance(channel, HttpChannel) and not channel.enabled


def test_keyed_server_names_the_variable(tmp_path: Path) -> None:
    loaded, _ = load(tmp_path, blocks("ollama.md", "yaml")[2])

    channel = loaded.channel("team-llm")
    assert isinstance(channel, HttpChannel)
    assert (channel.api_key_env, channel.api_key_header, channel.api_key_prefix) == \
        ("TEAM_LLM_KEY", "Authorization", "Bearer ")
    assert channel.probe_url == "https://llm.example.internal/v1/models"


# --- docs/recipes/linter.md -------------------------------------------------------------


def _lint_parsers(tmp_path: Path) -> tuple[RegexFindingsSpec, RegexFindingsSpec]:
    pipe_yaml, ruff_yaml = blocks("linter.md", "yaml")
    specs = []
    for name, snippet in (("lint", pipe_yaml), ("ruff", ruff_yaml)):
        loaded, _ = load(tmp_path, snippet)
        channel = loaded.channel(name)
        assert isinstance(channel, SubprocessChannel)
        assert isinstance(channel.output_parser, RegexFindingsSpec)
        specs.append(channel.output_parser)
    return specs[0], specs[1]


def test_every_linter_snippet_loads_without_warnings(tmp_path: Path) -> None:
    expected = baseline_warnings(tmp_path)
    for snippet in blocks("linter.md", "yaml"):
        assert load(tmp_path, snippet)[1] == expected, snippet


def test_pipe_format_sample_parses_as_documented(tmp_path: Path) -> None:
    spec, _ = _lint_parsers(tmp_path)
    sample = blocks("linter.md", "text")[0]

    result = parsed(sample, spec)

    assert [(f.severity, f.location, f.description, f.suggestion) for f in result.findings] == [
        ("P3", "src/app.py:12", "F401 [*] `os` imported but unused", ""),
        ("P1", "src/db.py:40",
         "S608 Possible SQL injection vector through string-based query construction",
         "use query parameters"),
    ]
    assert not result.approved


def test_without_the_newline_exclusion_findings_merge() -> None:
    """Why the recipe writes ``[^|\\n]+``: ``[^|]+`` runs on into the next line."""
    sample = "P1|a.ts:1|leak\nP1|b.ts:2|other\n"
    fields = {"severity": 1, "location": 2, "description": 3}

    def findings(pattern: str) -> list[tuple[str, str]]:
        spec = {"kind": "regex-findings", "pattern": pattern, "fields": fields}
        return [(f.location, f.description) for f in parsed(sample, spec).findings]

    assert findings(r"(P[0-3])\|([^|]+)\|([^|]+)") == [("a.ts:1", "leak\nP1")]
    assert findings(r"(P[0-3])\|([^|\n]+)\|([^|\n]+)") == [("a.ts:1", "leak"),
                                                            ("b.ts:2", "other")]


def test_native_ruff_sample_parses_as_documented(tmp_path: Path) -> None:
    _, spec = _lint_parsers(tmp_path)
    sample = blocks("linter.md", "text")[1]

    result = parsed(sample, spec)

    assert [(f.location, f.category, f.description, f.severity) for f in result.findings] == \
        [("src/app.py:12", "F401", "`os` imported but unused", "P3")]
    assert parsed("All checks passed!\n", spec).findings == []


def _ruff_env() -> dict[str, str]:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    assert Path(ruff).is_file(), "ruff is part of the test extra: pip install '.[test]'"
    return {**os.environ, "PATH": f"{Path(ruff).parent}{os.pathsep}{os.environ['PATH']}"}


def _project_with_unused_import(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("import os\n\nvalue = 1\n")
    return project


def test_wrapper_script_runs_ruff_into_findings(tmp_path: Path) -> None:
    env = _ruff_env()
    project = _project_with_unused_import(tmp_path)
    [script] = [b for b in blocks("linter.md", "sh") if b.startswith("#!/bin/sh")]
    (project / "mmr-lint").write_text(script)
    spec, _ = _lint_parsers(tmp_path)

    run = subprocess.run(["sh", "mmr-lint"], cwd=project, env=env, input="the prompt",
                         capture_output=True, text=True, timeout=60, check=False)

    assert run.returncode == 0 and run.stdout.endswith("lint finished\n")
    found = {(f.location, f.description.split()[0]) for f in parsed(run.stdout, spec).findings}
    assert ("app.py:1", "F401") in found


def test_native_ruff_command_runs_into_findings(tmp_path: Path) -> None:
    env = _ruff_env()
    project = _project_with_unused_import(tmp_path)
    _, spec = _lint_parsers(tmp_path)
    loaded, _ = load(tmp_path, blocks("linter.md", "yaml")[1])
    channel = loaded.channel("ruff")
    assert channel is not None and channel.command is not None

    run = subprocess.run(channel.command.split(), cwd=project, env=env, input="the prompt",
                         capture_output=True, text=True, timeout=60, check=False)

    assert run.returncode == 0
    found = {(f.location, f.category) for f in parsed(run.stdout, spec).findings}
    assert ("app.py:1", "F401") in found
