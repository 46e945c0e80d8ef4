"""The typer commands ``review``, ``results`` and ``reconcile``, built from :mod:`mmr.cli.options`.

:func:`typer_command` gives typer a function whose signature it reads as if it were
written by hand — one keyword-only ``Annotated[type, typer.Option(...)]`` parameter per
row of the table — and whose call hands the values to the command's body by name. So
``--help``, Click's value conversion and the typer route's errors come from the same
table the fast route (:mod:`mmr.cli.fast_path`) parses with.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal, cast

import typer

from mmr.cli.options import COMMANDS, Param

_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool,
                          "list": list[str]}


def typer_command(name: str) -> Callable[..., int]:
    """The typer command function of hot command ``name`` (a key of ``COMMANDS``)."""
    command = COMMANDS[name]

    def run(**values: Any) -> int:
        from mmr.cli import bodies

        return cast(int, getattr(bodies, command.body)(**values))

    parameters = [
        inspect.Parameter(
            param.dest, inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if param.required else param.default,
            annotation=Annotated[_annotation(param), _parameter_info(param)],
        )
        for param in command.params
    ]
    run.__signature__ = inspect.Signature(parameters, return_annotation=int)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": int}
    run.__name__ = run.__qualname__ = name
    run.__doc__ = command.summary
    return run


def _annotation(param: Param) -> Any:
    base: Any = (cast(Any, Literal)[param.choices] if param.choices is not None
                 else _TYPES[param.kind])
    if param.kind == "bool" or param.required:
        return base
    return base | None


def _parameter_info(param: Param) -> Any:
    if param.flag is None:
        return typer.Argument(metavar=param.metavar, show_default=False, help=param.help)
    declaration = param.flag if param.negation is None else f"{param.flag}/{param.negation}"
    if param.required:
        return typer.Option(declaration, show_default=False, help=param.help)
    return typer.Option(declaration, help=param.help)
