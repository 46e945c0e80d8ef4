"""``mmr demo``: a verdict with nothing installed.

Runs the real review pipeline on a bundled example change with three recorded reviewer
replies (:mod:`mmr.review.demo`), prints the text report between a line saying it is a
demo and the next steps, and exits 0 when the pipeline reached the recorded verdict.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mmr.cli.output import use_color, write_report
from mmr.log import stderr_line


def demo() -> int:
    """Show a full review of a bundled example, offline, with no reviewer installed."""
    from mmr.review.demo import run_demo
    from mmr.review.progress import progress_for
    from mmr.review.run import ReviewIO

    progress = progress_for(sys.stderr, quiet=False, color=use_color(sys.stderr))
    outcome = run_demo(ReviewIO(cwd=Path.cwd(), notice_sink=stderr_line, progress=progress))
    write_report(outcome.document)
    return outcome.exit_code
