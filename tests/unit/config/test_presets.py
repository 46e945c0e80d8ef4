"""The shipped channel presets and example config."""

from __future__ import annotations

import shutil
from pathlib import Path

from mmr.config.defaults import BUILTIN_CHANNEL_ORDER, builtin_layer
from mmr.config.schema import MmrConfig, SubprocessChannel
from mmr.config.unknown_keys import find_unknown_keys
from mmr.config.wrapper import wrapper_template
from mmr.parsers.specs import (
    AnswerSpec,
    MarkdownFindingsSpec,
    UnwrapJsonpathSpec,
)
from mmr.resources import channels_dir
from mmr.secrets.redact import contains_inline_secret
from tests.unit.config.conftest import Loader

REPO = Path(__file__).resolve().parents[3]
MINIMAX_FLAGS_TAIL = ["--permission-mode", "default", "--allowedTools", "Read,Glob,Grep",
                      "--disallowedTools",
                      "Write,Edit,MultiEdit,NotebookEdit,Bash,WebFetch,WebSearch"]
RM2_PATHS = ["secrets/**", "local_secrets/**", "*.pem", "*.key", "*secret*"]


def _channels(load: Loader) -> dict[str, SubprocessChannel]:
    channels = load().channels
    assert all(isinstance(ch, SubprocessChannel) for ch in channels.values())
    return channels  # type: ignore[return-value]


def test_one_file_per_builtin_and_no_strays() -> None:
    files = sorted(p.stem for p in channels_dir().glob("*.yaml"))
    assert files == sorted(BUILTIN_CHANNEL_ORDER)


def test_presets_use_only_known_keys() -> None:
    layer = builtin_layer()
    assert list(find_unknown_keys(MmrConfig, layer, layer)) == []


def test_claude_preset_unwraps_the_result_and_fails_on_is_error() -> None:
    assert builtin_layer()["channels"]["claude"]["output_parser"] == {
        "kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error",
        "then": "default"}


#: The reference's flags plus no project settings, no project MCP servers, and only the
#: read-only tools, offered without a prompt.
CLAUDE_FLAGS = ["--output-format", "json", "--setting-sources", "user", "--strict-mcp-config",
                "--tools", "Read,Glob,Grep", "--permission-mode", "dontAsk"]


def test_reference_preset_values(load: Loader) -> None:
    ch = _channels(load)
    assert (ch["claude"].command, ch["claude"].flags) == ("claude -p", CLAUDE_FLAGS)
    assert ch["gemini"].command == "gemini" and ch["gemini"].auth is None
    assert ch["gemini"].timeout is None
    assert ch["codex"].stderr == "capture"  # issue 17: codex's reasons are on stderr
    # codex's commands read only the workspace, the system and codex's install (no "-s").
    assert ch["codex"].flags[:2] == ["--skip-git-repo-check", "--ephemeral"]
    assert "-s" not in ch["codex"].flags and "{{command_dir}}" in ch["codex"].flags[-1]
    assert (ch["antigravity"].timeout, ch["opencode"].timeout,
            ch["doc-conformance"].timeout) == (300, 300, 180)
    assert ch["grok"].prompt_delivery == "prompt-file"
    assert ch["doc-conformance"].output_parser == "doc-conformance"
    assert ch["doc-conformance"].auth is not None
    assert ch["doc-conformance"].auth.failure_exit_codes == [1, 127]
    assert "scaffold version" in ch["doc-conformance"].auth.check
    assert "scaffold --version" not in ch["doc-conformance"].auth.check


def test_grok_hardening(load: Loader) -> None:
    grok = _channels(load)["grok"]
    flags = grok.flags
    assert flags[flags.index("--json-schema") + 1] == "{{findings_schema}}"
    assert flags[flags.index("--tools") + 1].split(",") == ["web_search", "web_fetch"]
    assert "run_terminal_cmd" in flags[flags.index("--disallowed-tools") + 1]
    assert "--disable-web-search" not in flags
    assert grok.env == {"HOME": "{{neutral_home}}", "XDG_CONFIG_HOME": "{{neutral_home}}"}
    parser = grok.output_parser
    assert isinstance(parser, UnwrapJsonpathSpec) and parser.incomplete is not None
    message = parser.incomplete.message
    assert "retry the review" in message or "reduce the number of parallel grok" in message


def test_antigravity_and_opencode_keep_the_real_home(load: Loader) -> None:
    ch = _channels(load)
    for name in ("antigravity", "opencode"):
        assert not {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} & set(ch[name].env)
        assert ch[name].cwd is None
    assert "--dangerously-skip-permissions" not in ch["opencode"].flags


def test_builtin_auth_strings_hold_no_inline_secret(load: Loader) -> None:
    for name, channel in _channels(load).items():
        if channel.auth is not None:
            assert not contains_inline_secret(channel.auth.check), name
            assert not contains_inline_secret(channel.auth.recovery), name


