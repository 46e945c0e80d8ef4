"""``mmr review``: turn the options into a review request, run it, print the verdict.

Everything the command does lives in :mod:`mmr.review.pipeline`; this turns the options
into a :class:`~mmr.review.request.ReviewRequest`, wires stderr (notices and progress) and
stdout (the report, written in full), and returns the exit code. The pipeline is imported
when the command runs (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mmr.cli.output import is_terminal, use_color, write_report
from mmr.log import stderr_line
from mmr.vocabulary import Format, Severity


def review(
    *,
    diff: Annotated[str | None, typer.Option(
        "--diff", help="Review this diff file; - reads standard input.")] = None,
    pr: Annotated[int | None, typer.Option(
        "--pr", help="Review pull request N (gh pr diff); after its first review, only "
                     "what changed since the last one.")] = None,
    full: Annotated[bool, typer.Option(
        "--full", help="With --pr: review the whole pull request again.")] = False,
    staged: Annotated[bool, typer.Option(
        "--staged", help="Review staged changes (git diff --cached).")] = False,
    base: Annotated[str | None, typer.Option(
        "--base", help="Review BASE...HEAD (since the merge base).")] = None,
    head: Annotated[str | None, typer.Option(
        "--head", help="The head ref for --base (default HEAD).")] = None,
    focus: Annotated[str | None, typer.Option(
        "--focus", help="Extra focus areas for the reviewers.")] = None,
    fix_threshold: Annotated[Severity | None, typer.Option(
        "--fix-threshold", help="Findings at or above this severity block (default P2).")
    ] = None,
    channels: Annotated[list[str] | None, typer.Option(
        "--channels", help="Channels to dispatch (space- or comma-separated).")] = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", help="Seconds each channel may run (wins over channel timeouts).")] = None,
    template: Annotated[str | None, typer.Option(
        "--template", help="Add the criteria of config template NAME.")] = None,
    max_diff_lines: Annotated[int | None, typer.Option(
        "--max-diff-lines", help="Refuse a diff longer than N lines.")] = None,
    fmt: Annotated[Format | None, typer.Option(
        "--format",
        help="Output format of the verdict (default: defaults.format, else text on a "
             "terminal and json otherwise).")
    ] = None,
    sync: Annotated[bool, typer.Option(
        "--sync/--no-sync", help="Wait for the verdict and exit with its code.")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print each channel's prompt and auth check; dispatch nothing.")
    ] = False,
    compensate_missing: Annotated[bool, typer.Option(
        "--compensate-missing", help="Also compensate channels that are not installed.")
    ] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", help="No per-channel progress on stderr.")] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Run every channel again, even when a cached reply would be reused.")
    ] = False,
    session: Annotated[str | None, typer.Option(
        "--session", help="Link the review to session ID.")] = None,
    round_number: Annotated[int | None, typer.Option(
        "--round", help="The round number within the session (default 1).")] = None,
    max_rounds: Annotated[int | None, typer.Option(
        "--max-rounds", help="Round cap (default loop_control.max_rounds_default).")] = None,
    accept_new_acks: Annotated[bool, typer.Option(
        "--accept-new-acks", help="Ratify acks the diff adds, and apply them.")] = False,
    trust_project_acks: Annotated[bool, typer.Option(
        "--trust-project-acks", help="Honour the working-tree .mmr/acks/.")] = False,
    trust_project_config: Annotated[bool, typer.Option(
        "--trust-project-config", help="Honour the working-tree .mmr.yaml.")] = False,
    config_base_ref: Annotated[str | None, typer.Option(
        "--config-base-ref", help="Read project config and acks from this git ref.")] = None,
) -> int:
    """Review a diff with several AI reviewers and gate on the reconciled findings."""
    from mmr.review.pipeline import ReviewIO, ReviewRequest, run_review
    from mmr.review.progress import progress_for
    from mmr.review.request import check_request

    request = ReviewRequest(
        diff=diff, pr=pr, full=full, staged=staged, base=base, head=head, focus=focus,
        fix_threshold=fix_threshold, channels=None if channels is None else tuple(channels),
        timeout=timeout, template=template, max_diff_lines=max_diff_lines, format=fmt,
        sync=sync, dry_run=dry_run, compensate_missing=compensate_missing, quiet=quiet,
        no_cache=no_cache, session=session, round=round_number, max_rounds=max_rounds,
        accept_new_acks=accept_new_acks, trust_project_acks=trust_project_acks,
        trust_project_config=trust_project_config, config_base_ref=config_base_ref,
    )
    check_request(request)  # a bad combination of options is a usage error (exit 1)
    progress = None if quiet else progress_for(sys.stderr, quiet=False,
                                               color=use_color(sys.stderr))
    outcome = run_review(request, ReviewIO(cwd=Path.cwd(), notice_sink=stderr_line,
                                           progress=progress, terminal=is_terminal(sys.stdout)))
    if outcome.document:  # an empty rdjsonl document is no lines at all, not a blank line
        write_report(outcome.document)
    return outcome.exit_code
