"""The ``mmr`` typer application: the root group, ``help``, and the registered commands.

Every command line takes one route: :func:`mmr.cli.dispatch.run` checks it against the
command's grammar, then typer (Click) converts the values and calls the command function.
A help request prints typer's help text of the command it names, as ``mmr help`` does.

Adding a command
----------------
1. Write ``src/mmr/cli/<command>_cmd.py`` defining ``def <command>(*, ...) -> int`` with
   typer ``Annotated`` options, keyword-only (many positional parameters trip ruff). Render
   with :mod:`mmr.formatters`, write with :func:`mmr.cli.output.write_report`, and return
   the exit code. Raise :class:`mmr.errors.UsageError` for a bad flag combination (the
   message, then ``Try 'mmr <command> --help'``, exit 1) and other
   :class:`mmr.errors.MmrError` subclasses for everything else (one line, their code).
   A command with sub-commands builds its app with :func:`mmr.cli.groups.command_group`.
2. Add it to :data:`COMMANDS` below, in the order ``mmr --help`` lists it.

Imports
-------
Building this app imports every command module, and ``mmr --help`` or ``mmr review --help``
needs nothing more. The core a command runs is another matter: its modules build the
pydantic models of the config, findings and jobs as they load. With every command module
importing its core at the top, ``mmr review --help`` took 0.47 s instead of 0.13 s (medians
of 9 runs). So a command module imports at its top only what declares the command (typer,
``mmr.cli``, ``mmr.errors``, ``mmr.log``, ``mmr.vocabulary``, ``mmr.config.paths`` and other
modules that load neither pydantic nor yaml), and the command function imports the core it
runs. ``tests/unit/cli/test_entrypoint.py`` fails when ``--help`` loads pydantic or yaml.

Array options (``list[str]``) are greedy, as MMR 4.0.1's are (``--channels a b``); comma
splitting, where a flag allows it, is the command's business.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from mmr.cli import (
    ack_cmd,
    commands_cmd,
    comment_cmd,
    config_cmd,
    critique_cmd,
    demo_cmd,
    doctor_cmd,
    explain_cmd,
    explore_cmd,
    jobs_cmd,
    results_cmd,
    review_cmd,
    sessions_cmd,
    skill_cmd,
    status_cmd,
)
from mmr.cli.argv import unknown
from mmr.cli.errors import usage_error
from mmr.cli.groups import MmrGroup
from mmr.cli.introspect import Resolved, help_text, leaf, resolve, visible_commands

#: Every top-level command, in MMR 4.0.1's order (``mmr --help`` lists them so); mmr's own
#: commands (``explore``, ``demo``) follow.
COMMANDS: dict[str, typer.Typer | Callable[..., Any]] = {
    "review": review_cmd.review,
    "critique": critique_cmd.critique,
    "status": status_cmd.status,
    "results": results_cmd.results,
    "config": config_cmd.app,
    "doctor": doctor_cmd.doctor,
    "jobs": jobs_cmd.app,
    "reconcile": results_cmd.reconcile,
    "sessions": sessions_cmd.app,
    "ack": ack_cmd.app,
    "skill": skill_cmd.skill,
    "commands": commands_cmd.commands,
    "explain": explain_cmd.explain,
    "comment": comment_cmd.comment,
    "explore": explore_cmd.explore,
    "demo": demo_cmd.demo,
}


class MmrRootGroup(MmrGroup):
    """The root group; lists commands in :data:`COMMANDS` order, whatever their kind.

    (typer keeps plain commands and sub-command apps apart, which would list every
    group after every plain command.)
    """

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: index for index, name in enumerate(COMMANDS)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))


def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")]
    = False,
) -> None:
    """mmr: one diff, several independent AI reviewers, one gated verdict."""
    # `--version` anywhere before `--` is answered by mmr.cli.dispatch before Click parses.


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
    if isinstance(target, typer.Typer):
        root.add_typer(target, name=name)
    else:
        root.command(name)(target)


app = new_root_app()
for _name, _target in COMMANDS.items():
    add_command(app, _target, _name)
