"""Read-modify-write of a job's shared files under the per-job lock.

MMR 4.0.1 rewrites ``job.json`` without a lock and merges status files without one,
so compensation and ``mmr reconcile`` racing each other can lose a channel. Here every
such update holds ``<job>/job.json.lock`` (a ``mkdir`` lock, see :mod:`mmr.store.locking`)
from the read to the atomic rename.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from mmr.errors import JobNotFoundError
from mmr.fs import ensure_private_dir
from mmr.store import held
from mmr.store.job_reader import read_status_overrides
from mmr.store.layout import JobPaths
from mmr.store.locking import mkdir_lock
from mmr.store.records import ChannelJobEntry

#: A ``job.json.lock`` older than this was left by a dead process.
LOCK_STALE_SECONDS = 30.0
#: Longer than the stale age, so a lock left by a crash is recovered, never an error.
LOCK_WAIT_SECONDS = 40.0


@contextlib.contextmanager
def job_lock(paths: JobPaths) -> Iterator[None]:
    """Hold the job's lock; :class:`JobNotFoundError` if the job directory has gone."""
    try:
        with mkdir_lock(paths.job_lock, stale_after=LOCK_STALE_SECONDS, timeout=LOCK_WAIT_SECONDS,
                        in_process_if_unwritable=held.holds(paths.root)):
            yield
    except FileNotFoundError as exc:
        if paths.root.is_dir():
            raise
        raise JobNotFoundError(f"Job not found: {paths.root.name}") from exc


def merge_status_file(paths: JobPaths, channel: str, partial: Mapping[str, Any]) -> None:
    """Merge ``partial`` into the channel's status file. Call with :func:`job_lock` held.

    ``None`` removes a key; pydantic values are stored as their JSON form. The result
    is validated as a channel entry first, so a misspelt status never reaches the disk.
    An unreadable status file is replaced by this update.
    """
    try:
        merged = read_status_overrides(paths, channel) or {}
    except ValueError:
        merged = {}
    for key, value in partial.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = json_value(value)
    ChannelJobEntry.model_validate({"status": "dispatched", **merged})
    ensure_private_dir(paths.channels_dir)
    held.write_json(paths.status_file(channel), merged, durable=False)


def json_value(value: Any) -> Any:
    """The JSON form of a value headed for a job file."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return dict(value)
    return value
