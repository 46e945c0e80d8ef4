"""``mmr config set`` / ``unset`` through the real CLI."""

from __future__ import annotations

import stat
from pathlib import Path

from mmr.config.loaded import WorkingTree
from mmr.config.loader import load_config
from tests.integration.config_cmd.conftest import MmrRunner, write


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".tmp" in p.name)


def test_set_creates_the_project_file_0600_and_prints_the_revert(mmr: MmrRunner,
                                                                 project_file: Path):
    run = mmr("config", "set", "defaults.fix_threshold", "P1", "--project")
    assert run.rc == 0, run.err
    assert run.out.splitlines() == [
        "✓ set defaults.fix_threshold",
        f"  wrote {project_file}",
        "  revert mmr config unset defaults.fix_threshold --project",
    ]
    assert project_file.read_text() == "version: 1\ndefaults:\n  fix_threshold: P1\n"
    assert mode_of(project_file) == 0o600
    assert leftovers(project_file.parent) == []


def test_set_global_writes_the_user_file_and_reverts_with_global(mmr: MmrRunner,
                                                                 user_file: Path):
    run = mmr("config", "set", "defaults.timeout", "450", "--global")
    assert run.rc == 0, run.err
    assert "revert mmr config unset defaults.timeout --global" in run.out
    assert user_file.read_text() == "version: 1\ndefaults:\n  timeout: 450\n"
    assert mode_of(user_file) == 0o600
    assert mode_of(user_file.parent) == 0o700


def test_env_values_stay_strings(mmr: MmrRunner, project: Path, project_file: Path):
    assert mmr("config", "set", "channels.codex.env.NO_BROWSER", "true").rc == 0
    assert 'NO_BROWSER: "true"' in project_file.read_text()
    loaded = load_config(project, project_source=WorkingTree())
    assert loaded.channels["codex"].env["NO_BROWSER"] == "true"


def test_numbers_and_booleans_are_written_typed(mmr: MmrRunner, project: Path,
                                                project_file: Path):
    assert mmr("config", "set", "channels.codex.timeout", "600").rc == 0
    assert mmr("config", "set", "defaults.min_completed_channels", "1e0").rc == 0
    assert mmr("config", "set", "channels.grok.enabled", "false").rc == 0
    text = project_file.read_text()
    assert "timeout: 600\n" in text and "600.0" not in text
    assert "min_completed_channels: 1\n" in text
    assert "enabled: false\n" in text and '"false"' not in text
    loaded = load_config(project, project_source=WorkingTree())
    assert loaded.channels["codex"].timeout == 600
    assert loaded.channels["grok"].enabled is False


def test_alias_path_lands_under_the_canonical_channel(mmr: MmrRunner, project_file: Path):
    assert mmr("config", "set", "channels.agy.timeout", "600").rc == 0
    assert "antigravity:\n    timeout: 600" in project_file.read_text()
    assert "agy" not in project_file.read_text()


def test_a_file_spelling_the_alias_is_edited_under_the_alias(mmr: MmrRunner,
                                                             project_file: Path):
    write(project_file, """\
        channels:
          agy:
            timeout: 100
        """)
    assert mmr("config", "set", "channels.antigravity.timeout", "200").rc == 0
    assert project_file.read_text() == "channels:\n  agy:\n    timeout: 200\n"


def test_unknown_channel_is_refused_and_nothing_is_written(mmr: MmrRunner,
                                                           project_file: Path):
    run = mmr("config", "set", "channels.codx.enabled", "false")
    assert run.rc == 1
    assert run.err.strip() == (
        "mmr: error: Unknown channel 'codx' (did you mean \"codex\"?). Add it with "
        "`mmr config set channels.codx.command <executable>` first, or check the spelling.")
    assert not project_file.exists()


def test_setting_a_new_channels_command_adds_the_channel(mmr: MmrRunner, project_file: Path):
    assert mmr("config", "set", "channels.reva.command", "reva-cli").rc == 0
    assert project_file.read_text() == "version: 1\nchannels:\n  reva:\n    command: reva-cli\n"
    loaded = load_config(project_file.parent, project_source=WorkingTree())
    assert loaded.channels["reva"].command == "reva-cli"
    assert mmr("config", "set", "channels.reva.timeout", "90").rc == 0
    assert load_config(project_file.parent, project_source=WorkingTree()).channels[
        "reva"].timeout == 90


def test_a_new_channel_needs_a_safe_name(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "set", "channels.a/b.command", "x")
    assert run.rc == 1
    assert "Invalid channel name 'a/b'" in run.err
    assert not project_file.exists()


def test_misspelt_key_is_rolled_back_from_a_new_file(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "set", "defaults.fix_treshold", "P1")
    assert run.rc == 1
    assert run.err.strip() == (
        "mmr: error: Cannot set defaults.fix_treshold: 'defaults.fix_treshold' is not a "
        "recognized config path"
    )
    assert not project_file.exists()


