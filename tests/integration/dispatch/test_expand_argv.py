"""expand_argv: the pure argv builder."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmr.dispatch.placeholders import (
    PlaceholderValues,
    expand_argv,
    expand_flags,
    split_command,
)
from mmr.errors import ConfigError

MINIMAX_FLAGS = [
    "--model", "{{var.model}}", "--effort", "{{var.effort}}", "--permission-mode", "default",
    "--max-turns", "{{var.max_turns}}", "--output-format", "json", "--add-dir", "{{repo_root}}",
    "-p",
]


def values(**kwargs: object) -> PlaceholderValues:
    kwargs.setdefault("channel", "test")
    return PlaceholderValues(**kwargs)  # type: ignore[arg-type]


def test_command_tokens_then_flags_without_shell_interpretation() -> None:
    argv = expand_argv("fakecli  --flagA ", ["--x", "y z", "$HOME", "a|b"], values=values())
    assert argv == ["fakecli", "--flagA", "--x", "y z", "$HOME", "a|b"]


def test_leading_whitespace_is_not_an_empty_executable() -> None:
    assert split_command("  claude -p\t--json\n") == ["claude", "-p", "--json"]


def test_empty_command_is_a_config_error_naming_the_channel() -> None:
    with pytest.raises(ConfigError, match='channel "ghost": command is empty'):
        expand_argv("   ", [], values=values(channel="ghost"))


def test_prompt_file_placeholder_is_replaced_everywhere(tmp_path: Path) -> None:
    prompt = tmp_path / "grok.prompt.txt"
    argv = expand_argv(
        "grok --in={{prompt_file}}", ["--prompt-file", "{{prompt_file}}", "x{{prompt_file}}y"],
        values=values(prompt_file=prompt),
    )
    assert argv == ["grok", f"--in={prompt}", "--prompt-file", str(prompt), f"x{prompt}y"]


def test_prompt_file_is_appended_when_not_mentioned(tmp_path: Path) -> None:
    prompt = tmp_path / "p.txt"
    argv = expand_argv("grok -p", ["--json"], values=values(prompt_file=prompt))
    assert argv == ["grok", "-p", "--json", str(prompt)]


def test_stdin_mode_leaves_prompt_file_and_neutral_tokens_literal() -> None:
    flags = ["--f", "{{prompt_file}}", "--home", "{{neutral_home}}", "{{neutral_cwd}}/x"]
    assert expand_argv("cli", flags, values=values()) == ["cli", *flags]


def test_neutral_tokens_expand_when_a_neutral_dir_is_given(tmp_path: Path) -> None:
    flags = ["--home", "{{neutral_home}}", "--cfg={{neutral_cwd}}/cfg"]
    assert expand_flags(flags, values(neutral_dir=tmp_path)) == [
        "--home", str(tmp_path), f"--cfg={tmp_path}/cfg",
    ]


def test_findings_schema_is_untouched_unless_mapped() -> None:
    flags = ["--schema={{findings_schema}}", "--output-schema", "{{findings_schema}}"]
    assert expand_flags(flags, values()) == flags
    mapped = values(findings_schema='{"type":"object"}')
    assert expand_flags(flags, mapped) == [
        '--schema={"type":"object"}', "--output-schema", '{"type":"object"}',
    ]


def test_a_flag_holding_the_schema_is_not_the_option_of_an_empty_value_after_it() -> None:
    # Review and compensating passes expand the schema in one place, here: a flag with the
    # schema in it is not a bare ``-flag``, so a null value after it drops nothing.
    schema = values(findings_schema="{}", vars={"effort": None})
    assert expand_flags(["--schema={{findings_schema}}", "{{var.effort}}"], schema) == [
        "--schema={}"]


def test_minimax_vars_repo_root_and_optional_effort(tmp_path: Path) -> None:
    full = values(
        repo_root=tmp_path,
        vars={"model": "MiniMax-M3.1-Flash", "effort": "max", "max_turns": 40},
    )
    assert expand_argv("ask-minimax-run", MINIMAX_FLAGS, values=full) == [
        "ask-minimax-run", "--model", "MiniMax-M3.1-Flash", "--effort", "max",
        "--permission-mode", "default", "--max-turns", "40", "--output-format", "json",
        "--add-dir", str(tmp_path), "-p",
    ]
    no_effort = values(
        repo_root=tmp_path,
        vars={"model": "MiniMax-M3[1m]", "effort": None, "max_turns": 40},
    )
    argv = expand_argv("ask-minimax-run", MINIMAX_FLAGS, values=no_effort)
    assert "--effort" not in argv
    assert argv[1:3] == ["--model", "MiniMax-M3[1m]"] and argv[3] == "--permission-mode"


def test_null_inside_a_larger_token_drops_only_that_token() -> None:
    flags = ["--verbose", "--effort={{var.effort}}", "-p"]
    assert expand_flags(flags, values(vars={"effort": None})) == ["--verbose", "-p"]


def test_null_after_a_positional_drops_only_the_placeholder() -> None:
    assert expand_flags(["run", "{{var.extra}}"], values(vars={"extra": None})) == ["run"]


def test_list_placeholder_repeats_the_preceding_flag() -> None:
    assert expand_flags(["--add-dir", "{{roots}}", "-p"], values(roots=["/a", "/b c"])) == [
        "--add-dir", "/a", "--add-dir", "/b c", "-p",
    ]


def test_list_inside_a_token_repeats_the_token_and_empty_list_drops_the_pair() -> None:
    assert expand_flags(["--dir={{var.dirs}}"], values(vars={"dirs": ["a", "b"]})) == [
        "--dir=a", "--dir=b",
    ]
    assert expand_flags(["--add-dir", "{{roots}}", "-p"], values(roots=[])) == ["-p"]
    assert expand_flags(["--add-dir", "{{roots}}"], values()) == []


def test_scalar_vars_render_as_yaml_would_write_them() -> None:
    flags = ["{{var.n}}", "{{var.yes}}", "{{var.ratio}}"]
    assert expand_flags(flags, values(vars={"n": 5, "yes": True, "ratio": 0.5})) == [
        "5", "true", "0.5",
    ]


def _npm_install(tmp_path: Path) -> tuple[Path, Path]:
    """An npm-style install: ``bin/cli`` links to a launcher script in its package, whose
    native binary lies in a sibling package; returns the ``node_modules`` and the bin."""
    modules = tmp_path / "prefix" / "lib" / "node_modules"
    launcher = modules / "@vendor" / "cli" / "bin" / "cli.js"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    (modules / "@vendor" / "cli-linux-x64" / "vendor").mkdir(parents=True)
    bin_dir = tmp_path / "prefix" / "bin"
    bin_dir.mkdir()
    (bin_dir / "cli").symlink_to(launcher)
    return modules, bin_dir


def test_command_dir_is_the_node_modules_holding_the_real_program(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modules, bin_dir = _npm_install(tmp_path)
    monkeypatch.setenv("PATH", str(bin_dir))
    argv = expand_argv("cli exec", ["-c", '{"{{command_dir}}"="read"}'], values=values())
    assert argv == ["cli", "exec", "-c", f'{{"{modules}"="read"}}']


def test_command_dir_outside_node_modules_is_the_program_folder_and_unknown_is_literal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = tmp_path / "opt" / "tool"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(program.parent))
    assert expand_argv("tool", ["{{command_dir}}"], values=values())[1:] == [str(program.parent)]
    assert expand_argv("absent", ["{{command_dir}}"], values=values())[1:] == ["{{command_dir}}"]


def test_replacement_text_is_never_re_expanded() -> None:
    got = expand_flags(["{{var.a}}"], values(vars={"a": "{{var.b}} $1 \\1"}))
    assert got == ["{{var.b}} $1 \\1"]


def test_unknown_placeholder_names_channel_and_token() -> None:
    with pytest.raises(ConfigError) as err:
        expand_flags(["--root", "{{reporoot}}"], values(channel="minimax"))
    assert 'channel "minimax"' in str(err.value) and "{{reporoot}}" in str(err.value)


def test_undefined_var_names_channel_token_and_defined_vars() -> None:
    with pytest.raises(ConfigError) as err:
        expand_flags(["--model", "{{var.modle}}"], values(channel="mm", vars={"model": "x"}))
    message = str(err.value)
    assert 'channel "mm"' in message and "{{var.modle}}" in message and "model" in message


def test_non_placeholder_braces_pass_through() -> None:
    flags = ["--template", "{{.Name}}", "{{ spaced }}", "{{", "}}"]
    assert expand_flags(flags, values()) == flags


def test_two_lists_in_one_token_is_an_error() -> None:
    with pytest.raises(ConfigError, match="more than one list"):
        expand_flags(["{{roots}}:{{var.more}}"], values(roots=["a"], vars={"more": ["b"]}))


def test_nested_var_value_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"\{\{var.cfg\}\}"):
        expand_flags(["{{var.cfg}}"], values(vars={"cfg": [{"a": 1}]}))


@given(st.lists(st.text().filter(lambda s: "{{" not in s)))
def test_flags_without_placeholders_are_returned_unchanged(flags: list[str]) -> None:
    assert expand_flags(flags, values()) == flags
