"""What `mmr status` reports and what `mmr results`/`reconcile` require.

Pure functions over a loaded :class:`JobRecord` (the store has already merged status
files, derived the job status and swept a dead worker); the commands only print.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from mmr.errors import MmrError
from mmr.store.records import ChannelJobEntry, JobRecord, elapsed_ms
from mmr.vocabulary import EXIT_NOT_FOUND, EXIT_STILL_RUNNING

#: Statuses that make `mmr status` exit 2: a channel that failed or could not run, as
#: MMR 4.0.1 does (scripts use it). ``skipped`` was a choice, not a failure.
STATUS_FAILURES = frozenset({"failed", "timeout", "auth_failed", "not_installed"})


class ChannelsStillRunningError(MmrError):
    """`results`/`reconcile` on a job with unfinished channels (exit 6, two lines)."""

    exit_code = EXIT_STILL_RUNNING

    def __init__(self, running: list[str]) -> None:
        self.running = running
        super().__init__(
            f"Channels still running: {', '.join(running)}\n"
            "Wait for completion or use `mmr status` to check progress."
        )


class JobKindError(MmrError):
    """`results`/`reconcile` on a critique job, whose report a verdict would overwrite."""

    exit_code = EXIT_NOT_FOUND


def format_elapsed(ms: int | float) -> str:
    """Seconds with one decimal and ``s``, rounded like JavaScript's ``toFixed``.

    The exact binary value of ``ms / 1000`` is rounded half-up: 41,250 ms → ``41.3s``,
    but 150 ms → ``0.1s`` because 0.15 is stored just below the tie.
    """
    seconds = Decimal(ms / 1000).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return f"{seconds}s"


def channel_elapsed(entry: ChannelJobEntry) -> str | None:
    """``"12.3s"`` with both timestamps, ``"running"`` with only ``started_at``, else None."""
    if entry.started_at and entry.completed_at:
        ms = elapsed_ms(entry.started_at, entry.completed_at)
        return None if ms is None else format_elapsed(ms)
    if entry.started_at:
        return "running"
    return None


def status_document(job: JobRecord) -> dict[str, Any]:
    """``{job_id, status, channels: {name: {status, elapsed?, reason?}}, worker?}``."""
    channels: dict[str, dict[str, str]] = {}
    for name, entry in job.channels.items():
        item: dict[str, str] = {"status": entry.status}
        elapsed = channel_elapsed(entry)
        if elapsed is not None:
            item["elapsed"] = elapsed
        if entry.reason:
            item["reason"] = entry.reason
        channels[name] = item
    document: dict[str, Any] = {"job_id": job.job_id, "status": job.status, "channels": channels}
    if job.worker_state is not None:
        document["worker"] = job.worker_state
    return document


def status_exit_code(job: JobRecord) -> int:
    """1 while any channel runs; else 2 if one failed, timed out, failed auth or was not
    installed; else 0.

    A job whose worker still holds ``worker.lock`` is running too: once every channel has
    settled, the worker may still register compensating passes or be saving results.
    """
    statuses = [entry.status for entry in job.channels.values()]
    if job.running_channels or job.worker_state == "running":
        return 1
    if any(status in STATUS_FAILURES for status in statuses):
        return 2
    return 0


def require_results_ready(job: JobRecord) -> None:
    """Refuse critique jobs (exit 5) and jobs with unfinished channels (exit 1)."""
    if job.is_critique:
        raise JobKindError(
            f"Job {job.job_id} is a critique job; `mmr results` and `mmr reconcile` "
            "only evaluate review jobs"
        )
    if job.running_channels:
        raise ChannelsStillRunningError(job.running_channels)