def test_invalid_value_restores_the_exact_bytes(mmr: MmrRunner, project_file: Path):
    original = "# team settings\ndefaults:\n  fix_threshold: P2   # agreed in March\n"
    project_file.write_text(original)
    project_file.chmod(0o644)
    run = mmr("config", "set", "defaults.fix_threshold", "NOPE")
    assert run.rc == 1
    assert run.err.startswith("mmr: error: Cannot set defaults.fix_threshold: ")
    assert "defaults.fix_threshold: expected 'P0', 'P1', 'P2' or 'P3', got \"NOPE\"" in run.err
    assert project_file.read_bytes() == original.encode()
    assert mode_of(project_file) == 0o644
    assert leftovers(project_file.parent) == []


def test_invalid_value_removes_a_file_the_command_created(mmr: MmrRunner, project_file: Path):
    assert mmr("config", "set", "defaults.fix_threshold", "NOPE").rc == 1
    assert not project_file.exists()


def test_enforced_values_are_not_recognized(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "set", "channels.gemini.enabled", "true")
    assert run.rc == 1
    assert "'channels.gemini.enabled' is not a recognized config path" in run.err
    assert not project_file.exists()


def test_global_set_is_validated_without_the_project_layer(mmr: MmrRunner, project_file: Path,
                                                           user_file: Path):
    write(project_file, "defaults:\n  fix_threshold: P1\n")
    write(user_file, "defaults:\n  timeout: 120\n")
    run = mmr("config", "set", "defaults.fix_threshold", "P9", "--global")
    assert run.rc == 1
    assert "P9" not in user_file.read_text()
    assert user_file.read_text() == "defaults:\n  timeout: 120\n"


def test_a_negative_number_is_taken_as_the_value(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "set", "defaults.timeout", "-5")
    assert run.rc == 1
    assert run.err.startswith(
        "mmr: error: Cannot set defaults.timeout: the result does not validate")
    assert "defaults.timeout: must be a finite number greater than 0" in run.err
    assert not project_file.exists()


def test_usage_errors(mmr: MmrRunner, project_file: Path):
    missing = mmr("config", "set", "defaults.timeout")
    assert (missing.rc, missing.err.strip()) == (
        1, "mmr: error: missing argument <value>\nTry 'mmr config set --help'")
    both = mmr("config", "set", "defaults.timeout", "5", "--global", "--project")
    assert (both.rc, both.err.strip()) == (
        1, "mmr: error: Pass only one of --global or --project, not both.")
    extra = mmr("config", "set", "defaults.timeout", "5", "six")
    assert (extra.rc, extra.err.strip()) == (
        1, "mmr: error: unexpected argument 'six'\nTry 'mmr config set --help'")
    assert not project_file.exists()


def test_set_keeps_comments_order_and_styles(mmr: MmrRunner, project_file: Path):
    write(project_file, """\
        # Project review settings
        version: 1

        defaults:
          # Block only on serious problems
          fix_threshold: P2  # team default
          timeout: 300

        channels:
          grok:
            flags:
              - --quiet
              - "--json"
          codex:
            enabled: true
        # end of file
        """)
    assert mmr("config", "set", "defaults.fix_threshold", "P1").rc == 0
    assert mmr("config", "set", "channels.codex.timeout", "500").rc == 0
    assert mmr("config", "set", "defaults.parallel", "false").rc == 0
    assert project_file.read_text() == (
        "# Project review settings\n"
        "version: 1\n"
        "\n"
        "defaults:\n"
        "  # Block only on serious problems\n"
        "  fix_threshold: P1  # team default\n"
        "  timeout: 300\n"
        "  parallel: false\n"
        "\n"
        "channels:\n"
        "  grok:\n"
        "    flags:\n"
        "      - --quiet\n"
        '      - "--json"\n'
        "  codex:\n"
        "    enabled: true\n"
        "    timeout: 500\n"
        "# end of file\n"
    )


def test_project_symlink_is_refused_and_its_target_untouched(mmr: MmrRunner, project: Path,
                                                             project_file: Path, tmp_path: Path):
    target = write(tmp_path / "elsewhere.yaml", "defaults:\n  timeout: 10\n")
    project_file.symlink_to(target)
    run = mmr("config", "set", "defaults.timeout", "20")
    assert run.rc == 1
    assert run.err.strip() == (
        "mmr: error: Cannot set defaults.timeout: refusing to write through a symlink: "
        f"{project_file}"
    )
    assert target.read_text() == "defaults:\n  timeout: 10\n"
    assert project_file.is_symlink()


def test_user_symlink_is_followed_and_its_target_replaced(mmr: MmrRunner, user_file: Path,
                                                          tmp_path: Path):
    dotfiles = tmp_path / "dotfiles"
    target = write(dotfiles / "mmr.yaml", "# managed by my dotfiles\nversion: 1\n", mode=0o640)
    user_file.parent.mkdir(parents=True)
    user_file.symlink_to(target)
    run = mmr("config", "set", "defaults.timeout", "90", "--global")
    assert run.rc == 0, run.err
    assert user_file.is_symlink() and user_file.resolve() == target
    assert target.read_text() == "# managed by my dotfiles\nversion: 1\ndefaults:\n  timeout: 90\n"
    assert mode_of(target) == 0o640
    assert leftovers(dotfiles) == []


