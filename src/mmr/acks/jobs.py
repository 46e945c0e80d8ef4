"""Reconciled findings in stored jobs, as the ack commands need them.

``mmr ack add <key>`` copies the location and shingle of the finding a past review
reported (from ``results.json``), and ``mmr ack prune`` counts a job's findings as
sightings of the acks that match them. Both only read: no dead-worker sweep, no lock.
A ``results.json`` that is missing, over 16 MiB, malformed, or without a
``reconciled_findings`` list is skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mmr.acks.record import is_finding_key
from mmr.errors import JobNotFoundError, MmrError, StoreReadError
from mmr.fs import read_bytes_nofollow
from mmr.store.job_reader import read_job_json
from mmr.store.layout import STRICT_JOB_ID, JobPaths, is_strict_job_id
from mmr.store.records import parse_timestamp

MAX_RESULTS_BYTES = 16 * 1024 * 1024
SOURCE_TIP = "Tip: pass --job <id> if you know which job surfaced this finding."


class InvalidAckJobIdError(MmrError):
    """``ack --job`` requires the strict job-id pattern (exit 1)."""


def check_ack_job_id(job_id: str) -> str:
    """``job_id`` when it matches ``^mmr-[a-f0-9]{12}$``, else MMR 4.0.1's message."""
    if not is_strict_job_id(job_id):
        raise InvalidAckJobIdError(
            f"Invalid job id: {job_id} — must match ^{STRICT_JOB_ID.pattern}$"
        )
    return job_id


@dataclass(frozen=True)
class JobFindings:
    """The reconciled findings (raw JSON objects) one job's ``results.json`` holds."""

    job_id: str
    created_at: datetime | None
    findings: tuple[dict[str, Any], ...]


def _created_at(paths: JobPaths) -> datetime | None:
    try:
        value = read_job_json(paths).get("created_at")
    except (JobNotFoundError, StoreReadError):
        return None
    return parse_timestamp(value) if isinstance(value, str) else None


def read_job_findings(jobs_dir: Path, job_id: str) -> JobFindings | None:
    """The job's reconciled findings, or None when it has no usable ``results.json``."""
    try:
        paths = JobPaths.for_job(jobs_dir, job_id)
        if paths.results.lstat().st_size > MAX_RESULTS_BYTES:
            return None
        document = json.loads(read_bytes_nofollow(paths.results))
    except (JobNotFoundError, OSError, ValueError):
        return None
    findings = document.get("reconciled_findings") if isinstance(document, dict) else None
    if not isinstance(findings, list):
        return None
    objects = tuple(f for f in findings if isinstance(f, dict))
    return JobFindings(job_id, _created_at(paths), objects)


def iter_job_findings(jobs_dir: Path) -> Iterator[JobFindings]:
    """Every ``mmr-*`` job with usable results, newest ``created_at`` first."""
    try:
        with os.scandir(jobs_dir) as entries:
            names = [e.name for e in entries
                     if e.name.startswith("mmr-") and e.is_dir(follow_symlinks=False)]
    except FileNotFoundError:
        return
    jobs = [job for name in sorted(names) if (job := read_job_findings(jobs_dir, name))]
    oldest = datetime.min.replace(tzinfo=UTC)
    jobs.sort(key=lambda job: job.created_at or oldest, reverse=True)
    yield from jobs


@dataclass(frozen=True)
class AckSource:
    """What ``ack add`` copies from a reported finding."""

    job_id: str
    location: str
    description_shingle: list[str]
    description: str | None = None
    #: The keys of the finding's ``members`` (calibrated grouping), when it lists them.
    member_keys: tuple[str, ...] = ()


def _usable(finding: dict[str, Any], key: str) -> bool:
    shingle = finding.get("description_shingle")
    return (
        finding.get("finding_key") == key
        and isinstance(finding.get("location"), str)
        and isinstance(shingle, list)
        and all(isinstance(gram, str) for gram in shingle)
    )


def _member_keys(finding: dict[str, Any]) -> tuple[str, ...]:
    members = finding.get("members")
    if not isinstance(members, list):
        return ()
    keys = (m.get("finding_key") for m in members if isinstance(m, dict))
    return tuple(key for key in keys if isinstance(key, str) and is_finding_key(key))


def find_ack_source(jobs_dir: Path, key: str, job_id: str | None = None) -> AckSource | None:
    """The first reconciled finding with ``key``: in ``job_id``, else newest job first."""
    if job_id is not None:
        found = read_job_findings(jobs_dir, job_id)
        candidates = [found] if found is not None else []
    else:
        candidates = list(iter_job_findings(jobs_dir))
    for job in candidates:
        for finding in job.findings:
            if _usable(finding, key):
                description = finding.get("description")
                return AckSource(job.job_id, finding["location"],
                                 list(finding["description_shingle"]),
                                 description if isinstance(description, str) else None,
                                 _member_keys(finding))
    return None


def source_not_found_message(key: str, job_id: str | None = None) -> str:
    """MMR 4.0.1's two stderr lines when ``ack add`` finds no source finding."""
    where = f" (job={job_id})" if job_id is not None else ""
    return f"No reconciled finding with key {key} found in recent jobs{where}.\n{SOURCE_TIP}"
