"""``mmr config test`` through the real CLI, with fake CLIs on PATH."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.builtin_channels import BUILTIN_CHANNELS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.config_cmd.conftest import BUILTINS_OFF, MmrRunner, write

#: The channels below live in the uncommitted working-tree file, which review reads only
#: under --trust-project-config; without it the report also says review will not use them
#: (tests/integration/trust/test_config_test_sees_what_review_sees.py).
TRUSTED_TEST = ("config", "test", "--trust-project-config")


def test_every_status_in_registry_order(mmr: MmrRunner, project_file: Path,
                                        fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, """\
        channels_disabled: [grok]
        channels:
          claude:
            enabled: false
          codex:
            command: fake-ok exec
            auth: {check: "true", timeout: 5, failure_exit_codes: [1], recovery: codex login}
          antigravity:
            command: fake-ok
            auth:
              check: "exit 1"
              timeout: 5
              failure_exit_codes: [1]
              recovery: "curl -H 'Authorization: Bearer sk-abc' https://x"
          missing:
            command: mmr-test-absent-cli review
          base:
            abstract: true
            command: fake-ok
          stub:
            enabled: false
        """)
    run = mmr("config", "test")
    assert run.rc == 1, run.err
    assert run.out.startswith('{\n  "claude": {\n    "installed": false,\n')
    report = json.loads(run.out)
    assert list(report) == [*BUILTIN_CHANNELS, "missing", "base", "stub"]
    assert report["claude"] == {"installed": False, "auth": "disabled"}
    assert report["gemini"] == {"installed": False, "auth": "retired"}
    assert report["codex"] == {"installed": True, "auth": "ok"}
    assert report["grok"] == {"installed": False, "auth": "disabled"}  # Q14: list-disabled
    assert report["antigravity"] == {"installed": True, "auth": "failed",
                                     "recovery": "<redacted>"}
    assert report["minimax"] == {"installed": False, "auth": "disabled"}
    assert report["missing"] == {"installed": False, "auth": "skipped"}
    assert report["base"] == {"installed": False, "auth": "abstract"}
    assert report["stub"] == {"installed": False, "auth": "disabled"}
    assert "sk-abc" not in run.out


def test_exit_0_when_nothing_fails(mmr: MmrRunner, project_file: Path,
                                   fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, BUILTINS_OFF + "  mine:\n    command: fake-ok\n")
    run = mmr(*TRUSTED_TEST)
    assert run.rc == 0, run.err
    assert json.loads(run.out)["mine"] == {"installed": True, "auth": "ok"}


def test_failed_recovery_is_shown_when_harmless(mmr: MmrRunner, project_file: Path,
                                                fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, BUILTINS_OFF + """\
  mine:
    command: fake-ok
    auth: {check: "exit 3", failure_exit_codes: [3], recovery: fake-ok login}
""")
    run = mmr(*TRUSTED_TEST)
    assert run.rc == 1
    assert json.loads(run.out)["mine"] == {"installed": True, "auth": "failed",
                                           "recovery": "fake-ok login"}


def test_http_channel_is_probed_not_treated_as_commandless(
        mmr: MmrRunner, project_file: Path, monkeypatch: pytest.MonkeyPatch,
        fake_runtime_server: Callable[[dict[str, int]], int]):
    port = fake_runtime_server({"/v1/models": 200})
    write(project_file, BUILTINS_OFF + f"""\
  local-llm:
    kind: http
    endpoint: http://127.0.0.1:{port}/v1/chat/completions
    model: qwen
    endpoint_convention: openai-chat
    api_key_env: MMR_TEST_LOCAL_KEY
    auth: {{recovery: "export MMR_TEST_LOCAL_KEY=..."}}
""")
    monkeypatch.delenv("MMR_TEST_LOCAL_KEY", raising=False)
    missing_key = mmr(*TRUSTED_TEST)
    assert missing_key.rc == 1
    entry = json.loads(missing_key.out)["local-llm"]
    assert entry["installed"] is True and entry["auth"] == "failed"
    monkeypatch.setenv("MMR_TEST_LOCAL_KEY", "k")
    ok = mmr(*TRUSTED_TEST)
    assert ok.rc == 0, ok.out
    assert json.loads(ok.out)["local-llm"] == {"installed": True, "auth": "ok"}


def test_http_probe_goes_over_the_wire(mmr: MmrRunner, project_file: Path,
                                       fake_runtime_server: Callable[[dict[str, int]], int]):
    port = fake_runtime_server({"/ok/v1/models": 200, "/bad/v1/models": 401})
    channel = """\
  {name}:
    kind: http
    endpoint: http://127.0.0.1:{port}/{path}/v1/chat/completions
    model: qwen
    endpoint_convention: openai-chat
"""
    write(project_file, BUILTINS_OFF + channel.format(name="good", port=port, path="ok")
          + channel.format(name="refused", port=port, path="bad"))
    run = mmr(*TRUSTED_TEST)
    assert run.rc == 1
    report = json.loads(run.out)
    assert report["good"] == {"installed": True, "auth": "ok"}
    assert report["refused"]["installed"] is True and report["refused"]["auth"] == "failed"


@pytest.mark.slow
def test_a_timed_out_auth_check_is_retried_once(mmr: MmrRunner, project_file: Path,
                                                fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, BUILTINS_OFF + """\
  slow:
    command: fake-ok
    auth: {check: "sleep 5", timeout: 1, failure_exit_codes: [1], recovery: never shown}
""")
    started = time.monotonic()
    run = mmr(*TRUSTED_TEST)
    elapsed = time.monotonic() - started
    assert run.rc == 1
    assert json.loads(run.out)["slow"] == {"installed": True, "auth": "timeout"}
    assert 1.8 <= elapsed < 4.5


def test_config_load_error_exits_1(mmr: MmrRunner, project_file: Path):
    project_file.write_text("channels:\n  codex:\n    enabled: yes\n")
    run = mmr("config", "test")
    assert run.rc == 1
    assert "channels.codex.enabled" in run.err and run.out == ""
