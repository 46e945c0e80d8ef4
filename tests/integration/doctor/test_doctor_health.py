"""``mmr doctor`` rows, text and JSON output and exit codes, with fake CLIs on PATH."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.builtin_channels import BUILTIN_CHANNELS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.doctor.conftest import BUILTINS_OFF, MmrRunner, write

MIX = """\
channels:
  claude:
    command: fake-claude -p
    env: {FAKE_EXIT: "1"}
    auth: {check: "fake-claude -p ok", timeout: 5, failure_exit_codes: [1], recovery: claude login}
  codex:
    command: fake-codex exec
    auth: {check: "fake-codex login status", timeout: 5, failure_exit_codes: [1],
           recovery: codex login}
  grok:
    command: fake-grok
    auth: {check: "fake-grok models", timeout: 0.5, failure_exit_codes: [1],
           recovery: grok login}
  antigravity:
    command: absent-cli-xyz --print
  leaky:
    command: fake-codex
    auth: {check: "exit 1", timeout: 5, failure_exit_codes: [1],
           recovery: "relogin --token sk-abc123456789"}
"""


def mixed_fakes(fake_cli: FakeCliFactory) -> None:
    fake_cli("fake-codex", stdout="codex-cli 0.50.0\nsecond line\n")
    fake_cli("fake-claude", stdout="2.0.1 (Claude Code)")
    # Slower than grok's 0.5 s auth check (which times out), well within the version probe's
    # time: a CLI slow to answer still reports its version.
    fake_cli("fake-grok", stdout="grok 1.0", sleep=1.5)


def test_text_report_of_a_mixed_machine(mmr: MmrRunner, project_file: Path,
                                        fake_cli: FakeCliFactory):
    mixed_fakes(fake_cli)
    write(project_file, MIX)
    started = time.monotonic()
    run = mmr()
    elapsed = time.monotonic() - started
    assert run.rc == 1, run.err
    assert run.out == "\n".join([
        "Channels: 1 ready · 4 need attention · 6 off",
        "",
        "  ⚠ claude           auth_failed (2.0.1 (Claude Code))",
        "      → claude login — the check said: 2.0.1 (Claude Code)",  # the fake's one line
        "  · gemini           retired",
        "  ✓ codex            ok (codex-cli 0.50.0)",
        "  ⚠ grok             timeout (grok 1.0)",
        "      → auth check timed out after 0.5s (auth.timeout)",
        "  ✗ antigravity      not_installed",
        "      → install absent-cli-xyz (Google Antigravity, whose installer puts agy on PATH; "
        "not on npm), or stop dispatching it: mmr config disable antigravity",
        "  · opencode         disabled",
        "  · doc-conformance  disabled",
        "  · minimax          disabled",
        "  · minimax-m3       disabled",
        "  · minimax-explore  disabled",
        "  ⚠ leaky            auth_failed",
        "      → <redacted>",
        "",
        "Run `mmr doctor --fix` to disable the not-installed channel(s) above.",
        "",
    ])
    assert "sk-abc" not in run.out + run.err
    # grok's check timed out twice (0.5 s each); the checks ran concurrently.
    assert 0.9 <= elapsed < 6


def test_json_rows_in_config_order(mmr: MmrRunner, project_file: Path,
                                   fake_cli: FakeCliFactory):
    mixed_fakes(fake_cli)
    write(project_file, MIX)
    run = mmr("--format", "json")
    assert run.rc == 1, run.err
    assert run.out.startswith('[\n  {\n    "name": "claude",\n    "status": "auth_failed",')
    rows = run.rows()
    assert list(rows) == [*BUILTIN_CHANNELS, "leaky"]
    assert rows["claude"] == {"name": "claude", "status": "auth_failed", "installed": True,
                              "recovery": "claude login — the check said: 2.0.1 (Claude Code)",
                              "version": "2.0.1 (Claude Code)"}
    assert rows["codex"] == {"name": "codex", "status": "ok", "installed": True,
                             "version": "codex-cli 0.50.0"}
    assert rows["grok"] == {"name": "grok", "status": "timeout", "installed": True,
                            "recovery": "auth check timed out after 0.5s (auth.timeout)",
                            "version": "grok 1.0"}  # a CLI slow to answer still has a version
    assert rows["antigravity"] == {
        "name": "antigravity", "status": "not_installed", "installed": False,
        "recovery": "install absent-cli-xyz (Google Antigravity, whose installer puts agy on "
                    "PATH; not on npm), or stop dispatching it: "
                    "mmr config disable antigravity"}
    assert rows["gemini"] == {"name": "gemini", "status": "retired", "installed": False}
    assert rows["opencode"] == {"name": "opencode", "status": "disabled", "installed": False}
    assert rows["leaky"]["recovery"] == "<redacted>"
    assert "Channels:" not in run.out


def test_version_is_asked_with_dash_dash_version_only(mmr: MmrRunner, project_file: Path,
                                                      fake_cli: FakeCliFactory):
    codex = fake_cli("fake-codex", stdout="codex-cli 0.50.0")
    write(project_file, "channels:\n  codex:\n    command: fake-codex exec --model x\n"
          "  claude: {enabled: false}\n  grok: {enabled: false}\n"
          "  antigravity: {enabled: false}\n  mine:\n    command: fake-codex review\n")
    run = mmr("--format", "json")
    assert run.rows()["codex"]["version"] == "codex-cli 0.50.0"
    # A channel of one's own may be the reviewer itself: never run with --version.
    assert "version" not in run.rows()["mine"]
    assert [call["argv"] for call in codex.calls(include_version_probes=True)] == [["--version"]]


def test_no_cli_installed(mmr: MmrRunner):
    run = mmr()
    assert run.rc == 1
    lines = run.out.splitlines()
    assert lines[0] == "Channels: 0 ready · 4 need attention · 6 off"
    for name, token, how in (
            ("claude", "claude", " (npm install -g @anthropic-ai/claude-code)"),
            ("codex", "codex", " (npm install -g @openai/codex)"),
            ("grok", "grok", " (xAI's installer (see docs.x.ai); not the npm package "
                             "@vibe-kit/grok-cli)"),
            ("antigravity", "agy", " (Google Antigravity, whose installer puts agy on PATH; "
                                   "not on npm)")):
        assert f"  ✗ {name.ljust(16)} not_installed" in lines
        assert (f"      → install {token}{how}, or stop dispatching it: "
                f"mmr config disable {name}" in lines)
    assert "  · gemini           retired" in lines
    assert "  · opencode         disabled" in lines
    assert "  · doc-conformance  disabled" in lines
    assert lines[-1] == "Run `mmr doctor --fix` to disable the not-installed channel(s) above."


def test_all_ready_exits_0_without_hint(mmr: MmrRunner, project_file: Path,
                                        fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, BUILTINS_OFF + "  a-very-long-channel-name:\n    command: fake-ok\n")
    run = mmr()
    assert run.rc == 0, run.err
    assert "  ✓ a-very-long-channel-name ok" in run.out.splitlines()  # never truncated
    assert "--fix" not in run.out
    assert run.out.startswith("Channels: 1 ready · 0 need attention · 10 off\n")


def test_disabled_channels_are_not_probed(mmr: MmrRunner, project_file: Path,
                                          fake_cli: FakeCliFactory):
    ok = fake_cli("fake-ok")
    write(project_file, """\
        channels_disabled: [codex, agy]
        channels:
          claude: {enabled: false}
          grok: {enabled: false}
          codex: {command: fake-ok, auth: {check: "fake-ok", timeout: 5,
                  failure_exit_codes: [1], recovery: x}}
          antigravity: {command: fake-ok}
          gemini: {enabled: true}
          base: {abstract: true, command: fake-ok}
        """)
    run = mmr("--format", "json", "--fix")
    assert run.rc == 1  # nothing is ready: nothing to review with
    rows = run.rows()
    assert rows["codex"] == {"name": "codex", "status": "disabled", "installed": False}
    assert rows["antigravity"]["status"] == "disabled"
    assert rows["gemini"]["status"] == "retired"
    assert rows["base"] == {"name": "base", "status": "abstract", "installed": False}
    assert ok.calls() == []
    assert run.err.startswith("mmr: error: no reviewer is ready")


def test_auth_problem_keeps_exit_1_under_fix(mmr: MmrRunner, project_file: Path,
                                             fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, BUILTINS_OFF + """\
  locked:
    command: fake-ok
    auth: {check: "exit 3", timeout: 5, failure_exit_codes: [3], recovery: fake-ok login}
