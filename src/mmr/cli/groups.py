"""Typer building blocks every command module uses, so all of them behave alike."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup


class MmrGroup(TyperGroup):
    """A command group whose usage line reads as MMR 4.0.1's: ``mmr <command> [options]``."""

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        formatter.write_usage(ctx.command_path, "<command> [options]")

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Each command's whole first sentence, wrapped: Click cuts it at the column width
        ("Review a diff … and gate on the..."), which says less than the sentence."""
        rows = [(name, command.get_short_help_str(limit=10_000))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def command_group(help_text: str) -> typer.Typer:
    """A typer app for a command with sub-commands (``mmr config``, ``mmr jobs`` …).

    Plain (non-rich) help keeps ``--help`` fast: rich is imported only where a command
    draws live progress.
    """
    return typer.Typer(
        cls=MmrGroup,
        help=help_text,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )
