"""Shell completion through the real entry point (docs/completion.md)."""

from __future__ import annotations

import pytest

from mmr.cli.main import main


def complete(monkeypatch, capsys, instruction: str, **env: str) -> tuple[int, list[str]]:
    monkeypatch.setenv("_MMR_COMPLETE", instruction)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code = main([])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out.splitlines()


def test_bash_completes_command_names(monkeypatch, capsys):
    code, lines = complete(monkeypatch, capsys, "complete_bash", COMP_WORDS="mmr ex",
                           COMP_CWORD="1")
    assert (code, lines) == (0, ["explain", "explore"])


def test_bash_completes_options_and_choices(monkeypatch, capsys):
    _, options = complete(monkeypatch, capsys, "complete_bash",
                          COMP_WORDS="mmr review --fo", COMP_CWORD="2")
    assert options == ["--focus", "--format"]
    _, choices = complete(monkeypatch, capsys, "complete_bash",
                          COMP_WORDS="mmr commands --format ", COMP_CWORD="3")
    assert choices == ["text", "json"]


def test_zsh_completes_sub_commands(monkeypatch, capsys):
    _, lines = complete(monkeypatch, capsys, "complete_zsh",
                        _TYPER_COMPLETE_ARGS="mmr skill ")
    assert any('"install"' in line for line in lines)


@pytest.mark.parametrize(("shell", "marker"), [
    ("bash", "complete -o default -F _mmr_completion mmr"),
    ("zsh", "#compdef mmr"),
    ("fish", "complete --command mmr"),
])
def test_source_prints_the_script_to_eval(monkeypatch, capsys, shell, marker):
    code, lines = complete(monkeypatch, capsys, f"source_{shell}")
    assert code == 0
    assert marker in "\n".join(lines)


def test_without_the_variable_mmr_runs_normally(capsys):
    assert main([]) == 1
    assert "mmr: error: missing command" in capsys.readouterr().err