""")
    run = mmr("--fix")
    assert run.rc == 1
    assert "  ⚠ locked           auth_failed\n      → fake-ok login\n" in run.out


def test_unknown_format_is_a_usage_error(mmr: MmrRunner):
    run = mmr("--format", "xml")
    assert run.rc == 1 and run.out == ""
    assert "xml" in run.err


def test_doctor_and_config_test_agree(mmr: MmrRunner, project_file: Path,
                                      fake_cli: FakeCliFactory, capsys):
    from mmr.cli.main import main

    mixed_fakes(fake_cli)
    write(project_file, MIX)
    rows = mmr("--format", "json").rows()
    capsys.readouterr()
    main(["config", "test"])
    report = json.loads(capsys.readouterr().out)
    assert list(report) == list(rows)
    words = {"ok": "ok", "auth_failed": "failed", "timeout": "timeout",
             "not_installed": "skipped", "disabled": "disabled", "retired": "retired",
             "abstract": "abstract"}
    for name, row in rows.items():
        assert report[name]["auth"] == words[row["status"]], name
        assert report[name]["installed"] == row["installed"], name
        if row["status"] == "auth_failed":
            assert report[name].get("recovery") == row.get("recovery"), name


def slow_checks(parallel: bool) -> str:
    check = '{check: "sleep 0.6", timeout: 5, failure_exit_codes: [1], recovery: x}'
    channels = "".join(f"  slow{i}:\n    command: fake-ok\n    auth: {check}\n" for i in range(3))
    return BUILTINS_OFF.replace("channels:\n", f"defaults:\n  parallel: {str(parallel).lower()}"
                                               "\nchannels:\n") + channels


def test_checks_run_concurrently_unless_parallel_is_off(mmr: MmrRunner, project_file: Path,
                                                        fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, slow_checks(parallel=True))
    started = time.monotonic()
    run = mmr("--format", "json")
    assert run.rc == 0, run.err
    assert time.monotonic() - started < 1.5
    assert [name for name, row in run.rows().items() if row["status"] == "ok"] == [
        "slow0", "slow1", "slow2"]
    write(project_file, slow_checks(parallel=False))
    started = time.monotonic()
    assert mmr().rc == 0
    assert time.monotonic() - started >= 1.8
