"""Layering and merging."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.config.loaded import ProjectText
from mmr.config.paths import user_config_path
from mmr.config.schema import SubprocessChannel
from mmr.errors import ConfigError
from mmr.parsers.specs import UnwrapJsonpathSpec
from tests.builtin_channels import BUILTIN_CHANNELS, ENABLED_BUILTINS
from tests.unit.config.conftest import Loader


def _sub(loaded_channel: object) -> SubprocessChannel:
    assert isinstance(loaded_channel, SubprocessChannel)
    return loaded_channel


def test_no_files_gives_the_builtin_defaults(load: Loader) -> None:
    d = load().defaults
    assert (d.fix_threshold, d.min_completed_channels, d.timeout, d.format, d.parallel,
            d.job_retention_days) == ("P2", 2, 300, "json", True, 7)
    assert (d.loop_control.max_rounds_default, d.loop_control.repeat_suppression_enabled) == (
        5, False)
    assert d.compensator is None
    assert (d.ack_retention_days, d.diff_exclude, d.max_diff_lines, d.secret_findings) == (
        90, [], None, True)
    assert load().config.version == 1


def test_builtin_registry_order_and_default_enabled_set(load: Loader) -> None:
    loaded = load()
    assert list(loaded.channels) == BUILTIN_CHANNELS
    assert [name for name, ch in loaded.channels.items() if ch.enabled] == ENABLED_BUILTINS
    assert loaded.warnings == ()


def test_claude_unwraps_the_result_envelope(load: Loader) -> None:
    parser = load().channels["claude"].output_parser
    assert parser == UnwrapJsonpathSpec(kind="unwrap-jsonpath", wrap="$.result",
                                        error_path="$.is_error", then="default")


def test_new_channels_follow_builtins_user_first_then_project(load: Loader) -> None:
    loaded = load(
        user="channels:\n  zeta: {command: zeta}\n  codex: {timeout: 9}\n",
        project="channels:\n  alpha: {command: alpha}\n  claude: {timeout: 8}\n"
                "  zeta: {flags: [x]}\n",
    )
    assert list(loaded.channels) == [*BUILTIN_CHANNELS, "zeta", "alpha"]


def test_project_overrides_user_overrides_builtin(load: Loader) -> None:
    loaded = load(user="defaults:\n  fix_threshold: P1\n  timeout: 100\n",
                  project="defaults:\n  fix_threshold: P3\n")
    assert loaded.defaults.fix_threshold == "P3"
    assert loaded.defaults.timeout == 100


def test_cli_overrides_every_file_and_absent_values_change_nothing(load: Loader) -> None:
    loaded = load(user="defaults: {format: text, timeout: 100}\n",
                  project="defaults: {fix_threshold: P3}\n",
                  cli={"fix_threshold": "P0", "timeout": 42, "format": None})
    assert (loaded.defaults.fix_threshold, loaded.defaults.timeout, loaded.defaults.format) == (
        "P0", 42, "text")


def test_cli_timeout_wins_over_a_channels_own_timeout(load: Loader) -> None:
    with_flag = load(cli={"timeout": 5})
    assert with_flag.channels["antigravity"].timeout == 300
    assert with_flag.timeout_for("antigravity") == 5
    assert with_flag.timeout_for("agy") == 5
    without = load(project="defaults: {timeout: 60}\n")
    assert without.timeout_for("antigravity") == 300
    assert without.timeout_for("claude") == 60


def test_partial_channel_override_keeps_the_other_builtin_fields(load: Loader) -> None:
    claude = _sub(load(project="channels:\n  claude:\n    timeout: 600\n").channels["claude"])
    assert claude.timeout == 600
    assert claude.command == "claude -p"
    assert claude.flags == [
        "--output-format", "json", "--setting-sources", "user", "--strict-mcp-config",
        "--tools", "Read,Glob,Grep", "--permission-mode", "dontAsk"]
    assert claude.auth is not None and claude.auth.recovery.startswith("claude auth login")


def test_lists_replace_and_mappings_deep_merge(load: Loader) -> None:
    loaded = load(
        user="channels_disabled: [codex, grok]\n",
        project="""\
            channels_disabled: [opencode]
            channels:
              grok:
                flags: ["--only"]
                env: {EXTRA: "1"}
                auth: {timeout: 8}
            """,
    )
    grok = _sub(loaded.channels["grok"])
    assert grok.flags == ["--only"]
    assert grok.env == {"HOME": "{{neutral_home}}", "XDG_CONFIG_HOME": "{{neutral_home}}",
                        "EXTRA": "1"}
    assert grok.auth is not None
    assert grok.auth.timeout == 8
    assert grok.auth.check.endswith("grok models </dev/null\n")  # the preset's, kept
    assert loaded.config.channels_disabled == ["opencode"]


def test_object_parser_override_deep_merges(load: Loader) -> None:
    parser = load(project="channels:\n  grok:\n    output_parser: {then: default}\n"
                  ).channels["grok"].output_parser
    assert isinstance(parser, UnwrapJsonpathSpec)
    assert (parser.wrap, parser.then) == ("$.text", "default")
    assert parser.incomplete is not None and parser.incomplete.values == ["Cancelled"]


def test_string_parser_replaces_the_object(load: Loader) -> None:
    assert load(project="channels:\n  grok:\n    output_parser: default-last\n"
                ).channels["grok"].output_parser == "default-last"


def test_version_is_optional_and_must_be_a_number(load: Loader) -> None:
    assert load(project="version: 2\n").config.version == 2
    with pytest.raises(ConfigError, match=r"version: expected number, got string"):
        load(project='version: "1"\n')


@pytest.mark.parametrize(("yaml_text", "expected"), [
    ("defaults:\n  timeout: 1e3\n", 1000.0),
    ("defaults:\n  timeout: 0777\n", 777),
])
def test_yaml_1_2_numbers_reach_the_config(load: Loader, yaml_text: str, expected: float) -> None:
    assert load(project=yaml_text).defaults.timeout == expected


def test_enabled_yes_is_a_type_error(load: Loader, project_root: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(project="channels:\n  codex:\n    enabled: yes\n")
    assert str(caught.value) == (f"{project_root / '.mmr.yaml'}: channels.codex.enabled: "
                                 "expected boolean, got string")


def test_duplicate_keys_and_two_documents_fail_the_load(load: Loader, project_root: Path) -> None:
    with pytest.raises(ConfigError, match="duplicated mapping key"):
        load(project="defaults:\n  timeout: 1\n  timeout: 2\n")
    with pytest.raises(ConfigError, match="single document"):
        load(project="defaults: {}\n---\nchannels: {}\n")


def test_malformed_yaml_names_the_file(load: Loader) -> None:
    with pytest.raises(ConfigError) as caught:
        load(user="defaults:\n  timeout: [1,\n")
    assert str(caught.value).startswith(f"Failed to parse {user_config_path()}: ")


def test_list_root_is_rejected(load: Loader, project_root: Path) -> None:
    with pytest.raises(ConfigError, match=r"Invalid config in .*\.mmr\.yaml: expected a mapping "
                                          r"at the top level, got list"):
        load(project="- claude\n- codex\n")


def test_empty_and_null_sections_contribute_nothing(load: Loader, warnings: list[str]) -> None:
    loaded = load(user="", project="defaults:\nchannels:\n  # all commented out\n")
    assert list(loaded.channels) == BUILTIN_CHANNELS
    assert loaded.defaults.timeout == 300
    loaded = load(project="channels:\n  claude:\n")
    assert _sub(loaded.channels["claude"]).command == "claude -p"
    assert any("channels.claude has no settings" in w for w in warnings)


def test_unknown_keys_load_are_dropped_and_warned(load: Loader, warnings: list[str],
                                                  project_root: Path) -> None:
    loaded = load(project="""\
        future_top: 1
        defaults:
          fix_treshold: P1
          loop_control: {max_round_default: 3}
        channels:
          codex:
            future_secret_shape: {token: x}
            auth: {recovry: y}
        templates:
          t: {criterias: [a]}
        """)
    assert "future_secret_shape" not in loaded.channels["codex"].model_dump()
    assert loaded.defaults.fix_threshold == "P2"
    label = str(project_root / ".mmr.yaml")
    assert f'mmr: config {label}: unknown key "defaults.fix_treshold" ignored ' \
           '(did you mean "fix_threshold"?)' in warnings
    for key in ("future_top", "defaults.loop_control.max_round_default",
                "channels.codex.future_secret_shape", "channels.codex.auth.recovry",
                "templates.t.criterias"):
        assert any(f'unknown key "{key}"' in w for w in warnings), key


def test_http_only_keys_on_a_subprocess_channel_are_unknown(load: Loader,
                                                            warnings: list[str]) -> None:
    load(project="channels:\n  codex:\n    endpoint: http://x/chat/completions\n")
    assert any('unknown key "channels.codex.endpoint"' in w for w in warnings)


def test_base_ref_text_is_the_project_layer(load: Loader) -> None:
    loaded = load(project="defaults: {fix_threshold: P0}\n",
                  source=ProjectText("defaults: {fix_threshold: P3}\n", "main:.mmr.yaml"))
    assert loaded.defaults.fix_threshold == "P3"
    assert loaded.layer("project") is not None
    with pytest.raises(ConfigError, match=r"^Failed to parse main:\.mmr\.yaml: "):
        load(source=ProjectText("a: [\n", "main:.mmr.yaml"))


def test_skipping_the_project_layer_ignores_the_working_tree_file(load: Loader) -> None:
    loaded = load(project="defaults: {fix_threshold: P0}\nchannels: {bad: {enabled: yes}}\n",
                  source=None)
    assert loaded.defaults.fix_threshold == "P2"
    assert loaded.layer("project") is None


def test_working_tree_source_reads_the_project_file(load: Loader) -> None:
    assert load(project="defaults: {fix_threshold: P1}\n").defaults.fix_threshold == "P1"


def test_unreadable_file_is_skipped_with_a_warning(load: Loader, warnings: list[str]) -> None:
    # A file no process can read, root included (the suite runs as root, which reads a
    # mode-0 file): reading /proc/self/mem from offset 0 fails with EIO.
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/proc/self/mem")
    assert load().defaults.fix_threshold == "P2"
    assert any(str(path) in w and "cannot be read (Input/output error)" in w for w in warnings)


def test_a_directory_in_place_of_the_file_is_skipped_with_a_warning(
        load: Loader, warnings: list[str]) -> None:
    user_config_path().mkdir(parents=True)
    assert load().defaults.fix_threshold == "P2"
    assert any(str(user_config_path()) in w and "cannot be read" in w for w in warnings)


def test_symlinked_user_file_is_followed_when_reading(load: Loader, tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mmr.yaml"
    target.parent.mkdir()
    target.write_text("defaults: {fix_threshold: P1}\n", encoding="utf-8")
    link = user_config_path()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    assert load().defaults.fix_threshold == "P1"
