"""The ``mmr`` typer application: the root group, ``help``, and the registered commands.

Adding a command
----------------
1. Write ``src/mmr/cli/<command>.py`` defining ``def <command>(*, ...) -> int`` with
   typer ``Annotated`` options, keyword-only (many positional parameters trip ruff).
   Import the core *inside* the function (this module is imported by ``mmr --help``,
   which must stay fast), render with :mod:`mmr.formatters`, write with
   :func:`mmr.cli.output.write_report`, and return the exit code. Raise
   :class:`mmr.errors.UsageError` for a bad flag combination (the message, then
   ``Try 'mmr <command> --help'``, exit 1) and
   other :class:`mmr.errors.MmrError` subclasses for everything else (one line, their code).
   A command with sub-commands builds its app with :func:`mmr.cli.groups.command_group`.
2. Add it to :func:`_register` below, keeping :data:`COMMAND_ORDER`.
3. Regenerate the pre-rendered ``--help`` texts: ``python -m mmr.cli.help_build`` (a unit
   test fails while they differ from typer's; :mod:`mmr.cli.static_help` serves them).

The hot commands (``review``, ``results``, ``reconcile``) are the exception: their options
are rows of :data:`mmr.cli.options.COMMANDS`, from which both the typer command and the
typer-free fast route are built; their bodies live in :mod:`mmr.cli.bodies`.

Array options (``list[str]``) are greedy, as in the reference (``--channels a b``); comma
splitting, where a flag allows it, is the command's business.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from mmr.cli.groups import MmrGroup
from mmr.cli.introspect import Resolved, help_text, resolve

#: Top-level commands in the reference's registration order (spec ch. 05 §1.1);
#: ``mmr --help`` lists them in this order. mmr's own commands (``explore``) follow.
COMMAND_ORDER = (
    "review", "critique", "status", "results", "config", "doctor", "jobs", "reconcile",
    "sessions", "ack", "skill", "commands", "explain", "comment",
)


class MmrRootGroup(MmrGroup):
    """The root group; lists commands in :data:`COMMAND_ORDER`, whatever their kind.

    (typer keeps plain commands and sub-command apps apart, which would list every
    group after every plain command.)
    """

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: index for index, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))


def _print_version(value: bool) -> None:
    if value:
        from mmr import __version__

        sys.stdout.write(__version__ + "\n")
        raise typer.Exit(0)


def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True,
                     callback=_print_version),
    ] = False,
) -> None:
    """mmr: one diff, several independent AI reviewers, one gated verdict."""


def help_command(
    ctx: typer.Context,
    command: Annotated[
        list[str] | None,
        typer.Argument(metavar="COMMAND", show_default=False, help="A command to describe."),
    ] = None,
) -> int:
    """Print help for mmr, or for one command."""
    root = ctx.find_root().command
    resolved = resolve(root, command or [])
    if resolved.rest:
        from mmr.cli.argv import unknown
        from mmr.cli.errors import usage_error
        from mmr.cli.introspect import leaf, visible_commands

        problem = unknown("command", resolved.rest[0], visible_commands(leaf(root, resolved)))
        # `mmr help jobs lst`: the commands it could have meant are under `mmr jobs --help`.
        return usage_error(resolved.names, str(problem))
    sys.stdout.write(help_text(root, Resolved(resolved.path, ())) + "\n")
    return 0


def new_root_app() -> typer.Typer:
    """The root group with ``--version`` and the hidden ``help`` command, and no commands."""
    root = typer.Typer(
        name="mmr",
        cls=MmrRootGroup,
        epilog="Run `mmr <command> --help` for the options of one command.",
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )
    root.callback()(_root)
    root.command("help", hidden=True)(help_command)
    return root


def add_command(root: typer.Typer, target: typer.Typer | Callable[..., Any], name: str) -> None:
    """Register a command function, or a sub-command app, as ``mmr <name>``."""
    if isinstance(target, typer.Typer):
        root.add_typer(target, name=name)
    else:
        root.command(name)(target)


def _register(root: typer.Typer) -> None:
    """Every implemented top-level command, in :data:`COMMAND_ORDER` (``explore`` last).

    To add one: import its module here and add a row below.
    """
    from mmr.cli import (
        ack_cmd,
        commands_cmd,
        comment_cmd,
        config_cmd,
        critique_cmd,
        doctor_cmd,
        explain_cmd,
        explore_cmd,
        hot_commands,
        jobs_cmd,
        sessions_cmd,
        skill_cmd,
        status_cmd,
    )

    commands: list[tuple[str, typer.Typer | Callable[..., Any]]] = [
        ("review", hot_commands.typer_command("review")),
        ("critique", critique_cmd.critique),
        ("status", status_cmd.status),
        ("results", hot_commands.typer_command("results")),
        ("config", config_cmd.app),
        ("doctor", doctor_cmd.doctor),
        ("jobs", jobs_cmd.app),
        ("reconcile", hot_commands.typer_command("reconcile")),
        ("sessions", sessions_cmd.app),
        ("ack", ack_cmd.app),
        ("skill", skill_cmd.skill),
        ("commands", commands_cmd.commands),
        ("explain", explain_cmd.explain),
        ("comment", comment_cmd.comment),
        ("explore", explore_cmd.explore),
    ]
    for name, target in commands:
        add_command(root, target, name)


app = new_root_app()
_register(app)
