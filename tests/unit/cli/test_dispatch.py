"""Global CLI behaviour, on a throwaway app with commands shaped like mmr's."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
import typer

from mmr import __version__
from mmr.cli.app import add_command, new_root_app
from mmr.cli.dispatch import NO_COMMAND_HINT, run

from .toy_app import build_app


def cli(capsys, *args):
    code = run(list(args), build_app())
    out, err = capsys.readouterr()
    return code, out, err


def parsed(capsys, *args):
    code, out, err = cli(capsys, *args)
    assert err == "", err
    return code, json.loads(out)


def test_version_flags(capsys):
    assert cli(capsys, "--version") == (0, __version__ + "\n", "")
    assert cli(capsys, "review", "--version") == (0, __version__ + "\n", "")
    assert cli(capsys, "jobs", "prune", "--version") == (0, __version__ + "\n", "")


def test_help_goes_to_stdout(capsys):
    code, out, err = cli(capsys, "--help")
    assert (code, err) == (0, "")
    assert out.startswith("Usage: mmr <command> [options]\n")
    for name in ("review", "critique", "status", "jobs"):
        assert f"  {name} " in out
    assert cli(capsys, "help") == (0, out, "")


def test_help_for_one_command(capsys):
    code, out, err = cli(capsys, "review", "--help")
    assert (code, err) == (0, "")
    assert out.startswith("Usage: mmr review [OPTIONS]") and "--channels" in out
    assert cli(capsys, "help", "review") == (0, out, "")
    # --help wins over anything else on the line, as in the reference.
    assert cli(capsys, "review", "--bogus", "--help") == (0, out, "")


def test_group_usage_line(capsys):
    code, out, _ = cli(capsys, "jobs", "--help")
    assert code == 0 and out.startswith("Usage: mmr jobs <command> [options]\n")


def test_no_command_prints_root_help_to_stderr(capsys):
    code, out, err = cli(capsys)
    assert (code, out) == (1, "")
    assert err.startswith("Usage: mmr <command> [options]\n")
    assert err.endswith("\n\n" + NO_COMMAND_HINT + "\n")


@pytest.mark.parametrize(
    ("args", "usage", "message"),
    [
        (("bogus",), "mmr", "unknown command 'bogus'"),
        (("--bogus",), "mmr", "unknown option '--bogus'"),
        (("-v",), "mmr", "unknown option '-v'; did you mean '--version'?"),
        (("review", "--bogus"), "mmr review", "unknown option '--bogus'"),
        (("review", "extra"), "mmr review", "unexpected argument 'extra'"),
        (("critique", "a.md", "b.md"), "mmr critique", "unexpected argument 'b.md'"),
        (("status",), "mmr status", "missing argument JOB_ID"),
        (("reconcile", "j"), "mmr reconcile", "missing required options '--channel', '--input'"),
        (("review", "--diff"), "mmr review", "option '--diff' needs a value"),
        (("review", "--diff", "--pr", "5"), "mmr review", "option '--diff' needs a value"),
        (("review", "--format", "xml"), "mmr review",
         "invalid value 'xml' for '--format' (choose from json, text, markdown)"),
        (("review", "--fix-threshold", "P9"), "mmr review",
         "invalid value 'P9' for '--fix-threshold' (choose from P0, P1, P2, P3)"),
        (("jobs",), "mmr jobs", "missing command"),
        (("jobs", "bogus"), "mmr jobs", "unknown command 'bogus'"),
        (("help", "bogus"), "mmr", "unknown command 'bogus'"),
        (("help", "revew"), "mmr", "unknown command 'revew'; did you mean 'review'?"),
        (("help", "jobs", "lst"), "mmr jobs", "unknown command 'lst'; did you mean 'list'?"),
    ],
)
def test_usage_errors_exit_1_with_the_message_then_where_help_is(capsys, args, usage, message):
    code, out, err = cli(capsys, *args)
    assert (code, out) == (1, "")
    assert err == f"mmr: error: {message}\nTry '{usage} --help'\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("review", "--round", "0"), "round must be >= 1"),  # a typer callback's BadParameter
        (("review", "--max-rounds", "0"), "max-rounds must be >= 1"),  # UsageError in a command
        (("review", "--pr", "five"), "Invalid value for '--pr'"),  # conversion by typer
    ],
)
def test_validation_failures_exit_1_with_one_line(capsys, args, message):
    code, out, err = cli(capsys, *args)
    assert (code, out) == (1, "")
    first, second = err.splitlines()
    assert first.startswith("mmr: error: ") and message in first
    assert second == "Try 'mmr review --help'"


def test_greedy_and_repeated_array_options(capsys):
    _, values = parsed(capsys, "review", "--channels", "a", "b", "--dry-run")
    assert values["channels"] == ["a", "b"]
    _, values = parsed(capsys, "review", "--channels", "a", "--channels", "b,c")
    assert values["channels"] == ["a", "b", "c"]


def test_stdin_diff_and_inline_values(capsys):
    assert parsed(capsys, "review", "--diff", "-")[1]["diff"] == "-"
    assert parsed(capsys, "review", "--diff=-")[1]["diff"] == "-"
    _, values = parsed(capsys, "review", "--timeout", "2.5", "--format=text", "--fix-threshold=P1")
    assert (values["timeout"], values["format"], values["fix_threshold"]) == (2.5, "text", "P1")


def test_boolean_negation_and_default(capsys):
    assert parsed(capsys, "critique", "design.md", "--no-synthesis")[1]["synthesis"] is False
    assert parsed(capsys, "critique", "design.md")[1]["synthesis"] is True


def test_comma_string_option_never_swallows_the_input(capsys):
    _, values = parsed(capsys, "critique", "--lenses", "skeptic", "design.md")
    assert (values["input"], values["lenses"]) == ("design.md", "skeptic")


def test_greedy_channels_swallow_a_following_input_like_the_reference(capsys):
    code, _, err = cli(capsys, "critique", "--channels", "claude", "design.md")
    assert code == 1 and err == "mmr: error: No input given\nTry 'mmr critique --help'\n"


def test_camel_case_spelling(capsys):
    assert parsed(capsys, "review", "--dryRun")[1]["dry_run"] is True


def test_command_return_value_is_the_exit_code(capsys):
    assert parsed(capsys, "review", "--sync")[0] == 3
    assert cli(capsys, "boom", "--kind", "exit")[0] == 4


@pytest.mark.parametrize(("kind", "expected"), [
    ("interrupt", (130, "", "")),
    ("eof", (1, "", "\nmmr: error: aborted\n")),  # Click ends the prompt's line first
])
def test_ctrl_c_and_end_of_input_in_a_command(capsys, kind, expected):
    assert cli(capsys, "boom", "--kind", kind) == expected


def test_errors_that_are_not_usage_errors_reach_the_boundary(capsys):
    from mmr.errors import JobNotFoundError

    with pytest.raises(JobNotFoundError):
        run(["status", "missing"], build_app())
    with pytest.raises(ValueError, match="something internal broke"):
        run(["boom"], build_app())


def test_an_option_set_through_its_environment_variable_is_not_missing(capsys, monkeypatch):
    def show(*, token: Annotated[str, typer.Option("--token", envvar="MMR_TOY_TOKEN")]) -> int:
        print(token)
        return 0

    root = new_root_app()
    add_command(root, show, "show")
    monkeypatch.setenv("MMR_TOY_TOKEN", "abc")
    assert run(["show"], root) == 0
    assert capsys.readouterr().out == "abc\n"
