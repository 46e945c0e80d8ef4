"""Turn a command line into one command call and its exit code (spec ch. 05 §1.2).

The reference's parser (yargs) decides what scripts see on bad input; Click would answer
differently (exit 2, other wording). So the command line is checked here first — which
command, which options, greedy lists, missing values — and Click only converts values.
Every usage error prints the command's help, a blank line and the message to stderr, and
exits 1: exit 2 means ``blocked``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from mmr.cli.argv import ArgvError, normalise
from mmr.cli.introspect import ClickCommand, Resolved, command_spec, help_text, is_group, leaf
from mmr.cli.introspect import resolve as resolve_command
from mmr.errors import UsageError
from mmr.log import stderr_line

NO_COMMAND_HINT = "Run mmr --help for usage"
#: ``-h``/``-v`` are not aliases: the reference answers them like a bare ``mmr``.
_NOT_ALIASES = frozenset({"-h", "-v"})


def run(args: Sequence[str], app: typer.Typer | None = None) -> int:
    """Parse ``args`` (without the program name), run the command, return its exit code.

    Errors other than usage errors propagate to the boundary in :mod:`mmr.cli.errors`.
    """
    if app is None:
        from mmr.cli.app import app as default_app

        app = default_app
    root = typer.main.get_command(app)
    tokens = list(args)
    if not tokens or tokens[0] in _NOT_ALIASES:
        return usage_problem(root, Resolved((), ()), NO_COMMAND_HINT)
    options_part = tokens[: tokens.index("--")] if "--" in tokens else tokens
    if "--version" in options_part:
        from mmr import __version__

        sys.stdout.write(__version__ + "\n")
        return 0
    resolved = resolve_command(root, tokens)
    try:
        argv = _checked_argv(root, resolved)
    except ArgvError as exc:
        return usage_problem(root, resolved, str(exc))
    return _invoke(root, resolved, argv)


def _checked_argv(root: ClickCommand, resolved: Resolved) -> list[str]:
    """The argv to hand Click; raises :class:`ArgvError` for anything the reference rejects."""
    rest = list(resolved.rest)
    options_part = rest[: rest.index("--")] if "--" in rest else rest
    if "--help" in options_part:
        return [*resolved.names, "--help"]
    command = leaf(root, resolved)
    if is_group(command):
        if not rest:
            raise ArgvError("Not enough non-option arguments: got 0, need at least 1")
        raise ArgvError(f"Unknown argument: {rest[0].lstrip('-')}")
    return [*resolved.names, *normalise(rest, command_spec(command))]


def _invoke(root: ClickCommand, resolved: Resolved, argv: list[str]) -> int:
    try:
        result = root.main(args=argv, prog_name="mmr", standalone_mode=False)
    except UsageError as exc:
        return usage_problem(root, resolved, str(exc))
    except typer.Abort:
        stderr_line("mmr: error: aborted")
        return 1
    except Exception as exc:
        # Click's own usage errors (a value it cannot convert, a callback's BadParameter)
        # carry the context of the command they belong to.
        ctx = getattr(exc, "ctx", None)
        format_message = getattr(exc, "format_message", None)
        if ctx is None or format_message is None:
            raise
        _write_problem(ctx.get_help(), format_message())
        return 1
    if isinstance(result, bool) or not isinstance(result, int):
        return 0
    return result


def usage_problem_for(args: Sequence[str], message: str) -> int:
    """:func:`usage_problem` for the command a command line names (the fast route's errors)."""
    from mmr.cli.app import app

    root = typer.main.get_command(app)
    return usage_problem(root, resolve_command(root, list(args)), message)


def usage_problem(root: ClickCommand, resolved: Resolved, message: str) -> int:
    """Print the help of the command ``resolved`` names, then ``message``; return 1."""
    _write_problem(help_text(root, resolved), message)
    return 1


def _write_problem(help_output: str, message: str) -> None:
    stderr_line(f"{help_output}\n\n{message}")
