"""``mmr reconcile <job-id> --channel NAME --input SRC [--format F]`` (spec ch. 04 §7.10).

Folds an outside reviewer's findings (an agent, a linter) into a finished job as one more
channel, then prints the new verdict and exits with its code. ``--input`` is a file, ``-``
(stdin) or inline JSON: a ``{"findings": [...]}`` object or a bare array of findings.
Exit 5: unknown job, invalid or duplicate channel name, input not found or invalid (the
message names the failing finding); exit 1 while the job's channels are still running.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mmr.formatters import Format


def reconcile(
    *,
    job_id: Annotated[str, typer.Argument(
        metavar="JOB_ID", show_default=False, help="The job id, e.g. mmr-3f2a9c1b7d04.")],
    channel: Annotated[str, typer.Option(
        "--channel", show_default=False,
        help="Name for the injected channel (letters, digits, . _ -; lower-cased).")],
    source: Annotated[str, typer.Option(
        "--input", show_default=False,
        help="Findings: a file, - for stdin, or inline JSON (object with findings, or array).")],
    fmt: Annotated[Format | None, typer.Option(
        "--format", help="Output format (default: the job's format, else json).")] = None,
) -> int:
    """Inject external findings into a job and re-reconcile."""
    from mmr.cli.bodies import reconcile_command

    return reconcile_command(job_id=job_id, channel=channel, source=source, fmt=fmt)