def test_minimax_review_preset(load: Loader) -> None:
    mm = _channels(load)["minimax"]
    assert (mm.enabled, mm.role, mm.command, mm.timeout) == (False, "review", "ask-minimax-run",
                                                             540)
    assert mm.flags[:4] == ["--model", "{{var.model}}", "--effort", "{{var.effort}}"]
    assert mm.flags[4:10] == MINIMAX_FLAGS_TAIL
    assert mm.flags[-3:] == ["--add-dir", "{{repo_root}}", "-p"]
    assert "Write" not in mm.flags[mm.flags.index("--allowedTools") + 1]
    assert mm.vars == {"model": "MiniMax-M3.1-Flash", "effort": "max", "max_turns": 40}
    assert (mm.max_diff_lines, mm.diff_exclude) == (6000, RM2_PATHS)
    assert (mm.assert_clean_tree, mm.on_credentials) == (True, "refuse")
    assert mm.retry is not None and (mm.retry.attempts, mm.retry.on) == (
        1, ["failed", "parse_error", "gate_failed"])
    assert mm.telemetry is not None and mm.telemetry.turns == "$.num_turns"
    assert wrapper_template(mm.prompt_wrapper) == "minimax-review.md"
    parser = mm.output_parser
    assert isinstance(parser, UnwrapJsonpathSpec)
    assert (parser.wrap, parser.error_path) == ("$.result", "$.is_error")
    assert isinstance(parser.then, MarkdownFindingsSpec) and parser.then.gate.require_existing_path


def test_minimax_m3_inherits_with_its_own_vars(load: Loader) -> None:
    ch = _channels(load)
    m3, mm = ch["minimax-m3"], ch["minimax"]
    assert m3.vars == {"model": "MiniMax-M3[1m]", "effort": None, "max_turns": 40}
    assert not m3.enabled
    assert m3.flags == mm.flags and m3.output_parser == mm.output_parser
    assert (m3.retry, m3.on_credentials, m3.timeout) == (mm.retry, "refuse", 540)


def test_minimax_explore_preset(load: Loader) -> None:
    ex = _channels(load)["minimax-explore"]
    assert (ex.enabled, ex.role) == (False, "explore")
    assert ex.flags[4:10] == MINIMAX_FLAGS_TAIL
    assert ex.flags[-3:] == ["--add-dir", "{{roots}}", "-p"]
    assert ex.vars is not None and ex.vars["effort"] == "medium"
    assert wrapper_template(ex.prompt_wrapper) == "minimax-explore.md"
    parser = ex.output_parser
    assert isinstance(parser, UnwrapJsonpathSpec)
    assert isinstance(parser.then, AnswerSpec) and parser.then.gate.require_citation
    assert ex.retry is not None and "gate_failed" not in ex.retry.on


def test_example_config_loads_with_p2(load: Loader, project_root: Path) -> None:
    shutil.copy(REPO / ".mmr.yaml.example", project_root / ".mmr.yaml")
    loaded = load()
    assert loaded.defaults.fix_threshold == "P2"
    assert loaded.warnings == ()
    text = (REPO / ".mmr.yaml.example").read_text(encoding="utf-8")
    for runtime in ("ollama", "lms", "llama-server", "local-ai-delegate"):
        assert f"# example: {runtime}" in text
    assert "gemini" not in text


def test_example_states_the_one_severity_scale(load: Loader, project_root: Path) -> None:
    from mmr.severity import threshold_comment

    text = (REPO / ".mmr.yaml.example").read_text(encoding="utf-8")
    assert "\n".join(threshold_comment("  ")) + "\n  fix_threshold: P2\n" in text
    shutil.copy(REPO / ".mmr.yaml.example", project_root / ".mmr.yaml")
    assert load().defaults.outside_diff_findings == "advisory"


def test_example_blocks_load_when_uncommented(load: Loader, project_root: Path) -> None:
    lines = (REPO / ".mmr.yaml.example").read_text(encoding="utf-8").splitlines()
    start = lines.index("# --- OSS runtime examples (uncomment to enable) ---")
    end = lines.index("", start)
    uncommented = [line[2:] if line.startswith("#   ") else line for line in lines[start:end]]
    text = "\n".join(lines[:start] + uncommented) + "\n"
    (project_root / ".mmr.yaml").write_text(text, encoding="utf-8")
    loaded = load()
    for name in ("qwen-local", "lms-local", "llama-local", "local-ai-delegate-local",
                 "groq-llama"):
        assert name in loaded.channels


def test_the_agentic_presets_run_in_the_review_workspace(load: Loader) -> None:
    ch = _channels(load)
    agentic = ("claude", "codex", "antigravity", "opencode", "grok", "minimax",
               "minimax-explore")
    assert {name: (ch[name].workspace, ch[name].cwd) for name in agentic} == \
        dict.fromkeys(agentic, ("snapshot", None))
