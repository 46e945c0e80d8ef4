"""``mmr comment --pr N (--job JOB | --results FILE)``: one sticky pull-request comment.

The markdown report is posted through ``gh`` as one comment, marked with a hidden
fingerprint, and edited in place on later runs; findings that went away since the last
run are listed as resolved. Prints ``{"action": "created"|"updated", "comment_id", "url",
"resolved"}``; exit 0, or 1 with one line when ``gh`` cannot read or write the comments.
The comment core is imported when the command runs (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mmr.cli.output import write_report
from mmr.errors import UsageError


def comment(
    *,
    pr: Annotated[int, typer.Option(
        "--pr", show_default=False, help="The pull request to comment on.")],
    job: Annotated[str | None, typer.Option(
        "--job", show_default=False, help="The review job whose verdict to post.")] = None,
    results: Annotated[str | None, typer.Option(
        "--results", show_default=False,
        help="A verdict document saved from `mmr review --format json` (instead of --job).",
    )] = None,
) -> int:
    """Post or update the one sticky pull-request comment with a review's report."""
    from mmr.comment.source import load_results
    from mmr.comment.sticky import post_sticky
    from mmr.formatters.json import dumps

    if pr < 1:
        raise UsageError("--pr must be a pull request number >= 1")
    outcome = post_sticky(load_results(job=job, results_file=results), pr, Path.cwd())
    write_report(dumps(outcome.to_json()))
    return 0