def test_refuses_files_it_cannot_edit(mmr: MmrRunner, project_file: Path):
    broken = "defaults:\n  timeout: [1\n"
    project_file.write_text(broken)
    run = mmr("config", "set", "defaults.timeout", "5")
    assert run.rc == 1
    assert run.err.startswith(f"mmr: error: Cannot set defaults.timeout: cannot edit "
                              f"{project_file}: "
                              "it has YAML syntax errors (")
    assert project_file.read_text() == broken
    project_file.write_text("a: 1\n---\nb: 2\n")
    run = mmr("config", "set", "defaults.timeout", "5")
    assert run.err.strip() == (
        "mmr: error: Cannot set defaults.timeout: multi-document YAML not supported: "
        f"{project_file}"
    )


def test_a_single_document_with_a_start_marker_is_edited(mmr: MmrRunner, project_file: Path):
    project_file.write_text("# header\n---\nversion: 1\n")
    assert mmr("config", "set", "defaults.timeout", "5").rc == 0
    assert project_file.read_text() == "# header\n---\nversion: 1\ndefaults:\n  timeout: 5\n"


def test_unset_reports_the_inherited_value_then_nothing_to_unset(mmr: MmrRunner,
                                                                 project_file: Path):
    write(project_file, "version: 1\ndefaults:\n  timeout: 60\n  fix_threshold: P1\n")
    run = mmr("config", "unset", "defaults.timeout")
    assert run.rc == 0, run.err
    assert run.out.splitlines() == [
        f"✓ unset defaults.timeout  ({project_file})",
        "  now inherits: 300",
    ]
    again = mmr("config", "unset", "defaults.timeout")
    assert again.rc == 0
    assert again.out.strip() == (
        f"defaults.timeout is not set in {project_file} — nothing to unset."
    )


def test_unset_prunes_parents_left_empty(mmr: MmrRunner, project_file: Path):
    write(project_file, "version: 1\ndefaults:\n  loop_control:\n    max_rounds_default: 3\n")
    run = mmr("config", "unset", "defaults.loop_control.max_rounds_default")
    assert run.rc == 0
    assert "now inherits: 5" in run.out
    assert project_file.read_text() == "version: 1\n"


def test_unset_of_a_mapping_prints_compact_json(mmr: MmrRunner, project_file: Path):
    write(project_file, "defaults:\n  loop_control:\n    max_rounds_default: 3\n")
    run = mmr("config", "unset", "defaults.loop_control")
    assert "  now inherits: {\"max_rounds_default\":5,\"repeat_suppression_enabled\":false}" in (
        run.out.splitlines())


def test_unset_without_the_file(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "unset", "defaults.timeout")
    assert run.rc == 1
    assert run.err.strip() == f"mmr: error: Nothing to unset: {project_file} does not exist."


def test_unset_that_breaks_the_config_is_rolled_back(mmr: MmrRunner, project_file: Path):
    original = ("channels:\n  mybot:\n    command: mybot review  # its only command\n"
                "    timeout: 9\n")
    project_file.write_text(original)
    run = mmr("config", "unset", "channels.mybot.command")
    assert run.rc == 1
    assert run.err.startswith("mmr: error: Cannot unset channels.mybot.command: ")
    assert "must define command" in run.err
    assert project_file.read_text() == original


def test_unset_redacts_inherited_secrets(mmr: MmrRunner, project_file: Path, user_file: Path):
    write(user_file, """\
        channels:
          codex:
            command: codex exec --api-key sk-user-secret
            env:
              OPENAI_API_KEY: sk-user-env
        """)
    write(project_file, """\
        channels:
          codex:
            command: codex exec
            env:
              OPENAI_API_KEY: sk-project
        """)
    env = mmr("config", "unset", "channels.codex.env.OPENAI_API_KEY")
    assert env.rc == 0, env.err
    assert "  now inherits: <redacted>" not in env.out  # compact JSON: a quoted string
    assert '  now inherits: "<redacted>"' in env.out
    command = mmr("config", "unset", "channels.codex.command")
    assert '  now inherits: "<redacted>"' in command.out
    assert "sk-user" not in env.out + command.out


def test_unset_keeps_other_comments(mmr: MmrRunner, project_file: Path):
    write(project_file, """\
        # settings
        defaults:
          fix_threshold: P1  # strict team
          # how long each reviewer may take
          timeout: 120

        # channels we use
        channels:
          codex:
            enabled: false
        """)
    assert mmr("config", "unset", "defaults.timeout").rc == 0
    assert project_file.read_text() == (
        "# settings\n"
        "defaults:\n"
        "  fix_threshold: P1  # strict team\n"
        "\n"
        "# channels we use\n"
        "channels:\n"
        "  codex:\n"
        "    enabled: false\n"
    )
