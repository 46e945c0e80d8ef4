"""What a review covered (issue 13): the diff's size, and what each channel did not see."""

from __future__ import annotations

from mmr.models import ChannelCoverage, Coverage
from mmr.reconcile.anchoring import DiffScope
from mmr.review.channel_results import SKIP_REASON_TEXT
from mmr.store.records import JobRecord


def job_coverage(job: JobRecord, scope: DiffScope | None, diff_lines: int) -> Coverage:
    """Files and lines of the reviewed diff, the run-wide ``diff_exclude`` exclusions, each
    channel's own exclusions, and the channels that saw nothing because of the diff."""
    channels: dict[str, ChannelCoverage] = {}
    skipped: dict[str, str] = {}
    for name, entry in job.channels.items():
        excluded = (entry.model_extra or {}).get("excluded_files")
        if isinstance(excluded, list) and excluded:
            channels[name] = ChannelCoverage(excluded_files=[str(p) for p in excluded])
        if entry.status == "skipped" and entry.reason in SKIP_REASON_TEXT:
            skipped[name] = entry.reason
    return Coverage(
        files=len(scope.touched) if scope else 0,
        lines_added=scope.added if scope else 0,
        lines_removed=scope.removed if scope else 0,
        diff_lines=diff_lines,
        excluded_files=list(job.excluded_files or []),
        channels=channels,
        skipped_channels=skipped,
    )
