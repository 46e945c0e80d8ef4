"""Turn a command line into one command call and its exit code.

Scripts written for MMR 4.0.1 rely on what its parser (yargs) accepts and refuses; Click
would answer differently (exit 2, other wording). So the command line is checked here
first — which command, which options, greedy lists, missing values — and Click only
converts values. A usage error prints one line naming the bad argument (``mmr: error:
unknown option '--bogus'; did you mean '--base'?``), then ``Try 'mmr review --help'``, and
exits 1: exit 2 means ``blocked``. Only a bare ``mmr`` shows the command list (on stderr).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from mmr import __version__
from mmr.cli.app import app as mmr_app
from mmr.cli.argv import ArgvError, looks_like_flag, normalise, unknown
from mmr.cli.errors import usage_error
from mmr.cli.introspect import (
    ClickCommand,
    Resolved,
    command_spec,
    help_text,
    is_group,
    leaf,
    visible_commands,
)
from mmr.cli.introspect import resolve as resolve_command
from mmr.errors import UsageError
from mmr.log import stderr_line

NO_COMMAND_HINT = "mmr: error: missing command; run 'mmr --help' for usage"
#: ``-h`` is what most command-line tools take for help; no mmr option uses it otherwise.
HELP_FLAGS = frozenset({"--help", "-h"})


def run(args: Sequence[str], app: typer.Typer = mmr_app) -> int:
    """Parse ``args`` (without the program name), run the command, return its exit code.

    Errors other than usage errors propagate to the boundary in :mod:`mmr.cli.errors`.
    """
    root = typer.main.get_command(app)
    tokens = list(args)
    if not tokens:
        stderr_line(f"{help_text(root, Resolved((), ()))}\n\n{NO_COMMAND_HINT}")
        return 1
    options_part = tokens[: tokens.index("--")] if "--" in tokens else tokens
    if "--version" in options_part:
        sys.stdout.write(__version__ + "\n")
        return 0
    resolved = resolve_command(root, tokens)
    # The help of the command named before it, as `mmr help` prints.
    if HELP_FLAGS.intersection(options_part):
        sys.stdout.write(help_text(root, Resolved(resolved.path, ())) + "\n")
        return 0
    try:
        argv = _checked_argv(root, resolved)
    except ArgvError as exc:
        return usage_problem(root, resolved, str(exc))
    return _invoke(root, resolved, argv)


def _checked_argv(root: ClickCommand, resolved: Resolved) -> list[str]:
    """The argv to hand Click; raises :class:`ArgvError` for anything MMR 4.0.1 rejects."""
    rest = list(resolved.rest)
    command = leaf(root, resolved)
    if is_group(command):
        if not rest:
            raise ArgvError("missing command")
        if looks_like_flag(rest[0]):
            raise unknown("option", rest[0].partition("=")[0], ["--help", "--version"])
        raise unknown("command", rest[0], visible_commands(command))
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
        return usage_error(str(ctx.command_path).split()[1:], format_message())
    if isinstance(result, bool) or not isinstance(result, int):
        return 0
    return result


def usage_problem(root: ClickCommand, resolved: Resolved, message: str) -> int:
    """``mmr: error: <message>``, then ``Try 'mmr <command> --help'``; return 1.

    ``mmr help <bad name>`` points at ``mmr --help``: the list of commands.
    """
    names = resolved.names
    return usage_error([] if names == ["help"] else names, message)
