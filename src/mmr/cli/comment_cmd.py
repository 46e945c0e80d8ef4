"""``mmr comment --pr N (--job JOB | --results FILE) [--inline]``: one sticky pull-request comment.

The markdown report is posted through ``gh`` as one comment, marked with a hidden
fingerprint, and edited in place on later runs; findings that went away since the last
run are listed as resolved. Prints ``{"action": "created"|"updated", "comment_id", "url",
"resolved"}``; exit 0, or 1 with one line when ``gh`` cannot read or write the comments.
``--inline`` also posts the findings not posted before as one review with a comment at
each one's line, resolves the threads of fixed findings, and adds ``"review": {…}``.
The comment core is imported when the command runs (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mmr.cli.output import write_json
from mmr.errors import MmrError, UsageError


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
    inline: Annotated[bool, typer.Option(
        "--inline", help="Also comment on each finding's line in one pull-request review.",
    )] = False,
    max_inline: Annotated[int | None, typer.Option(
        "--max-inline", show_default=False,
        help="Most inline comments in one run (default: defaults.max_inline_comments).",
    )] = None,
) -> int:
    """Post or update the one sticky pull-request comment with a review's report."""
    from mmr.comment.inline import post_inline
    from mmr.comment.source import load_results
    from mmr.comment.sticky import post_sticky
    from mmr.config.loader import load_config
    from mmr.config.paths import find_project_root

    if pr < 1:
        raise UsageError("--pr must be a pull request number >= 1")
    if max_inline is not None and (max_inline < 0 or not inline):
        raise UsageError("--max-inline takes a number >= 0, with --inline")
    verdict = load_results(job=job, results_file=results)
    outcome = post_sticky(verdict, pr, Path.cwd()).to_json()
    if inline:
        if max_inline is None:
            # The user's config only: in CI the work tree is the pull request's own branch,
            # which must not raise the cap on comments posted about it.
            loaded = load_config(find_project_root(), project_source=None)
            max_inline = loaded.config.defaults.max_inline_comments
        try:
            outcome["review"] = post_inline(verdict, pr, Path.cwd(), max_inline).to_json()
        except MmrError as exc:  # the sticky comment is posted: say so before failing
            write_json(outcome | {"review": {"error": str(exc)}})
            raise
    return write_json(outcome)
