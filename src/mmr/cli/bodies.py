"""The bodies of the commands that run hot (``review``, ``results``, ``reconcile``), free of typer.

Their options are declared once, in :mod:`mmr.cli.options`; each body takes one keyword
per row. The typer command built from the table (:mod:`mmr.cli.hot_commands`) and the
typer-free route of :mod:`mmr.cli.fast_path` both call the body here with the same
keyword arguments. So both routes run one body, and importing this module costs nothing:
the core is imported inside each function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmr.vocabulary import Format, Severity


def review_command(
    *, diff: str | None, pr: int | None, staged: bool, base: str | None, head: str | None,
    focus: str | None, fix_threshold: Severity | None, channels: list[str] | None,
    timeout: float | None, template: str | None, max_diff_lines: int | None,
    fmt: Format | None, sync: bool, dry_run: bool, compensate_missing: bool, quiet: bool,
    no_cache: bool, session: str | None, round_number: int | None, max_rounds: int | None,
    accept_new_acks: bool, trust_project_acks: bool, trust_project_config: bool,
    config_base_ref: str | None,
) -> int:
    """``mmr review``: run the review pipeline, print its document, return the exit code.

    Everything the command does lives in :mod:`mmr.review.pipeline`; this turns the
    options into a :class:`~mmr.review.request.ReviewRequest`, wires stderr (notices and
    progress) and stdout (the report, written in full), and returns the exit code.
    """
    import sys
    from pathlib import Path

    from mmr.cli.output import use_color, write_report
    from mmr.log import stderr_line
    from mmr.review.pipeline import ReviewIO, ReviewRequest, run_review
    from mmr.review.request import check_request

    request = ReviewRequest(
        diff=diff, pr=pr, staged=staged, base=base, head=head, focus=focus,
        fix_threshold=fix_threshold, channels=None if channels is None else tuple(channels),
        timeout=timeout, template=template, max_diff_lines=max_diff_lines, format=fmt,
        sync=sync, dry_run=dry_run, compensate_missing=compensate_missing, quiet=quiet,
        no_cache=no_cache, session=session, round=round_number, max_rounds=max_rounds,
        accept_new_acks=accept_new_acks, trust_project_acks=trust_project_acks,
        trust_project_config=trust_project_config, config_base_ref=config_base_ref,
    )
    check_request(request)  # usage errors print under the command's help, exit 1
    progress = None
    if not quiet:  # (the display module is not even imported for --quiet)
        from mmr.review.progress import progress_for

        progress = progress_for(sys.stderr, quiet=False, color=use_color(sys.stderr))
    io = ReviewIO(cwd=Path.cwd(), notice_sink=stderr_line, progress=progress)
    outcome = run_review(request, io)
    if outcome.document:  # an empty rdjsonl document is no lines at all, not a blank line
        write_report(outcome.document)
    return outcome.exit_code


def results_command(*, job_id: str, fmt: Format | None, raw: bool,
                    wait_timeout: float | None = None, no_wait: bool = False) -> int:
    """``mmr results <job-id> [--format F] [--raw]``: a finished job's verdict (spec ch. 04 §7.9).

    Re-runs parse → reconcile → acks → verdict on the stored channel outputs, overwrites
    the job's ``results.json`` and exits with the verdict's code: 0 pass / degraded-pass,
    2 blocked, 3 needs-user-decision; 5 for an unknown job. A job still running (a
    fire-and-forget review) is waited for, with a heartbeat on stderr every 30 s, up to
    ``--wait-timeout``; ``--no-wait`` (or the timeout) exits 6 with the channels still
    running.
    """
    from mmr.cli.output import write_report
    from mmr.config.paths import jobs_dir
    from mmr.review.job_verdict import job_verdict
    from mmr.store.jobs import JobStore

    outcome = job_verdict(JobStore(jobs_dir()), job_id, fmt=fmt, include_raw=raw,
                          wait=not no_wait, wait_timeout=wait_timeout)
    if outcome.document:  # an rdjsonl document without findings is empty: print nothing
        write_report(outcome.document)
    return outcome.exit_code


def reconcile_command(*, job_id: str, channel: str, source: str, fmt: Format | None,
                      wait_timeout: float | None = None, no_wait: bool = False) -> int:
    """``mmr reconcile <job-id> --channel NAME --input SRC`` (spec ch. 04 §7.10).

    Folds an outside reviewer's findings (an agent, a linter) into a finished job as one
    more channel, then prints the new verdict and exits with its code. ``--input`` is a
    file, ``-`` (stdin) or inline JSON: a ``{"findings": [...]}`` object or a bare array
    of findings. Exit 5: unknown job, invalid or duplicate channel name, input not found
    or invalid (the message names the failing finding). A running job is waited for as
    ``mmr results`` does (``--wait-timeout``, ``--no-wait``: exit 6).
    """
    from mmr.cli.output import write_report
    from mmr.config.paths import jobs_dir
    from mmr.review.job_verdict import reconcile_external
    from mmr.store.jobs import JobStore

    outcome = reconcile_external(JobStore(jobs_dir()), job_id, channel=channel, source=source,
                                 fmt=fmt, wait=not no_wait, wait_timeout=wait_timeout)
    if outcome.document:  # an rdjsonl document without findings is empty: print nothing
        write_report(outcome.document)
    return outcome.exit_code
