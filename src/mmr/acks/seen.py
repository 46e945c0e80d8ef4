"""When each ack last suppressed a finding: ``<MMR root>/ack-last-seen.json``.

``mmr ack prune`` removes acks whose findings have not been seen for a while, so every
results run that applies an ack records ``{"<ack finding_key>": "<ISO time>"}`` here.
The file lives in the MMR root and never in the work tree: a review must not write to
the repository, and a changed project ack file would trip the ratification gate.
MMR 4.0.1 ignores the file, so both tools can share the root.

Writes are a read-modify-write under a ``mkdir`` lock (the session index's timings), so
two reviews finishing at once do not lose each other's sightings. A corrupt file is
treated as empty and rewritten: it only ever delays a prune.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from mmr.fs import atomic_write_json, ensure_private_dir, read_bytes_nofollow
from mmr.log import get_logger
from mmr.store.locking import mkdir_lock
from mmr.store.records import iso_timestamp, parse_timestamp

LAST_SEEN_NAME = "ack-last-seen.json"
_LOCK_STALE_SECONDS = 5.0
_LOCK_TIMEOUT_SECONDS = 5.0


def last_seen_path(mmr_root: Path) -> Path:
    return mmr_root / LAST_SEEN_NAME


def _read_raw(path: Path) -> dict[str, str]:
    try:
        value = json.loads(read_bytes_nofollow(path))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        get_logger(__name__).warning("ack last-seen file unreadable; treating it as empty",
                                     path=str(path), error=str(exc))
        return {}
    if not isinstance(value, dict):
        get_logger(__name__).warning("ack last-seen file is not an object; treating it as empty",
                                     path=str(path))
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def read_last_seen(mmr_root: Path) -> dict[str, datetime]:
    """Ack key → the last time a results run applied it (unreadable entries dropped)."""
    seen: dict[str, datetime] = {}
    for key, text in _read_raw(last_seen_path(mmr_root)).items():
        moment = parse_timestamp(text)
        if moment is not None:
            seen[key] = moment
    return seen


def record_sightings(mmr_root: Path, ack_keys: Iterable[str], now: datetime) -> None:
    """Set each key's last-seen time to ``now`` (never moving an entry backwards)."""
    keys = sorted(set(ack_keys))
    if not keys:
        return
    ensure_private_dir(mmr_root)
    path = last_seen_path(mmr_root)
    lock = path.with_name(f"{LAST_SEEN_NAME}.lock")
    with mkdir_lock(lock, stale_after=_LOCK_STALE_SECONDS, timeout=_LOCK_TIMEOUT_SECONDS):
        entries = _read_raw(path)
        stamp = iso_timestamp(now)
        for key in keys:
            previous = parse_timestamp(entries.get(key))
            if previous is None or previous < now:
                entries[key] = stamp
        atomic_write_json(path, entries)
