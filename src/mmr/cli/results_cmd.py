"""``mmr results`` and ``mmr reconcile``: a finished job's verdict, printed again or with
outside findings folded in.

``results`` re-runs parse → reconcile → acks → verdict on the stored channel outputs,
overwrites the job's ``results.json`` and exits with the verdict's code: 0 pass /
degraded-pass, 2 blocked, 3 needs-user-decision; 5 for an unknown job.

``reconcile`` folds an outside reviewer's findings (an agent, a linter) into a finished
job as one more channel, then prints the new verdict and exits with its code. ``--input``
is a file, ``-`` (stdin) or inline JSON: a ``{"findings": [...]}`` object or a bare array
of findings. Exit 5: unknown job, invalid or duplicate channel name, input not found or
invalid (the message names the failing finding).

A job still running (a fire-and-forget review) is waited for by both, with a heartbeat on
stderr every 30 s, up to ``--wait-timeout``; ``--no-wait`` (or the timeout) exits 6 with
the channels still running. The core is imported when a command runs (see "Imports" in
:mod:`mmr.cli.app`).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mmr.cli.output import is_terminal, write_report
from mmr.config.paths import jobs_dir
from mmr.vocabulary import Format

JobId = Annotated[str, typer.Argument(
    metavar="JOB_ID", show_default=False, help="The job id, e.g. mmr-3f2a9c1b7d04.")]
JobFormat = Annotated[Format | None, typer.Option(
    "--format",
    help="Output format (default: the job's format, else text on a terminal and json "
         "otherwise).")]
WaitTimeout = Annotated[float | None, typer.Option(
    "--wait-timeout",
    help="Seconds to wait for a running job (default: its longest channel timeout, twice).")]
NoWait = Annotated[bool, typer.Option(
    "--no-wait", help="Answer at once: exit 6 while the job's channels are still running.")]


def results(
    *,
    job_id: JobId,
    fmt: JobFormat = None,
    raw: Annotated[bool, typer.Option("--raw", help="Include each channel's raw output.")]
    = False,
    wait_timeout: WaitTimeout = None,
    no_wait: NoWait = False,
) -> int:
    """Get the reconciled results of a review job."""
    from mmr.review.job_verdict import job_verdict
    from mmr.store.jobs import JobStore

    outcome = job_verdict(JobStore(jobs_dir()), job_id, fmt=fmt, include_raw=raw,
                          wait=not no_wait, wait_timeout=wait_timeout,
                          terminal=is_terminal(sys.stdout))
    if outcome.document:  # an rdjsonl document without findings is empty: print nothing
        write_report(outcome.document)
    return outcome.exit_code


def reconcile(
    *,
    job_id: JobId,
    channel: Annotated[str, typer.Option(
        "--channel", show_default=False,
        help="Name for the injected channel (letters, digits, . _ -; lower-cased).")],
    source: Annotated[str, typer.Option(
        "--input", show_default=False,
        help="Findings: a file, - for stdin, or inline JSON (object with findings, or array).")],
    fmt: JobFormat = None,
    wait_timeout: WaitTimeout = None,
    no_wait: NoWait = False,
) -> int:
    """Inject external findings into a job and re-reconcile."""
    from mmr.review.job_verdict import reconcile_external
    from mmr.store.jobs import JobStore

    outcome = reconcile_external(JobStore(jobs_dir()), job_id, channel=channel, source=source,
                                 fmt=fmt, wait=not no_wait, wait_timeout=wait_timeout,
                                 terminal=is_terminal(sys.stdout))
    if outcome.document:  # an rdjsonl document without findings is empty: print nothing
        write_report(outcome.document)
    return outcome.exit_code
