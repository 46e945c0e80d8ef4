"""``mmr config channels``, ``show`` and ``path`` through the real CLI."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.builtin_channels import BUILTIN_CHANNELS
from tests.integration.config_cmd.conftest import MmrRunner, write

HTTP_CHANNEL = """\
  local-llm:
    kind: http
    endpoint: http://127.0.0.1:9/v1/chat/completions
    model: qwen
    endpoint_convention: openai-chat
    api_key_env: LOCAL_LLM_KEY
    headers:
      api_key_env: header-secret-value
      X-Trace: abc
"""


def test_show_annotates_every_leaf_with_its_source(mmr: MmrRunner, project_file: Path):
    write(project_file, "channels:\n  claude:\n    timeout: 600\n")
    run = mmr("config", "show", "claude")
    assert run.rc == 0, run.err
    lines = run.out.splitlines()
    assert lines[0] == "# Channel: claude"
    assert 'command: "claude -p"  # from default' in lines
    assert "timeout: 600  # from project" in lines
    assert ('flags: ["--output-format","json","--setting-sources","user",'
            '"--strict-mcp-config","--tools","Read,Glob,Grep","--permission-mode","dontAsk"]'
            '  # from default') in lines
    assert "auth:" in lines and "  timeout: 20  # from default" in lines
    assert "env: {}  # from default" in lines  # Q17: an empty mapping shows as {}
    assert 'on_credentials: "redact"  # from default' in lines


def test_show_escapes_quotes_and_keeps_hash_signs(mmr: MmrRunner, project_file: Path):
    write(project_file, """\
        channels:
          echo-bot:
            command: "echo #literal"
            prompt_wrapper: 'Say "{{prompt}}"'
        """)
    lines = mmr("config", "show", "echo-bot").out.splitlines()
    assert 'command: "echo #literal"  # from project' in lines
    assert 'prompt_wrapper: "Say \\"{{prompt}}\\""  # from project' in lines
    assert "enabled: true  # from default" in lines


def test_the_three_show_spellings_agree(mmr: MmrRunner):
    outputs = {mmr(*argv).out for argv in (("config", "channels", "show", "codex"),
                                           ("config", "channels", "show:codex"),
                                           ("config", "channels", "show: codex "),
                                           ("config", "show", "codex"))}
    assert len(outputs) == 1
    assert next(iter(outputs)).startswith("# Channel: codex\n")


def test_show_accepts_an_alias(mmr: MmrRunner):
    assert mmr("config", "show", "agy").out.startswith("# Channel: antigravity\n")


def test_show_errors(mmr: MmrRunner):
    unknown = mmr("config", "show", "nope")
    assert unknown.rc == 1
    assert unknown.err.startswith(
        'mmr: error: Channel "nope" not found. Known channels: claude, gemini, ')
    empty = mmr("config", "channels", "show:")
    assert empty.rc == 1 and empty.err.startswith('mmr: error: Channel "" not found.')
    assert mmr("config", "show").err.strip() == (
        "mmr: error: missing argument <channel>\nTry 'mmr config show --help'")
    try_line = "\nTry 'mmr config channels --help'"
    assert mmr("config", "channels", "claude").err.strip() == (
        "mmr: error: unexpected argument 'claude'; did you mean 'show claude'?" + try_line)
    assert mmr("config", "channels", "show").err.strip() == (
        "mmr: error: missing argument <channel>" + try_line)
    assert mmr("config", "channels", "show").rc == 1


def test_show_redacts_secrets(mmr: MmrRunner, project_file: Path):
    write(project_file, textwrap.dedent("""\
        channels:
          codex:
            env:
              OPENAI_API_KEY: sk-live-123
              NO_BROWSER: "true"
          secret-cmd:
            command: review --api-key sk-inline
            flags: ["--api-key", "sk-flag", "--model", "qwen", "--token=abc"]
            auth:
              check: "curl -H 'Authorization: Bearer sk-check' x"
              failure_exit_codes: [1]
              recovery: "export OPENAI_API_KEY=sk-recover"
        """) + HTTP_CHANNEL)
    codex = mmr("config", "show", "codex").out.splitlines()
    assert "  OPENAI_API_KEY: <redacted>  # from project" in codex
    assert '  NO_BROWSER: "true"  # from project' in codex
    secret = mmr("config", "show", "secret-cmd")
    lines = secret.out.splitlines()
    assert "command: <redacted>  # from project" in lines
    assert 'flags: ["--api-key","<redacted>","--model","qwen","<redacted>"]  # from project' in (
        lines)
    assert "  check: <redacted>  # from project" in lines
    assert "  recovery: <redacted>  # from project" in lines
    assert "sk-" not in secret.out
    http = mmr("config", "show", "local-llm").out.splitlines()
    assert 'api_key_env: "LOCAL_LLM_KEY"  # from project' in http
    assert "  api_key_env: <redacted>  # from project" in http
    assert '  X-Trace: "abc"  # from project' in http
    assert 'api_key_header: "Authorization"  # from default' in http


def test_no_redact_prints_raw_values_with_a_warning(mmr: MmrRunner, project_file: Path):
    write(project_file, "channels:\n  codex:\n    env:\n      OPENAI_API_KEY: sk-live-123\n"
                        "    command: codex exec --api-key sk-cmd\n")
    show = mmr("config", "show", "codex", "--no-redact")
    assert show.rc == 0
    assert '  OPENAI_API_KEY: "sk-live-123"  # from project' in show.out.splitlines()
    assert show.err.strip() == (
        "WARNING: --no-redact is enabled; secrets in env/headers are printed verbatim."
    )
    listed = mmr("config", "channels", "--no-redact")
    assert listed.err.strip() == ("WARNING: --no-redact is enabled; secrets in "
                                  "commands/env/headers may be printed verbatim.")
    codex = next(row for row in json.loads(listed.out) if row["name"] == "codex")
    assert codex["command"] == "codex exec --api-key sk-cmd"
    redacted = mmr("config", "channels")
    assert redacted.err == ""
    codex = next(row for row in json.loads(redacted.out) if row["name"] == "codex")
    assert codex["command"] == "<redacted>"


def test_channels_json_rows(mmr: MmrRunner, project_file: Path):
    write(project_file, "channels:\n  base:\n    abstract: true\n    command: x\n"
                        + HTTP_CHANNEL)
    run = mmr("config", "channels")
    assert run.rc == 0, run.err
    assert run.out.startswith('[\n  {\n    "name": "claude",\n')
    rows = {row["name"]: row for row in json.loads(run.out)}
    assert list(rows)[:len(BUILTIN_CHANNELS)] == BUILTIN_CHANNELS
    assert list(rows["claude"]) == ["name", "enabled", "effective", "command", "parser", "source"]
    assert rows["claude"]["parser"] == "<unwrap-jsonpath>"
    assert rows["codex"] == {"name": "codex", "enabled": True, "effective": True,
                             "command": "codex exec", "parser": "default", "source": "default"}
    assert rows["gemini"]["effective"] is False
    assert "command" not in rows["local-llm"]
    assert rows["base"]["enabled"] is True and rows["base"]["effective"] is False  # Q15


def test_channels_text_table(mmr: MmrRunner, project_file: Path):
    write(project_file, """\
        channels_disabled: [codex, agy]
        channels:
          a-channel-with-a-long-name:
            command: harmless --session-dir=.s --token-limit=4096 --auth-type=none
        """)
    run = mmr("config", "channels", "--format", "text")
    assert run.rc == 0
    lines = run.out.splitlines()
    assert lines[0] == "CHANNEL           STATUS     SOURCE"
    assert lines[1] == "claude            enabled    default"
    assert "codex             disabled   project" in lines
    assert "antigravity       disabled   project" in lines
    # Defined only by the project file: its source is the project (the reference says default).
    assert "a-channel-with-a-long-nameenabled    project" in lines
    rows = json.loads(mmr("config", "channels").out)
    long_row = next(row for row in rows if row["name"] == "a-channel-with-a-long-name")
    assert long_row["command"].startswith("harmless --session-dir")


def test_bad_format_is_a_usage_error(mmr: MmrRunner):
    run = mmr("config", "channels", "--format", "xml")
    assert run.rc == 1
    assert run.err.startswith("mmr: error: invalid value 'xml' for '--format'")


def test_path_lists_layers_and_write_targets(mmr: MmrRunner, project: Path, user_file: Path):
    write(user_file, "version: 1\n")
    run = mmr("config", "path")
    assert run.rc == 0
    assert run.out.splitlines() == [
        "Search order (later wins):",
        "  1 built-in defaults      (always)",
        f"  2 {user_file}      ✓ exists",
        f"  3 {project / '.mmr.yaml'}            ✗ not found",
        "  4 CLI flags              (per-invocation)",
        f"write target (default): {project / '.mmr.yaml'}",
        f"                  --global → {user_file}",
    ]
    assert mmr("config", "path", "extra").err.strip() == (
        "mmr: error: unexpected argument 'extra'\nTry 'mmr config path --help'")


def test_path_says_when_review_will_not_read_the_project_file(mmr: MmrRunner, project: Path):
    """Issue 18: ``✓ exists`` for a file review skips read as if it applied."""
    import subprocess

    file = project / ".mmr.yaml"
    write(file, "channels:\n  smol-a:\n    command: smol\n")
    last = mmr("config", "path").out.splitlines()[-1]
    assert last == (f"note: {file} is not committed; mmr review reads .mmr.yaml from a "
                    "commit, so commit it (and merge it to the default branch) or pass "
                    "--trust-project-config (docs/trust.md)")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", ".mmr.yaml"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "config"], cwd=project, check=True)
    assert "--diff and CI runs skip it" in mmr("config", "path").out.splitlines()[-1]
    write(file, "channels:\n  smol-b:\n    command: smol\n")
    assert f"note: {file} differs from HEAD;" in mmr("config", "path").out


def test_project_file_is_found_at_the_git_top_level(mmr: MmrRunner, project: Path,
                                                    monkeypatch):
    write(project / ".mmr.yaml", "channels:\n  claude:\n    timeout: 42\n")
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert "timeout: 42  # from project" in mmr("config", "show", "claude").out
    assert mmr("config", "set", "defaults.timeout", "77").rc == 0
    assert "timeout: 77" in (project / ".mmr.yaml").read_text()
    assert not (sub / ".mmr.yaml").exists()


def test_a_config_error_exits_1_without_a_traceback(mmr: MmrRunner, project_file: Path):
    project_file.write_text("defaults:\n  timeout: soon\n")
    run = mmr("config", "channels")
    assert run.rc == 1
    assert "defaults.timeout" in run.err and "Traceback" not in run.err


def test_a_channel_defined_by_one_file_shows_that_file_as_its_source(mmr: MmrRunner,
                                                                      project_file: Path,
                                                                      user_file: Path):
    write(user_file, """\
        channels:
          mine: {command: mine-cli}
          theirs: {command: theirs-cli}
          codex: {timeout: 9}
        """)
    write(project_file, """\
        channels:
          local: {command: local-cli}
          theirs: {timeout: 5}
          mine: {enabled: false}
        """)
    run = mmr("config", "channels", "--format", "text")
    assert run.rc == 0, run.err
    lines = run.out.splitlines()
    assert "theirs            enabled    user" in lines  # the project only tunes it
    assert "local             enabled    project" in lines
    assert "mine              disabled   project" in lines  # the layer that set enabled
    assert "codex             enabled    default" in lines  # a built-in stays default
    rows = {row["name"]: row["source"] for row in json.loads(mmr("config", "channels").out)}
    assert (rows["theirs"], rows["local"], rows["codex"]) == ("user", "project", "default")
