"""A job on disk: ``job.json`` and its channel entries.

Both models accept unknown keys and keep them (``extra="allow"``): MMR 4.0.1 and
mmr share one jobs directory, and a read-modify-write of ``job.json`` must never drop a
field written by the other tool or by a newer mmr. Field order is MMR 4.0.1's write
order, followed by mmr's additive fields.

``output_parser`` and ``telemetry`` stay plain JSON here. The store only carries them;
the parser registry and the pipeline validate them where they are used, so a job whose
parser object a newer mmr understands still loads in an older one.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mmr.models import TERMINAL_STATUSES, ChannelStatus, JobStatus, OutsideDiffGate, TrustMode
from mmr.vocabulary import ReconcileRule, Severity

AuthState = Literal["ok", "failed", "skipped"]
JobKind = Literal["review", "critique"]
WorkerState = Literal["running", "finished", "died"]

#: ``reason`` written by the dead-worker sweep and its log line.
WORKER_DIED = "worker_died"
WORKER_DIED_LOG = "worker exited before this channel finished"
#: ``error`` of an entry whose status file could not be read.
CORRUPT_STATUS_ERROR = "corrupt status file"


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")

    def to_json_dict(self) -> dict[str, Any]:
        """Plain JSON with absent optional fields omitted (never ``null``)."""
        return self.model_dump(mode="json", exclude_none=True)


class ChannelJobEntry(_Record):
    """One channel of a job: its ``job.json`` entry with its status file merged over it."""

    status: ChannelStatus
    auth: AuthState = "ok"
    recovery: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    output_parser: str | dict[str, Any] | None = None
    pid: int | None = None
    elapsed: str | None = None
    findings_count: int | None = None
    # mmr additions; MMR 4.0.1 ignores them.
    reason: str | None = None
    telemetry: dict[str, Any] | None = None
    attempts: int | None = None
    compensator: str | None = None
    injected: bool | None = None
    error: str | None = None
    #: The reply came from the review cache, first given in job ``cached_from``.
    cached: bool | None = None
    cached_from: str | None = None

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


class ReviewControls(_Record):
    """The effective round cap and ack/config trust policy of the review."""

    max_rounds: int | None = None
    accept_new_acks: bool = False
    trust_project_acks: bool = False
    trust_project_config: bool = False
    config_base_ref: str | None = None


class WorkerInfo(_Record):
    """The detached worker, as it recorded itself."""

    pid: int
    started_at: str


class JobRecord(_Record):
    """``job.json``. ``status`` is derived on load; on disk it always reads ``dispatched``."""

    job_id: str
    status: JobStatus = "dispatched"
    fix_threshold: Severity | None = None
    format: str | None = None
    created_at: str | None = None
    channels: dict[str, ChannelJobEntry]
    min_completed_channels: int | None = None
    session_id: str | None = None
    # MMR 4.0.1 accepts fractional rounds, so a job it wrote may hold 2.5.
    round: int | float | None = None
    review_controls: ReviewControls | None = None
    trust_mode: TrustMode | None = None
    proposed_acks: list[str] | None = None
    proposed_config_change: bool | None = None
    # mmr additions.
    kind: JobKind | None = None
    project_root: str | None = None
    worker: WorkerInfo | None = None
    #: ``{channel: "<cli> --version" first line}`` of the CLIs that reviewed this job.
    cli_versions: dict[str, str] | None = None
    #: ``defaults.outside_diff_findings`` when the job was created.
    outside_diff_findings: OutsideDiffGate | None = None
    #: Files the run-wide ``diff_exclude`` removed from the diff (reported as coverage).
    excluded_files: list[str] | None = None
    #: How long ``results``/``reconcile`` wait for this job by default (seconds).
    wait_budget_s: float | None = None
    #: ``defaults.reconcile`` when the job was created; a job without it (MMR 4.0.1's)
    #: is reconciled by MMR 4.0.1's rule.
    reconcile: ReconcileRule | None = None
    #: ``{channel: voice}`` (:mod:`mmr.review.voices`): who really reviews through it.
    voices: dict[str, str] | None = None
    #: Derived on load, never written: None for jobs without ``worker.lock``.
    worker_state: WorkerState | None = Field(default=None, exclude=True)

    @property
    def is_critique(self) -> bool:
        return self.kind == "critique"

    @property
    def running_channels(self) -> list[str]:
        """Names of the channels that are not terminal yet, in job order."""
        return [name for name, entry in self.channels.items() if not entry.is_terminal]

    def list_entry(self) -> dict[str, Any]:
        """The object ``mmr jobs list`` prints for this job."""
        return {
            "job_id": self.job_id,
            "status": self.status,
            "created_at": self.created_at,
            "channels": len(self.channels),
        }


def derive_job_status(statuses: Iterable[str]) -> JobStatus:
    """All terminal → completed; any running/completed → running; else dispatched."""
    values = list(statuses)
    if all(status in TERMINAL_STATUSES for status in values):
        return "completed"
    if any(status in ("running", "completed") for status in values):
        return "running"
    return "dispatched"


def iso_timestamp(moment: datetime | None = None) -> str:
    """``2026-05-22T00:00:00.000Z``: UTC, milliseconds, ``Z`` (readable by both tools)."""
    moment = datetime.now(UTC) if moment is None else moment.astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_timestamp(value: str | None) -> datetime | None:
    """The instant an ISO-8601 timestamp names (naive = UTC), or None when unreadable."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def elapsed_ms(started_at: str | None, completed_at: str | None) -> int | None:
    """Whole milliseconds between two timestamps, None unless both are readable."""
    start, end = parse_timestamp(started_at), parse_timestamp(completed_at)
    if start is None or end is None:
        return None
    return round((end - start).total_seconds() * 1000)
