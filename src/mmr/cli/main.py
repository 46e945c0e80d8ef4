"""Console entry point: the command line, inside the error boundary."""

from __future__ import annotations

import os
import sys

from mmr.cli.completion import COMPLETE_VAR, complete
from mmr.cli.dispatch import run
from mmr.cli.errors import guard


def main(argv: list[str] | None = None) -> int:
    """Run mmr with ``argv`` (default: the process arguments) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if os.environ.get(COMPLETE_VAR):  # a shell asking for completions
        return complete(os.environ)
    return guard(lambda: run(args), args)


if __name__ == "__main__":
    raise SystemExit(main())
