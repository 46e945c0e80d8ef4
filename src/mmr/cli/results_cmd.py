"""``mmr results <job-id> [--format F] [--raw]``: a finished job's verdict (spec ch. 04 §7.9).

Re-runs parse → reconcile → acks → verdict on the stored channel outputs, overwrites the
job's ``results.json`` and exits with the verdict's code: 0 pass / degraded-pass,
2 blocked, 3 needs-user-decision; 1 while channels are still running (a fire-and-forget
review's worker may still be at work; poll ``mmr status``); 5 for an unknown job.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mmr.formatters import Format


def results(
    *,
    job_id: Annotated[str, typer.Argument(
        metavar="JOB_ID", show_default=False, help="The job id, e.g. mmr-3f2a9c1b7d04.")],
    fmt: Annotated[Format | None, typer.Option(
        "--format", help="Output format (default: the job's format, else json).")] = None,
    raw: Annotated[bool, typer.Option(
        "--raw", help="Include each channel's raw output.")] = False,
) -> int:
    """Get the reconciled results of a review job."""
    from mmr.cli.bodies import results_command

    return results_command(job_id=job_id, fmt=fmt, raw=raw)
