"""The MiniMax opt-in suggestion and the uncommitted ``auth.check`` warning."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.plugin import FakeCliFactory
from tests.integration.doctor.conftest import BUILTINS_OFF, MmrRunner, commit, write

SUGGESTION = ("The minimax CLI is installed but the channel is off — to review with it too, "
              "run `mmr config enable minimax`.")


def test_installed_but_off_suggests_enabling(mmr: MmrRunner, project_file: Path,
                                             fake_cli: FakeCliFactory):
    minimax = fake_cli("ask-minimax-run", stdout="ask-minimax-run 1.4.0")
    write(project_file, BUILTINS_OFF)
    run = mmr()
    assert run.rc == 1  # nothing is ready
    assert run.out.endswith(f"  · minimax-explore  disabled\n\n{SUGGESTION}\n")
    rows = mmr("--format", "json").rows()
    assert rows["minimax"] == {"name": "minimax", "status": "disabled", "installed": False,
                               "suggestion": "mmr config enable minimax"}
    assert rows["minimax-m3"] == {"name": "minimax-m3", "status": "disabled",
                                  "installed": False}
    assert rows["minimax-explore"]["status"] == "disabled"
    assert minimax.calls() == []  # disabled channels are never probed


def test_no_suggestion_without_the_cli(mmr: MmrRunner, project_file: Path):
    write(project_file, BUILTINS_OFF)
    run = mmr()
    assert "mmr config enable minimax" not in run.out
    assert "suggestion" not in mmr("--format", "json").out


def test_no_suggestion_once_enabled(mmr: MmrRunner, project_file: Path,
                                    fake_cli: FakeCliFactory):
    fake_cli("ask-minimax-run", stdout="ask-minimax-run 1.4.0")
    write(project_file, BUILTINS_OFF + "  minimax: {enabled: true}\n")
    run = mmr("--format", "json")
    assert run.rc == 0, run.err
    assert run.rows()["minimax"] == {"name": "minimax", "status": "ok", "installed": True,
                                     "version": "ask-minimax-run 1.4.0"}


UNTRUSTED = BUILTINS_OFF + """\
  mine:
    command: fake-ok
    auth: {check: "true", timeout: 5, failure_exit_codes: [1], recovery: x}
"""


def test_uncommitted_auth_check_is_warned_about(mmr: MmrRunner, project: Path,
                                                project_file: Path, fake_cli: FakeCliFactory):
    fake_cli("fake-ok")
    write(project_file, UNTRUSTED)
    run = mmr()
    assert run.rc == 0
    assert run.err == (f"mmr: warning: {project_file} has uncommitted auth.check commands "
                       "(mine); doctor runs them with sh — read them first.\n")
    commit(project, ".mmr.yaml")
    assert mmr().err == ""
    write(project_file, UNTRUSTED.replace('check: "true"', 'check: "true; touch pwned"'))
    assert "(mine)" in mmr().err


def test_checks_that_will_not_run_are_not_warned_about(mmr: MmrRunner, project_file: Path):
    write(project_file, BUILTINS_OFF + """\
  off:
    enabled: false
    command: fake-ok
    auth: {check: "true", timeout: 5, failure_exit_codes: [1], recovery: x}
  on: {command: "true"}
""")
    assert mmr().err == ""
