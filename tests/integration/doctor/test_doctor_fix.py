"""``mmr doctor --fix``: where each not-installed channel is disabled, and the exit code."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from mmr.cli.doctor_cmd import NO_REVIEWER
from tests.integration.doctor.conftest import MmrRunner, write

#: Every test here fixes a machine where no reviewer is ready: doctor says so and exits 1.
NONE_READY = NO_REVIEWER + "\n"

#: The built-ins other than codex switched off, so codex is the only missing CLI.
ONLY_CODEX = """\
channels:
  claude: {enabled: false}
  grok: {enabled: false}
  antigravity: {enabled: false}
"""
PROJECT_BOT = """\
# project review channels
channels:
  claude: {enabled: false}   # not on this team
  codex: {enabled: false}
  grok: {enabled: false}
  antigravity: {enabled: false}
  projbot:
    command: absent-cli-xyz review  # our in-house reviewer
"""


def test_builtin_goes_to_a_new_global_file(mmr: MmrRunner, project_file: Path,
                                           user_file: Path):
    write(project_file, ONLY_CODEX)
    before = project_file.read_text()
    run = mmr("--fix")
    assert (run.rc, run.err) == (1, NONE_READY)
    assert run.out.endswith(
        "  ✗ codex            not_installed\n"
        "      → install codex (npm install -g @openai/codex), or stop dispatching it: "
        "mmr config disable codex\n"
        "  · grok             disabled\n"
        "  · antigravity      disabled\n"
        "  · opencode         disabled\n"
        "  · doc-conformance  disabled\n"
        "  · minimax          disabled\n"
        "  · minimax-m3       disabled\n"
        "  · minimax-explore  disabled\n"
        "\n"
        f"  ✓ disabled codex in {user_file}\n")
    assert "--fix` to disable" not in run.out
    assert user_file.read_text() == "version: 1\nchannels:\n  codex:\n    enabled: false\n"
    assert stat.S_IMODE(user_file.stat().st_mode) == 0o600
    assert project_file.read_text() == before
    again = mmr("--format", "json")
    assert again.rc == 1
    assert again.rows()["codex"]["status"] == "disabled"


def test_global_file_keeps_its_comments_and_mode(mmr: MmrRunner, project_file: Path,
                                                 user_file: Path):
    write(project_file, ONLY_CODEX)
    write(user_file, """\
        # my machine
        version: 1
        defaults:
          timeout: 600  # slow laptop
        channels:
          grok:
            enabled: false  # no account
        """).chmod(0o644)
    run = mmr("--fix")
    assert (run.rc, run.err) == (1, NONE_READY)
    assert user_file.read_text() == (
        "# my machine\n"
        "version: 1\n"
        "defaults:\n"
        "  timeout: 600  # slow laptop\n"
        "channels:\n"
        "  grok:\n"
        "    enabled: false  # no account\n"
        "  codex:\n"
        "    enabled: false\n")
    assert stat.S_IMODE(user_file.stat().st_mode) == 0o644


def test_project_only_channel_goes_to_the_project_file(mmr: MmrRunner, project_file: Path,
                                                       user_file: Path):
    write(project_file, PROJECT_BOT)
    run = mmr("--fix")
    assert (run.rc, run.err) == (1, NONE_READY)
    assert f"  ✓ disabled projbot in {project_file}\n" in run.out
    assert project_file.read_text() == PROJECT_BOT.replace(
        "    command: absent-cli-xyz review  # our in-house reviewer\n",
        "    command: absent-cli-xyz review  # our in-house reviewer\n    enabled: false\n")
    assert not user_file.exists() or "projbot" not in user_file.read_text()


def test_a_higher_layer_still_enabling_it_fails_the_fix(mmr: MmrRunner, project_file: Path,
                                                        user_file: Path):
    write(project_file, ONLY_CODEX + "  codex: {enabled: true}\n")
    run = mmr("--fix")
    assert run.rc == 1
    assert run.err == NONE_READY + (
        f"mmr: error: wrote codex disabled to {user_file}, but a higher-precedence layer still "
        "enables it — disable it there (e.g. --project / --global).\n")
    assert "✓ disabled" not in run.out
    assert "codex:\n    enabled: false" in user_file.read_text()


def test_symlinked_project_file_is_refused(mmr: MmrRunner, project_file: Path, tmp_path: Path):
    target = write(tmp_path / "elsewhere.yaml", PROJECT_BOT)
    project_file.symlink_to(target)
    run = mmr("--fix")
    assert run.rc == 1
    assert run.err == NONE_READY + ("mmr: error: could not disable projbot: refusing to "
                                    f"write through a symlink: {project_file}\n")
    assert target.read_text() == PROJECT_BOT


def test_json_mode_prints_only_the_health_before_fixing(mmr: MmrRunner, project_file: Path,
                                                       user_file: Path):
    write(project_file, ONLY_CODEX)
    run = mmr("--fix", "--format", "json")
    assert (run.rc, run.err) == (1, NONE_READY)
    rows = json.loads(run.out)  # the whole of stdout is the array
    assert [row["status"] for row in rows if row["name"] == "codex"] == ["not_installed"]
    assert "codex:\n    enabled: false" in user_file.read_text()


def test_fix_with_nothing_missing_changes_no_file(mmr: MmrRunner, project_file: Path,
                                                  user_file: Path):
    write(project_file, ONLY_CODEX + "  codex: {enabled: false}\n")
    before = project_file.read_text()
    run = mmr("--fix")
    assert (run.rc, run.err) == (1, NONE_READY)
    assert project_file.read_text() == before
    assert not user_file.exists()


def test_symlinked_global_file_is_followed(mmr: MmrRunner, project_file: Path, user_file: Path,
                                           tmp_path: Path):
    """Decisions "symlinked config files": the user file's link is followed (dotfile managers)."""
    write(project_file, ONLY_CODEX)
    target = write(tmp_path / "dotfiles" / "mmr.yaml", "version: 1  # managed\n")
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.symlink_to(target)
    run = mmr("--fix")
    assert (run.rc, run.err) == (1, NONE_READY)
    assert user_file.is_symlink()
    assert target.read_text() == "version: 1  # managed\nchannels:\n  codex:\n    enabled: false\n"
