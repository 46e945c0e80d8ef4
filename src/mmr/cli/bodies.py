"""The bodies of the commands that run hot (``review``, ``results``, ``reconcile``), free of typer.

Each typer command (:mod:`mmr.cli.review`, :mod:`mmr.cli.results_cmd`,
:mod:`mmr.cli.reconcile_cmd`) declares the options and hands them here by name; the
typer-free route of :mod:`mmr.cli.fast_path` calls the same function with the same
keyword arguments. So both routes run one body, and importing this module costs nothing:
the core is imported inside each function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmr.formatters import Format
    from mmr.models import Severity


def review_command(
    *, diff: str | None, pr: int | None, staged: bool, base: str | None, head: str | None,
    focus: str | None, fix_threshold: Severity | None, channels: list[str] | None,
    timeout: float | None, template: str | None, max_diff_lines: int | None,
    fmt: Format | None, sync: bool, dry_run: bool, compensate_missing: bool, quiet: bool,
    session: str | None, round_number: int | None, max_rounds: int | None,
    accept_new_acks: bool, trust_project_acks: bool, trust_project_config: bool,
    config_base_ref: str | None,
) -> int:
    """``mmr review``: run the review pipeline, print its document, return the exit code."""
    import sys
    from pathlib import Path

    from mmr.cli.output import use_color, write_notice, write_report
    from mmr.review.pipeline import ReviewIO, ReviewRequest, run_review
    from mmr.review.request import check_request

    request = ReviewRequest(
        diff=diff, pr=pr, staged=staged, base=base, head=head, focus=focus,
        fix_threshold=fix_threshold, channels=None if channels is None else tuple(channels),
        timeout=timeout, template=template, max_diff_lines=max_diff_lines, format=fmt,
        sync=sync, dry_run=dry_run, compensate_missing=compensate_missing, quiet=quiet,
        session=session, round=round_number, max_rounds=max_rounds,
        accept_new_acks=accept_new_acks, trust_project_acks=trust_project_acks,
        trust_project_config=trust_project_config, config_base_ref=config_base_ref,
    )
    check_request(request)  # usage errors print under the command's help, exit 1
    progress = None
    if not quiet:  # (the display module is not even imported for --quiet)
        from mmr.review.progress import progress_for

        progress = progress_for(sys.stderr, quiet=False, color=use_color(sys.stderr))
    io = ReviewIO(cwd=Path.cwd(), notice_sink=write_notice, progress=progress)
    outcome = run_review(request, io)
    if outcome.document:  # an empty rdjsonl document is no lines at all, not a blank line
        write_report(outcome.document)
    return outcome.exit_code


def results_command(*, job_id: str, fmt: Format | None, raw: bool) -> int:
    """``mmr results``: re-run the results pipeline of a job, print its verdict."""
    from mmr.cli.output import write_report
    from mmr.config.paths import jobs_dir
    from mmr.review.job_verdict import job_verdict
    from mmr.store.jobs import JobStore

    outcome = job_verdict(JobStore(jobs_dir()), job_id, fmt=fmt, include_raw=raw)
    if outcome.document:  # an rdjsonl document without findings is empty: print nothing
        write_report(outcome.document)
    return outcome.exit_code


def reconcile_command(*, job_id: str, channel: str, source: str, fmt: Format | None) -> int:
    """``mmr reconcile``: fold external findings into a job, print the new verdict."""
    from mmr.cli.output import write_report
    from mmr.config.paths import jobs_dir
    from mmr.review.job_verdict import reconcile_external
    from mmr.store.jobs import JobStore

    outcome = reconcile_external(JobStore(jobs_dir()), job_id, channel=channel, source=source,
                                 fmt=fmt)
    if outcome.document:  # an rdjsonl document without findings is empty: print nothing
        write_report(outcome.document)
    return outcome.exit_code
