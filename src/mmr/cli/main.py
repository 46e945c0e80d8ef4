"""Console entry point: a fast ``--version``, then the command line inside the error boundary."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run mmr with ``argv`` (default: the process arguments) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        # Fast path: no typer/pydantic import, so `mmr --version` starts in a few ms.
        from mmr import __version__

        sys.stdout.write(__version__ + "\n")
        return 0
    import os

    from mmr.cli.completion import complete, completion_requested

    if completion_requested(os.environ):
        return complete(os.environ)
    from mmr.cli.dispatch import run
    from mmr.cli.errors import guard

    return guard(lambda: run(args), args)


if __name__ == "__main__":
    raise SystemExit(main())
