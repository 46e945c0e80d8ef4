"""Reading a job: ``job.json`` with every status file merged over it.

The job status is always derived from the merged channel statuses; the ``status`` stored
in ``job.json`` is ignored. Anything that makes ``job.json`` unusable — missing, not JSON,
no ``job_id`` string, no ``channels`` object, an unsafe channel name, a field of the wrong
type — reads as "not found" (exit 5), as in MMR 4.0.1.

A status file that cannot be read is not silently skipped (MMR 4.0.1 falls back to
the ``dispatched`` entry, so the job looks "still running" forever): the channel reads as
``failed`` with ``error: "corrupt status file"``.
"""

from __future__ import annotations

import errno
import json
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mmr.errors import JobNotFoundError, StoreReadError
from mmr.log import stderr_line
from mmr.store.held import read_bytes
from mmr.store.layout import JobPaths, UnsafeChannelNameError, check_channel_name
from mmr.store.records import (
    CORRUPT_STATUS_ERROR,
    ChannelJobEntry,
    JobRecord,
    derive_job_status,
)

_warned: set[Path] = set()
_warned_guard = threading.Lock()

def read_job_json(paths: JobPaths) -> dict[str, Any]:
    """The raw ``job.json`` object; :class:`JobNotFoundError` when it is unusable."""
    not_found = JobNotFoundError(f"Job not found: {paths.root.name}")
    if paths.root.is_symlink():
        raise not_found
    try:
        raw = json.loads(read_bytes(paths.job_json))
    except StoreReadError as exc:
        if exc.errno != errno.EISDIR:  # there, but refused (EACCES, EIO): not "not found"
            raise
        raise not_found from None
    except (OSError, ValueError):
        raise not_found from None
    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("job_id"), str)
        or not isinstance(raw.get("channels"), dict)
    ):
        raise not_found
    return raw


def read_status_overrides(paths: JobPaths, channel: str) -> dict[str, Any] | None:
    """The channel's status file: None when absent; ``ValueError`` when unreadable."""
    try:
        data = json.loads(read_bytes(paths.status_file(channel)))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(exc.strerror or str(exc)) from exc
    if not isinstance(data, dict):
        raise ValueError("status file is not a JSON object")
    return data


def read_job(paths: JobPaths) -> JobRecord:
    """Load, merge and derive. Never sweeps: that is the store's decision."""
    raw = read_job_json(paths)
    not_found = JobNotFoundError(f"Job not found: {paths.root.name}")
    channels: dict[str, ChannelJobEntry] = {}
    for name, entry in raw["channels"].items():
        try:
            check_channel_name(name)
            base = ChannelJobEntry.model_validate(entry)
        except (UnsafeChannelNameError, ValidationError):
            raise not_found from None
        channels[name] = _merge_status(paths, name, entry, base)
    try:
        record = JobRecord.model_validate({**raw, "channels": channels})
    except ValidationError:
        raise not_found from None
    record.status = derive_job_status(entry.status for entry in channels.values())
    return record


def _merge_status(
    paths: JobPaths, name: str, entry: dict[str, Any], base: ChannelJobEntry
) -> ChannelJobEntry:
    try:
        overrides = read_status_overrides(paths, name)
        if overrides is None:
            return base
        return ChannelJobEntry.model_validate({**entry, **overrides})
    except (ValueError, ValidationError) as exc:
        _warn_corrupt(paths.status_file(name), name, exc)
        return base.model_copy(update={"status": "failed", "error": CORRUPT_STATUS_ERROR})


def _warn_corrupt(path: Path, name: str, exc: Exception) -> None:
    """One ``mmr: warning:`` line per bad status file and process (a command reads a job
    more than once)."""
    with _warned_guard:
        if path in _warned:
            return
        _warned.add(path)
    reason = "not a valid channel status" if isinstance(exc, ValidationError) \
        else str(exc).splitlines()[0]
    stderr_line(f"mmr: warning: cannot read {path}: {reason}; channel {name} counts as "
                "failed. Remove that file (or the job's directory) to clear it")
