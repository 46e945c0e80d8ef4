"""Usage errors: one ``mmr: error:`` line naming the argument as typed, a
did-you-mean when one is close, then ``Try 'mmr <command> --help'``; exit 1, no help dump.

Every command of the command table is checked, through the entry point.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from mmr.cli.app import app
from mmr.cli.introspect import command_spec
from tests.cli_runner import RunMmr
from tests.unit.cli.test_commands_manifest import registered_paths

ROOT = typer.main.get_command(app)


def leaf_paths() -> list[tuple[str, ...]]:
    """Every visible leaf command: top-level commands and each sub-command of a group."""
    return registered_paths()


def leaf(path: tuple[str, ...]) -> object:
    command = ROOT
    for name in path:
        command = command.commands[name]
    return command


def usage_error(result: object, path: tuple[str, ...], message: str) -> None:
    assert (result.code, result.out) == (1, ""), result.err  # type: ignore[attr-defined]
    command = " ".join(["mmr", *path])
    assert result.err == f"mmr: error: {message}\nTry '{command} --help'\n"  # type: ignore[attr-defined]


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"MMR_HOME": str(tmp_path / "home"), "HOME": str(tmp_path / "home")}


@pytest.mark.parametrize("path", leaf_paths(), ids=" ".join)
def test_every_command_names_an_unknown_option_as_typed(run_mmr: RunMmr, tmp_path: Path,
                                                        home: dict[str, str],
                                                        path: tuple[str, ...]) -> None:
    result = run_mmr(*path, "--zzyzx-option", cwd=tmp_path, env=home)
    usage_error(result, path, "unknown option '--zzyzx-option'")


@pytest.mark.parametrize("path", [p for p in leaf_paths()
                                  if not any(getattr(a, "nargs", 1) == -1
                                             for a in leaf(p).params)],  # type: ignore[attr-defined]
                         ids=" ".join)
def test_every_command_names_a_surplus_positional(run_mmr: RunMmr, tmp_path: Path,
                                                  home: dict[str, str],
                                                  path: tuple[str, ...]) -> None:
    spec = command_spec(leaf(path))
    filled = [token for option in spec.options if option.required
              for token in (option.canonical, "x")]
    filled += ["x"] * len(spec.arguments)
    result = run_mmr(*path, *filled, "surplus-arg", cwd=tmp_path, env=home)
    usage_error(result, path, "unexpected argument 'surplus-arg'")


@pytest.mark.parametrize(("argv", "path", "message"), [
    (("review", "--bogus"), ("review",), "unknown option '--bogus'"),
    (("review", "--bsae", "main"), ("review",), "unknown option '--bsae'; did you mean '--base'?"),
    (("review", "--chanels", "a"), ("review",),
     "unknown option '--chanels'; did you mean '--channels'?"),
    (("review", "--diff"), ("review",), "option '--diff' needs a value"),
    (("review", "--diff", "--pr", "5"), ("review",), "option '--diff' needs a value"),
    (("review", "--sync=yes"), ("review",), "option '--sync' does not take a value"),
    (("review", "--format", "jsno"), ("review",),
     "invalid value 'jsno' for '--format' (choose from json, text, markdown, sarif, github, "
     "rdjsonl); did you mean 'json'?"),
    (("review", "--fix-threshold", "P9"), ("review",),
     "invalid value 'P9' for '--fix-threshold' (choose from P0, P1, P2, P3)"),
    (("review", "extra"), ("review",), "unexpected argument 'extra'"),
    (("review", "--round", "0"), ("review",), "round must be >= 1"),
    (("results",), ("results",), "missing argument JOB_ID"),
    (("results", "a", "b"), ("results",), "unexpected argument 'b'"),
    (("reconcile", "j"), ("reconcile",), "missing required options '--channel', '--input'"),
    (("reconcile", "j", "--channel", "a"), ("reconcile",), "missing required option '--input'"),
    (("review", "--pr", "five"), ("review",),
     "Invalid value for '--pr': Input should be a valid integer, unable to parse string as an "
     "integer"),
    (("status", "--format", "text"), ("status",), "unknown option '--format'"),
    (("status",), ("status",), "missing argument JOB_ID"),
    (("critique", "a.md", "b.md"), ("critique",), "unexpected argument 'b.md'"),
    (("bogus",), (), "unknown command 'bogus'"),
    (("revew",), (), "unknown command 'revew'; did you mean 'review'?"),
    (("--bogus",), (), "unknown option '--bogus'"),
    (("-v",), (), "unknown option '-v'; did you mean '--version'?"),
    (("jobs",), ("jobs",), "missing command"),
    (("jobs", "lst"), ("jobs",), "unknown command 'lst'; did you mean 'list'?"),
    (("config", "chanels"), ("config",), "unknown command 'chanels'; did you mean 'channels'?"),
    (("config", "channels", "--format", "yaml"), ("config", "channels"),
     "invalid value 'yaml' for '--format' (choose from json, text)"),
    (("config", "set", "--bogus"), ("config", "set"), "unknown option '--bogus'"),
    (("config", "set", "six"), ("config", "set"), "missing argument <value>"),
    (("config", "set", "a.b", "1", "six"), ("config", "set"), "unexpected argument 'six'"),
    (("config", "unset"), ("config", "unset"), "missing argument <dotted.path>"),
    (("config", "test", "extra"), ("config", "test"), "unexpected argument 'extra'"),
    (("config", "channels", "show"), ("config", "channels"), "missing argument <channel>"),
    (("config", "channels", "show", "codex", "x"), ("config", "channels"),
     "unexpected argument 'x'"),
])
def test_usage_errors_name_the_argument_then_where_help_is(run_mmr: RunMmr, tmp_path: Path,
                                                           home: dict[str, str], *,
                                                           argv: tuple[str, ...],
                                                           path: tuple[str, ...],
                                                           message: str) -> None:
    usage_error(run_mmr(*argv, cwd=tmp_path, env=home), path, message)


def test_a_bare_mmr_lists_the_commands_then_says_what_is_missing(run_mmr: RunMmr,
                                                                 tmp_path: Path) -> None:
    result = run_mmr(cwd=tmp_path)
    assert (result.code, result.out) == (1, "")
    assert result.err.startswith("Usage: mmr <command> [options]\n")
    assert result.err.endswith("\n\nmmr: error: missing command; run 'mmr --help' for usage\n")
