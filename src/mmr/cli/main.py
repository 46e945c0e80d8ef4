"""Console entry point: a fast ``--version``, then the command line inside the error boundary."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import NoReturn


def main(argv: list[str] | None = None) -> int:
    """Run mmr with ``argv`` (default: the process arguments) and return the exit code.

    Called without ``argv`` — as the console script and ``python -m mmr`` call it — it
    ends the process itself once the command is done (:func:`_exit_now`).
    """
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        gc.enable()
    if argv is None:
        _exit_now(code)
    return code


def _main(args: list[str]) -> int:
    if args == ["--version"]:
        # Fast path: no typer/pydantic import, so `mmr --version` starts in a few ms.
        from mmr import __version__

        sys.stdout.write(__version__ + "\n")
        return 0
    # No cyclic garbage collection until the command runs: start-up only defines modules
    # (nothing to collect), and the collector's passes over them cost the early start of
    # a review 5-9 ms. :func:`_run` turns it back on before the command's own work.
    gc.disable()
    from mmr.cli.completion import complete, completion_requested

    if completion_requested(os.environ):
        return complete(os.environ)
    from mmr.cli.errors import guard

    return guard(lambda: _run(args), args)


def _run(args: list[str]) -> int:
    # `--help` is typer's own text, rendered ahead of time (mmr.cli.static_help).
    from mmr.cli.static_help import static_help

    text = static_help(args)
    if text is not None:
        sys.stdout.write(text)
        return 0
    # The hot commands skip typer when their command line is plain (mmr.cli.fast_path).
    from mmr.cli.fast_path import fast_command, run_fast

    call = fast_command(args)
    if call is not None:
        gc.enable()
        return run_fast(call, args)
    gc.enable()
    from mmr.cli.dispatch import run

    return run(args)


def _exit_now(code: int) -> NoReturn:
    """End the process without the interpreter's finalisation.

    Tearing down some 450 modules and the pydantic validators takes 50-80 ms, longer than
    everything a review does after its last channel answers. mmr needs none of it: every
    file it writes is closed by then (atomic writes), no thread is left, and no atexit
    hook of its own exists. Only the standard streams may still hold buffered text.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(main())
