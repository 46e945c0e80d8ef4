"""Plumbing shared by the ``mmr config`` sub-commands: positionals and refusals.

MMR 4.0.1 parses ``mmr config <action> [name] [target]`` itself, so each sub-command
takes its positionals as one hidden list and checks it here. A surplus or missing one is a
usage error like any other (``unexpected argument 'x'``, ``missing argument <value>``, then
``Try 'mmr config set --help'``); a refusal is one ``mmr: error:`` line. The core is
imported inside the functions that use it (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

import typer
from typer.core import TyperCommand

from mmr.cli.argv import ArgvError


class ConfigCommand(TyperCommand):
    """Usage reads as MMR 4.0.1's does: ``mmr config set [options] <dotted.path> <value>``."""

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        shapes = [str(param.metavar) for param in self.params
                  if getattr(param, "param_type_name", "") == "argument" and param.metavar]
        formatter.write_usage(ctx.command_path, " ".join(["[options]", *shapes]))


def positionals_argument(metavar: str) -> object:
    """The sub-command's positionals as one list (checked by hand); ``metavar`` for usage."""
    return typer.Argument(metavar=metavar, show_default=False, hidden=True)


def positionals(action: str, args: list[str] | None, allowed: int) -> list[str | None]:
    """``args`` padded with None to ``allowed``; one too many is refused."""
    given = list(args or [])
    if len(given) > allowed:
        unexpected(action, given[allowed])
    return [*given, *([None] * (allowed - len(given)))]


def unexpected(action: str, arg: str, meant: str = "") -> NoReturn:
    """A surplus positional of ``mmr config <action>`` (``meant``: what was likely meant)."""
    hint = f"; did you mean '{meant}'?" if meant else ""
    raise ArgvError(f"unexpected argument '{arg}'{hint}")


def missing(shape: str) -> NoReturn:
    """A missing positional, named by its ``shape`` in the usage line (``<dotted.path>``)."""
    raise ArgvError(f"missing argument {shape}")


def as_json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)

