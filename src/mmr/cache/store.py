"""Cached channel replies under ``$MMR_HOME/cache/reviews/``: one JSON file a key.

Writes are atomic (temp file and rename), so concurrent reviews never read half a file: a
reader sees the old entry, the new one or none. A hit refreshes the entry's modification
time, which is what least-recently-used pruning orders by; :meth:`ReviewCache.prune` keeps
the total under the size cap and drops entries older than ``max_age``. A damaged entry is a
miss, never an error: the cache only ever saves work.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmr.fs import atomic_write_bytes, ensure_private_dir, read_bytes_nofollow

ENTRY_VERSION = 1
#: The cap on all entries together when the config does not set one.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: One reply larger than this is not cached (a reply over mmr's parse cap never parses).
MAX_ENTRY_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class CachedReply:
    """A channel reply as it was stored: what the channel printed, and where it came from."""

    key: str
    channel: str
    output: str
    job_id: str
    created_at: float
    telemetry: dict[str, Any] | None = None  #: the reply's usage (an HTTP reply's ``usage``)


class ReviewCache:
    def __init__(self, root: Path, *, max_age_s: float, max_bytes: int = DEFAULT_MAX_BYTES):
        self.root = root
        self.max_age_s = max_age_s
        self.max_bytes = max_bytes

    @property
    def enabled(self) -> bool:
        return self.max_age_s > 0 and self.max_bytes > 0

    def _path(self, key: str) -> Path:
        if len(key) != 64 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"not a cache key: {key!r}")
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, *, now: float | None = None) -> CachedReply | None:
        """The entry for ``key`` when present, readable and younger than ``max_age``."""
        if not self.enabled:
            return None
        path = self._path(key)
        try:
            data = json.loads(read_bytes_nofollow(path))
        except (OSError, ValueError):
            return None
        entry = _entry(data, key)
        current = time.time() if now is None else now
        if entry is None or current - entry.created_at > self.max_age_s:
            return None
        with suppress(OSError):
            os.utime(path)  # recently used: pruned last
        return entry

    def put(self, key: str, *, channel: str, output: str, job_id: str,
            now: float | None = None, telemetry: dict[str, Any] | None = None) -> bool:
        """Store a reply; False (and nothing written) when it is too large or disk fails."""
        if not self.enabled:
            return False
        record = {"version": ENTRY_VERSION, "key": key, "channel": channel, "job_id": job_id,
                  "created_at": time.time() if now is None else now, "output": output,
                  "telemetry": telemetry}
        data = json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass")
        if len(data) > MAX_ENTRY_BYTES:
            return False
        path = self._path(key)
        try:
            ensure_private_dir(path.parent)
            atomic_write_bytes(path, data)
        except OSError:
            return False
        return True

    def entries(self) -> Iterator[tuple[Path, os.stat_result]]:
        if not self.root.is_dir():
            return
        for shard in self.root.iterdir():
            if not shard.is_dir() or shard.is_symlink():
                continue
            for path in shard.glob("*.json"):
                with suppress(OSError):
                    yield path, path.stat()

    def prune(self, *, now: float | None = None) -> int:
        """Remove expired entries, then the least recently used past the size cap."""
        current = time.time() if now is None else now
        removed = 0
        kept: list[tuple[float, int, Path]] = []
        for path, stat in self.entries():
            if current - stat.st_mtime > max(self.max_age_s, 0):
                removed += _remove(path)
            else:
                kept.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in kept)
        for _, size, path in sorted(kept):
            if total <= self.max_bytes:
                break
            removed += _remove(path)
            total -= size
        return removed


def open_review_cache(home: Path, *, max_age_days: float, max_size_mb: int) -> ReviewCache:
    """The cache under ``<home>/cache/reviews`` with ``defaults.cache``'s limits."""
    return ReviewCache(home / "cache" / "reviews", max_age_s=max_age_days * 86400,
                       max_bytes=max_size_mb * 1024 * 1024)


def _remove(path: Path) -> int:
    try:
        path.unlink()
    except OSError:
        return 0
    return 1


def _entry(data: object, key: str) -> CachedReply | None:
    if not isinstance(data, dict) or data.get("version") != ENTRY_VERSION:
        return None
    fields = (data.get("key"), data.get("channel"), data.get("output"), data.get("job_id"))
    created = data.get("created_at")
    if fields[0] != key or not all(isinstance(f, str) for f in fields):
        return None
    if isinstance(created, bool) or not isinstance(created, int | float):
        return None
    telemetry = data.get("telemetry")
    return CachedReply(key, str(fields[1]), str(fields[2]), str(fields[3]), float(created),
                       telemetry if isinstance(telemetry, dict) else None)
