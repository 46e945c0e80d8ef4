"""``mmr config enable|disable`` through the real CLI."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.plugin import FakeCliFactory
from tests.integration.config_cmd.conftest import MmrRunner, write

ABSENT = "mmr-test-absent-cli"


def test_disable_with_project_writes_the_project_file(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "disable", "codex", "--project")
    assert run.rc == 0, run.err
    assert run.out.splitlines() == [
        "✓ Disabled channel 'codex'",
        f"  wrote {project_file}",
        "  now    codex  disabled  (project)",
        "  revert mmr config enable codex --project",
    ]
    assert project_file.read_text() == "version: 1\nchannels:\n  codex:\n    enabled: false\n"


def test_disable_of_an_installed_cli_stays_in_the_project(mmr: MmrRunner, project_file: Path,
                                                         user_file: Path,
                                                         fake_cli: FakeCliFactory):
    fake_cli("codex")
    run = mmr("config", "disable", "codex")
    assert run.rc == 0, run.err
    assert f"  wrote {project_file}" in run.out
    assert not user_file.exists()


def test_not_installed_user_channel_is_recorded_in_the_user_file(mmr: MmrRunner,
                                                                 project_file: Path,
                                                                 user_file: Path):
    write(user_file, f"channels:\n  mybot:\n    command: {ABSENT} review\n")
    run = mmr("config", "disable", "mybot")
    assert run.rc == 0, run.err
    assert run.out.splitlines() == [
        "✓ Disabled channel 'mybot'",
        "  mybot CLI not installed — recorded as a machine-level preference in "
        f"{user_file}",
        "  pass --project to scope it to this repo instead",
        "  now    mybot  disabled  (user)",
        "  revert mmr config enable mybot --global",
    ]
    assert "enabled: false" in user_file.read_text()
    assert not project_file.exists()


def test_not_installed_builtin_goes_to_the_user_file(mmr: MmrRunner, user_file: Path,
                                                     monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    run = mmr("config", "disable", "codex")
    assert run.rc == 0, run.err
    assert "codex CLI not installed" in run.out
    assert user_file.read_text() == "version: 1\nchannels:\n  codex:\n    enabled: false\n"


def test_project_only_and_template_children_stay_in_the_project(mmr: MmrRunner,
                                                                project_file: Path,
                                                                user_file: Path):
    write(user_file, f"channels:\n  base:\n    abstract: true\n    command: {ABSENT}\n")
    write(project_file, f"""\
        channels:
          solo:
            command: {ABSENT} solo
          child:
            extends: base
        """)
    user_before = user_file.read_text()
    for name in ("solo", "child"):
        run = mmr("config", "disable", name)
        assert run.rc == 0, run.err
        assert f"  wrote {project_file}" in run.out
    assert user_file.read_text() == user_before
    text = project_file.read_text()
    assert "solo:\n    command: mmr-test-absent-cli solo\n    enabled: false" in text
    assert "child:\n    extends: base\n    enabled: false" in text


def test_project_only_channel_creates_no_user_file(mmr: MmrRunner, project_file: Path,
                                                   user_file: Path):
    write(project_file, f"channels:\n  solo:\n    command: {ABSENT}\n")
    assert mmr("config", "disable", "solo").rc == 0
    assert not user_file.exists()


def test_builtin_with_a_missing_project_command_stays_in_the_project(
        mmr: MmrRunner, project_file: Path, user_file: Path, fake_cli: FakeCliFactory):
    fake_cli("codex")
    write(project_file, f"channels:\n  codex:\n    command: {ABSENT} exec\n")
    run = mmr("config", "disable", "codex")
    assert run.rc == 0, run.err
    assert f"  wrote {project_file}" in run.out
    assert not user_file.exists()


def test_alias_is_written_canonically_or_into_the_existing_alias_key(mmr: MmrRunner,
                                                                    project_file: Path):
    assert mmr("config", "disable", "agy", "--project").rc == 0
    assert "antigravity:\n    enabled: false" in project_file.read_text()
    assert "agy" not in project_file.read_text()
    project_file.write_text("channels:\n  agy:\n    timeout: 50\n")
    run = mmr("config", "disable", "antigravity", "--project")
    assert run.rc == 0
    assert project_file.read_text() == "channels:\n  agy:\n    timeout: 50\n    enabled: false\n"
    assert "now    antigravity  disabled  (project)" in run.out


def test_enable_warns_when_another_layer_still_disables(mmr: MmrRunner, project_file: Path,
                                                       user_file: Path):
    write(user_file, "channels_disabled: [codex]\n")
    run = mmr("config", "enable", "codex", "--project")
    assert run.rc == 0, run.err
    assert run.out.splitlines() == [
        "✓ Enabled channel 'codex'",
        f"  wrote {project_file}",
        "  now    codex  disabled  (user)",
        "  ⚠ another config layer still disables this channel",
        "    run `mmr config channels --format text` to see which source wins,",
        "    or re-run with --global to change the other layer",
        "  revert mmr config disable codex --project",
    ]
    assert user_file.read_text() == "channels_disabled: [codex]\n"


def test_enable_prunes_this_files_channels_disabled(mmr: MmrRunner, project_file: Path):
    write(project_file, """\
        channels_disabled:
          - codex
          - agy
          - grok
        """)
    assert mmr("config", "enable", "codex", "--project").rc == 0
    assert mmr("config", "enable", "antigravity", "--project").rc == 0
    text = project_file.read_text()
    assert "channels_disabled:\n  - grok\n" in text
    run = mmr("config", "channels", "--format", "text")
    statuses = {line.split()[0]: line.split()[1] for line in run.out.splitlines()[1:]}
    assert statuses["codex"] == "enabled" and statuses["antigravity"] == "enabled"
    assert statuses["grok"] == "disabled"


def test_both_scope_flags(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "disable", "codex", "--global", "--project")
    assert (run.rc, run.err.strip()) == (
        1, "mmr: error: Pass only one of --global or --project, not both.")
    assert not project_file.exists()


def test_global_disable_of_a_project_only_channel_is_refused(mmr: MmrRunner,
                                                            project_file: Path,
                                                            user_file: Path):
    write(project_file, f"channels:\n  solo:\n    command: {ABSENT}\n")
    run = mmr("config", "disable", "solo", "--global")
    assert run.rc == 1
    assert run.err.strip() == (
        "mmr: error: Cannot disable 'solo' with --global: it has no command in the global "
        "config (the "
        "change would be an unrunnable/un-revertable stub). Use --project."
    )
    assert not user_file.exists()


def test_global_enable_of_a_commandless_stub_is_refused(mmr: MmrRunner, user_file: Path):
    write(user_file, "channels:\n  ghost:\n    enabled: false\n")
    run = mmr("config", "enable", "ghost", "--global")
    assert run.rc == 1
    assert "Cannot enable 'ghost' with --global: it has no command in the global config" in (
        run.err)
    assert user_file.read_text() == "channels:\n  ghost:\n    enabled: false\n"


def test_enabling_a_bare_stub_is_refused(mmr: MmrRunner, project_file: Path):
    original = "channels:\n  ghost:\n    enabled: false\n"
    project_file.write_text(original)
    run = mmr("config", "enable", "ghost")
    assert run.rc == 1
    assert run.err.strip() == (
        "mmr: error: Cannot enable 'ghost': it has no command in the merged config (it is a "
        "disabled "
        "stub). Add a command to its channel config first."
    )
    assert project_file.read_text() == original


def test_unknown_channel_and_missing_name(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "disable", "cdoex")
    assert run.rc == 1
    assert run.err.startswith(
        "mmr: error: Unknown channel 'cdoex'. Known channels: claude, gemini, codex,")
    assert not project_file.exists()
    usage = mmr("config", "enable")
    assert (usage.rc, usage.err.strip()) == (
        1, "mmr: error: missing argument <channel>\nTry 'mmr config enable --help'")
    extra = mmr("config", "disable", "codex", "grok")
    assert (extra.rc, extra.err.strip()) == (
        1, "mmr: error: unexpected argument 'grok'\nTry 'mmr config disable --help'")


def test_retired_channel(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "enable", "gemini")
    assert run.rc == 1
    assert run.err.strip() == (
        "mmr: error: Channel 'gemini' is retired and cannot be enabled — use \"antigravity\" (agy)."
    )
    assert not project_file.exists()
    disabled = mmr("config", "disable", "gemini", "--project")
    assert disabled.rc == 0
    assert "revert" not in disabled.out  # re-enabling it could only fail (Q21)


def test_a_dotted_channel_name_is_one_key(mmr: MmrRunner, project_file: Path):
    write(project_file, f"channels:\n  my-bot.v2:\n    command: {ABSENT}\n")
    assert mmr("config", "disable", "my-bot.v2").rc == 0
    assert project_file.read_text() == (
        f"channels:\n  my-bot.v2:\n    command: {ABSENT}\n    enabled: false\n"
    )


def test_disable_keeps_comments_and_key_order(mmr: MmrRunner, project_file: Path):
    write(project_file, """\
        # team config
        version: 1
        channels:
          # the fast one
          grok:
            enabled: true  # keep grok on
          codex:
            timeout: 100  # slow machine
        defaults:
          timeout: 200
        """)
    assert mmr("config", "disable", "grok", "--project").rc == 0
    assert mmr("config", "disable", "codex", "--project").rc == 0
    assert project_file.read_text() == (
        "# team config\n"
        "version: 1\n"
        "channels:\n"
        "  # the fast one\n"
        "  grok:\n"
        "    enabled: false  # keep grok on\n"
        "  codex:\n"
        "    timeout: 100  # slow machine\n"
        "    enabled: false\n"
        "defaults:\n"
        "  timeout: 200\n"
    )


def test_disable_refuses_a_symlinked_project_file(mmr: MmrRunner, project_file: Path,
                                                  tmp_path: Path):
    target = write(tmp_path / "real.yaml", "version: 1\n")
    project_file.symlink_to(target)
    run = mmr("config", "disable", "codex", "--project")
    assert run.rc == 1
    assert run.err.strip() == (
        f"mmr: error: Failed to write {project_file}: refusing to write through a symlink: "
        f"{project_file}"
    )
    assert target.read_text() == "version: 1\n"
