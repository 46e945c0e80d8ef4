"""What both wrapper commands share: an argparse parser that exits 1, the sub-session
flags both original scripts define alike, and the entry point's parse-then-guard sequence.

The original scripts reserve exit 2 and 3 for "MiniMax failed" and "failed the gate", so a
usage error must not exit 2 as argparse's does by default.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from mmr.cli.errors import guard
from mmr.errors import MmrError
from mmr.log import stderr_line

USAGE_EXIT = 1
DEFAULT_MAX_TURNS = 40
DEFAULT_TIMEOUT_S = 540


class WrapperArgumentParser(argparse.ArgumentParser):
    """``argparse`` with usage errors on exit 1 and no abbreviated long options."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=prog, description=description, allow_abbrev=False)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_EXIT, f"{self.prog}: error: {message}\n")


def add_budget_flags(parser: argparse.ArgumentParser) -> None:
    """``--max-turns`` and ``--timeout``, with the defaults both original scripts give them."""
    parser.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, metavar="N",
                        help=f"sub-session turn cap (default {DEFAULT_MAX_TURNS})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECS",
                        help=f"internal timeout in seconds (default {DEFAULT_TIMEOUT_S})")


def add_model_flags(parser: argparse.ArgumentParser, *, m3_help: str, default_effort: str) -> None:
    """``--m3`` (the bigger model) and ``--effort`` (its thinking depth)."""
    parser.add_argument("--m3", action="store_true", help=m3_help)
    parser.add_argument("--effort", metavar="LEVEL",
                        help=f"thinking depth low|medium|high|xhigh|max (default {default_effort})")


def run_wrapper(parser: argparse.ArgumentParser, action: Callable[[argparse.Namespace], int],
                argv: Sequence[str] | None) -> int:
    """A wrapper's ``main``: parse ``argv`` (default: the process's own arguments), then run
    ``action`` on the namespace; its exit code. An :class:`~mmr.errors.MmrError` is
    ``<prog>: error: <message>`` and its exit code (1); Ctrl-C, a closed pipe and crashes go
    to mmr's own boundary."""
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # parsing ended the run: --help (0) or a usage error
        return exc.code if isinstance(exc.code, int) else USAGE_EXIT

    def inner() -> int:
        try:
            return action(args)
        except MmrError as exc:
            stderr_line(f"{parser.prog}: error: {exc}")
            return exc.exit_code

    return guard(inner, list(sys.argv[1:] if argv is None else argv))
