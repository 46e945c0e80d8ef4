"""Read the Click command tree typer builds: which command a command line names, what its
options look like (as an :class:`~mmr.cli.argv.CommandSpec`), and its help text.

Only long-standing Click attributes are read (``commands``, ``params``, ``opts``,
``secondary_opts``, ``is_flag``, ``multiple``, ``nargs``, ``required``), so this works
whether typer vendors Click or depends on it.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import typer

from mmr.cli.argv import ArgumentSpec, CommandSpec, OptionSpec, looks_like_flag

#: A Click command (or group) as typer builds it.
ClickCommand = Any


@dataclass(frozen=True)
class Resolved:
    """The command a command line names: its path from the root, and the tokens after it."""

    path: tuple[tuple[str, ClickCommand], ...]
    rest: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.path]


def is_group(command: ClickCommand) -> bool:
    return isinstance(getattr(command, "commands", None), dict)


def resolve(root: ClickCommand, tokens: Sequence[str]) -> Resolved:
    """Follow sub-command names from ``root`` as far as they go."""
    path: list[tuple[str, ClickCommand]] = []
    command, index = root, 0
    while is_group(command) and index < len(tokens) and not looks_like_flag(tokens[index]):
        sub = command.commands.get(tokens[index])
        if sub is None:
            break
        path.append((tokens[index], sub))
        command, index = sub, index + 1
    return Resolved(tuple(path), tuple(tokens[index:]))


def visible_commands(group: ClickCommand) -> list[str]:
    """The sub-command names ``--help`` lists (did-you-mean candidates)."""
    return [name for name, sub in group.commands.items() if not getattr(sub, "hidden", False)]


def leaf(root: ClickCommand, resolved: Resolved) -> ClickCommand:
    return resolved.path[-1][1] if resolved.path else root


def help_text(root: ClickCommand, resolved: Resolved, prog_name: str = "mmr") -> str:
    """The ``--help`` text of the command ``resolved`` names."""
    ctx = typer.Context(root, info_name=prog_name)
    command = root
    for name, sub in resolved.path:
        ctx = typer.Context(sub, info_name=name, parent=ctx)
        command = sub
    return str(command.get_help(ctx))


def command_spec(command: ClickCommand) -> CommandSpec:
    """The grammar of one leaf command, read from its Click parameters."""
    options: list[OptionSpec] = []
    arguments: list[ArgumentSpec] = []
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument":
            arguments.append(
                ArgumentSpec(
                    name=param.name,
                    required=bool(param.required),
                    variadic=param.nargs == -1,
                    choices=choices_of(param),
                )
            )
            continue
        spellings = tuple(param.opts)
        is_switch = bool(getattr(param, "is_flag", False) or getattr(param, "count", False))
        options.append(
            OptionSpec(
                spellings=spellings,
                takes_value=not is_switch,
                # yargs array options are greedy; a list-typed typer option is one.
                greedy=bool(param.multiple) and not is_switch,
                choices=None if is_switch else choices_of(param),
                # An option that can come from the environment is not required on the line.
                required=bool(param.required) and not getattr(param, "envvar", None),
                negations=tuple(param.secondary_opts) if is_switch else (),
            )
        )
    return CommandSpec(options=tuple(options), arguments=tuple(arguments))


def choices_of(param: Any) -> tuple[str, ...] | None:
    """Allowed values of a parameter typed as a ``Literal``, an ``Enum`` or a Click ``Choice``."""
    click_choices = getattr(getattr(param, "type", None), "choices", None)
    if click_choices:
        return tuple(str(c) for c in click_choices)
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if typing.get_origin(annotation) in (list, tuple):
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(str(member.value) for member in annotation)
    return None
