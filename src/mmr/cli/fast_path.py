"""The typer-free route for the commands that run hot: ``review``, ``results``, ``reconcile``.

Building typer's Click tree and its pydantic adapter for every option costs well over
100 ms a run — a fifth of the reference's whole fan-out overhead. For these commands
:func:`fast_command` reads a command line with the same grammar
(:func:`mmr.cli.argv.normalise`, fed the :class:`~mmr.cli.argv.CommandSpec` of the option
table :mod:`mmr.cli.options`, from which the typer command is built too), converts each
value as typer would, and :func:`run_fast` calls the same body (:mod:`mmr.cli.bodies`).

It only takes command lines it is sure of. ``--help``, ``--version`` and any value whose
conversion it does not reproduce exactly (``--pr " 5"``, ``--timeout 1e3``) make
:func:`fast_command` return None, and the caller takes the typer route, which prints the
help, the error or the value as it always has. A line the grammar rejects gets the
usage error both routes print (:func:`mmr.cli.errors.usage_error`), without typer. A unit
test compares each table's spec with typer's and the values with what typer passes.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TextIO, cast

from mmr.cli.argv import ArgvError, normalise
from mmr.cli.options import COMMANDS, HotCommand, Kind, Param
from mmr.errors import UsageError
from mmr.vocabulary import EXIT_INTERRUPTED

#: Values converted here; others go the typer route (pydantic also takes " 5", "5.0", "1e3").
_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")


def fast_command(args: Sequence[str]) -> Callable[[], Any] | None:
    """The body call ``args`` (without the program name) ask for, or None for the typer route.

    Nothing runs here: the returned callable does the work.
    """
    if not args or args[0] not in COMMANDS:
        return None
    command = COMMANDS[args[0]]
    tokens = list(args[1:])
    options_part = tokens[: tokens.index("--")] if "--" in tokens else tokens
    if "--help" in options_part or "--version" in options_part:
        return None
    try:
        argv = normalise(tokens, command.spec)
    except ArgvError as exc:
        return partial(_refuse, str(exc))
    kwargs = _kwargs(command, argv)
    if kwargs is None:
        return None
    from mmr.cli import bodies

    return partial(getattr(bodies, command.body), **kwargs)


def _refuse(message: str) -> int:
    raise UsageError(message)


def _kwargs(command: HotCommand, argv: list[str]) -> dict[str, Any] | None:
    """Keyword arguments from a normalised argv, as typer would pass them; None if unsure."""
    by_spelling: dict[str, tuple[Param, bool]] = {}
    for param in command.params:
        if param.flag is not None:
            by_spelling[param.flag] = (param, True)
            if param.negation:
                by_spelling[param.negation] = (param, False)
    kwargs = {p.dest: p.default for p in command.params}
    index = 0
    while index < len(argv) and argv[index] != "--":
        param, positive = by_spelling[argv[index]]
        index += 1
        if param.kind == "bool":
            kwargs[param.dest] = positive
            continue
        value = _convert(param.kind, argv[index])
        index += 1
        if value is None:
            return None
        if param.kind == "list":
            kwargs[param.dest] = [*(kwargs[param.dest] or []), value]
        else:
            kwargs[param.dest] = value  # a repeated option: the last one wins, as in Click
    positionals = iter(argv[index + 1:])
    for param in command.params:
        if param.flag is None:
            kwargs[param.dest] = next(positionals)
    return kwargs


def _convert(kind: Kind, text: str) -> Any:
    if kind in ("str", "list"):
        return text
    if kind == "int":
        return int(text) if _INT.fullmatch(text) else None
    return float(text) if _FLOAT.fullmatch(text) else None


def run_fast(call: Callable[[], Any], args: Sequence[str]) -> int:
    """Run a body as the typer route would (``mmr.cli.dispatch``): same errors, same codes."""
    try:
        result = call()
    except UsageError as exc:
        from mmr.cli.errors import usage_error

        return usage_error(args[:1], str(exc))
    except EOFError:  # typer prints an empty line, then aborts
        from mmr.log import stderr_line

        stderr_line("\nmmr: error: aborted")
        return 1
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:
        import errno

        if exc.errno != errno.EPIPE:
            raise
        from typer._click.utils import PacifyFlushWrapper

        sys.stdout = cast(TextIO, PacifyFlushWrapper(sys.stdout))
        sys.stderr = cast(TextIO, PacifyFlushWrapper(sys.stderr))
        raise SystemExit(1) from None
    if isinstance(result, bool) or not isinstance(result, int):
        return 0
    return result
